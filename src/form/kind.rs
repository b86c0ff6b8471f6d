//! What a form is for: a search, a login, a registration, a password
//! recovery, a contact or comment form, a mailing list, an order, a poll,
//! display options, a navigation, or something else — with a confidence.
//!
//! The kind is read from the page itself. Each form gives features: its
//! method; how many text, password, e-mail, select, radio, checkbox, file
//! and hidden inputs it has; the words of its action's path, its id and
//! class, its inputs' names (the hidden ones apart), labels, placeholders
//! and titles, its submit texts, its own text and links; its neighbours
//! (whether it sits in a header, a navigation bar, an aside or a footer,
//! the words of the ids and classes around it, the text just before it);
//! and, for each kind, whether those texts say one of its words in the
//! languages of [`super::words`] — so that a form in a language the
//! weights saw little of is still known by its words.
//!
//! The features are weighed by a linear model (softmax regression) whose
//! weights ship with gather (`kind_model.txt`). They were learned from the
//! Formasaurus corpus of annotated forms (TeamHG-Memex/Formasaurus, MIT)
//! by [`Model::train`]; `gather bench forms DIR` scores that training by
//! five-fold cross-validation (never on the pages a model was trained on)
//! and writes the weights again with `--write-model`.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use super::words::{self, normalized, says};
use super::{ElementKind, Form};
use crate::fetch::Method;
use crate::page::{NodeId, Page};

/// What a form is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FormKind {
    Search,
    Login,
    Registration,
    PasswordRecovery,
    Contact,
    MailingList,
    Order,
    Poll,
    DisplayOptions,
    Navigation,
    Other,
}

impl FormKind {
    /// Every kind, in the order of the model's weights.
    pub const ALL: [FormKind; 11] = [
        FormKind::Search,
        FormKind::Login,
        FormKind::Registration,
        FormKind::PasswordRecovery,
        FormKind::Contact,
        FormKind::MailingList,
        FormKind::Order,
        FormKind::Poll,
        FormKind::DisplayOptions,
        FormKind::Navigation,
        FormKind::Other,
    ];

    /// The kind's name, as `gather forms` shows it.
    pub fn name(self) -> &'static str {
        match self {
            FormKind::Search => "search",
            FormKind::Login => "login",
            FormKind::Registration => "registration",
            FormKind::PasswordRecovery => "password recovery",
            FormKind::Contact => "contact/comment",
            FormKind::MailingList => "mailing list",
            FormKind::Order => "order/add to cart",
            FormKind::Poll => "poll",
            FormKind::DisplayOptions => "display options",
            FormKind::Navigation => "navigation",
            FormKind::Other => "other",
        }
    }

    fn position(self) -> usize {
        FormKind::ALL
            .iter()
            .position(|&k| k == self)
            .unwrap_or(FormKind::ALL.len() - 1)
    }

    /// The words of this kind (none for `Other`).
    fn words(self) -> &'static [&'static str] {
        match self {
            FormKind::Search => words::SEARCH,
            FormKind::Login => words::LOGIN,
            FormKind::Registration => words::REGISTRATION,
            FormKind::PasswordRecovery => words::RECOVERY,
            FormKind::Contact => words::CONTACT,
            FormKind::MailingList => words::MAILING_LIST,
            FormKind::Order => words::ORDER,
            FormKind::Poll => words::POLL,
            FormKind::DisplayOptions => words::DISPLAY,
            FormKind::Navigation => words::NAVIGATION,
            FormKind::Other => &[],
        }
    }
}

impl fmt::Display for FormKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

const KINDS: usize = FormKind::ALL.len();

/// A form's kind as judged, with the model's probability of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judged {
    pub kind: FormKind,
    /// The probability of `kind` (0–1).
    pub confidence: f64,
    /// The probability that the form is a search form.
    pub search: f64,
}

/// The kinds of a page's forms (read by [`super::forms`] from the same
/// page), in their order, by the weights gather ships.
pub fn kinds(page: &Page, forms: &[Form]) -> Vec<Judged> {
    let model = Model::shipped();
    forms
        .iter()
        .map(|f| model.judge(&features(page, f)))
        .collect()
}

/// The node of a form on its page.
pub(crate) fn form_node(page: &Page, form: &Form) -> Option<NodeId> {
    page.label_id("form")
        .and_then(|l| page.with_label(l).get(form.index).copied())
}

/// The features of a form (see the module docs), each once.
pub fn features(page: &Page, form: &Form) -> Vec<String> {
    let mut out = Features::default();
    out.add("bias");
    out.add(match form.method {
        Method::Post => "method:post",
        _ => "method:get",
    });
    // Inputs by type.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut names = String::new();
    let mut hidden = String::new();
    let mut labels = String::new();
    let mut submits = String::new();
    for e in &form.elements {
        let t = match &e.kind {
            ElementKind::Text { input_type, .. } => match input_type.as_str() {
                "" | "text" => "text",
                "search" => "search",
                "password" => "password",
                "email" => "email",
                "tel" => "tel",
                "number" | "range" => "number",
                "url" => "url",
                "date" | "datetime-local" | "month" | "week" | "time" => "date",
                _ => "text",
            },
            ElementKind::TextArea { .. } => "textarea",
            ElementKind::Select { .. } => "select",
            ElementKind::Radio { .. } => "radio",
            ElementKind::Checkbox { .. } => "checkbox",
            ElementKind::Hidden { .. } => "hidden",
            ElementKind::Submit { .. } | ElementKind::Button { .. } => "submit",
        };
        *counts.entry(t).or_default() += 1;
        let text = if t == "hidden" {
            &mut hidden
        } else {
            &mut names
        };
        add(text, &e.name);
        if let ElementKind::Submit { value, .. } = &e.kind {
            for s in [value, &e.hints.text, &e.hints.title] {
                add(&mut submits, s);
            }
        } else if t != "hidden" {
            for l in
                e.label
                    .iter()
                    .chain([&e.hints.placeholder, &e.hints.title, &e.hints.aria_label])
            {
                add(&mut labels, l);
            }
            add(&mut names, &e.hints.id);
            add(&mut names, &e.hints.class);
        }
    }
    let node = form_node(page, form);
    let files = node.map_or(0, |n| file_inputs(page, n));
    if files > 0 {
        counts.insert("file", files);
    }
    for t in [
        "text", "search", "password", "email", "tel", "number", "url", "date", "textarea",
        "select", "radio", "checkbox", "hidden", "submit", "file",
    ] {
        let n = counts.get(t).copied().unwrap_or(0);
        let bucket = match n {
            0 => "0",
            1 => "1",
            2 => "2",
            3..=5 => "3-5",
            _ => "6+",
        };
        out.add(&format!("count:{t}:{bucket}"));
    }
    let visible: usize = counts
        .iter()
        .filter(|(t, _)| !matches!(**t, "hidden" | "submit"))
        .map(|(_, n)| n)
        .sum();
    out.add(&format!("visible:{}", visible.min(8)));

    let mut action = form.action.path().to_string();
    if let Some(q) = form.action.query() {
        action.push(' ');
        action.push_str(q);
    }
    let css = [form.id.as_deref(), form.name.as_deref()]
        .into_iter()
        .flatten()
        .chain(node.and_then(|n| page.attribute(n, "class")))
        .collect::<Vec<_>>()
        .join(" ");
    let (text, links) = node.map(|n| texts_below(page, n)).unwrap_or_default();
    let (around, before) = node.map(|n| neighbours(page, n)).unwrap_or_default();
    let sources = [
        ("act", action),
        ("css", css),
        ("name", names),
        ("hid", hidden),
        ("lab", labels),
        ("sub", submits),
        ("txt", text),
        ("link", links),
        ("anc", around),
        ("prev", before),
    ];
    for (source, text) in &sources {
        let text = normalized(text);
        for t in words::tokens(&text).take(300) {
            if t.chars().count() > 30 {
                continue;
            }
            if t.chars().all(|c| c.is_ascii_digit()) {
                out.add(&format!("{source}:#"));
            } else {
                out.add(&format!("{source}:{t}"));
            }
        }
        if *source == "hid" {
            continue;
        }
        for kind in FormKind::ALL {
            if says(&text, kind.words()) {
                out.add(&format!("kw:{source}:{}", kind.name()));
                out.add(&format!("kw:{}", kind.name()));
            }
        }
    }
    out.0
}

/// Appends words and a space.
fn add(text: &mut String, words: &str) {
    text.push_str(words);
    text.push(' ');
}

/// Distinct features in the order they were found.
#[derive(Default)]
struct Features(Vec<String>, std::collections::HashSet<String>);

impl Features {
    fn add(&mut self, f: &str) {
        if self.1.insert(f.to_string()) {
            self.0.push(f.to_string());
        }
    }
}

/// The file inputs of a form (left out of its elements).
pub(crate) fn file_inputs(page: &Page, form: NodeId) -> usize {
    page.label_id("input").map_or(0, |l| {
        page.descendants_with_label(form, l)
            .iter()
            .filter(|&&i| {
                page.attribute(i, "type")
                    .is_some_and(|t| t.trim().eq_ignore_ascii_case("file"))
            })
            .count()
    })
}

/// The text inside a form (without its scripts and styles) and the text
/// of its links.
fn texts_below(page: &Page, form: NodeId) -> (String, String) {
    let (mut text, mut links) = (String::new(), String::new());
    let end = page.subtree_end(form);
    let mut n = form.next();
    while n < end {
        if matches!(page.label_name(n), "script" | "style") {
            n = page.subtree_end(n);
            continue;
        }
        if let Some(t) = page.pcdata(n) {
            text.push_str(t);
            text.push(' ');
            if page.ancestors(n).take(4).any(|a| page.label_name(a) == "a") {
                links.push_str(t);
                links.push(' ');
            }
        }
        if text.len() > 4000 {
            break;
        }
        n = n.next();
    }
    (text, links)
}

/// Where a form sits: the landmarks around it (`header`, `nav`, `aside`,
/// `footer`) and the ids and classes of its nearest ancestors; and the
/// text just before it.
fn neighbours(page: &Page, form: NodeId) -> (String, String) {
    let mut around = String::new();
    for (depth, a) in page.ancestors(form).enumerate() {
        let label = page.label_name(a);
        if matches!(label, "header" | "nav" | "aside" | "footer") {
            around.push_str(label);
            around.push(' ');
        }
        if depth < 4 {
            for attr in ["id", "class"] {
                if let Some(v) = page.attribute(a, attr) {
                    around.push_str(v);
                    around.push(' ');
                }
            }
        }
    }
    let mut before: Vec<&str> = page
        .before(form)
        .rev()
        .take(60)
        .filter(|&n| !page.ancestors(n).any(|a| page.label_name(a) == "script"))
        .filter_map(|n| page.pcdata(n))
        .filter(|t| !t.trim().is_empty())
        .take(2)
        .collect();
    before.reverse();
    (around, before.join(" "))
}

/// The weights of a softmax regression over the features.
#[derive(Debug, Clone, Default)]
pub struct Model {
    weights: HashMap<String, [f32; KINDS]>,
}

/// The smallest weight [`Model::to_text`] writes.
const WEIGHT_KEPT: f32 = 0.1;

/// The weights gather ships (see the module docs).
const SHIPPED: &str = include_str!("kind_model.txt");

impl Model {
    /// The weights gather ships.
    pub fn shipped() -> &'static Model {
        static MODEL: OnceLock<Model> = OnceLock::new();
        MODEL.get_or_init(|| Model::parse(SHIPPED).unwrap_or_default())
    }

    /// Reads weights written by [`Model::to_text`].
    pub fn parse(text: &str) -> Result<Model, String> {
        let mut weights = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (feature, values) = line
                .split_once('\t')
                .ok_or_else(|| format!("line {}: no tab", i + 1))?;
            let mut w = [0f32; KINDS];
            for pair in values.split(' ') {
                let bad = || format!("line {}: {pair:?} is not KIND:WEIGHT", i + 1);
                let (k, v) = pair.split_once(':').ok_or_else(bad)?;
                let k: usize = k.parse().map_err(|_| bad())?;
                let slot = w
                    .get_mut(k)
                    .ok_or_else(|| format!("line {}: kind {k} of {KINDS}", i + 1))?;
                *slot = v.parse().map_err(|_| bad())?;
            }
            weights.insert(feature.to_string(), w);
        }
        Ok(Model { weights })
    }

    /// The weights as text: a line per feature, its weight per kind.
    pub fn to_text(&self) -> String {
        let mut lines: Vec<String> = self
            .weights
            .iter()
            .filter_map(|(f, w)| {
                let values: Vec<String> = w
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.abs() >= WEIGHT_KEPT)
                    .map(|(k, v)| format!("{k}:{v:.2}"))
                    .collect();
                (!values.is_empty()).then(|| format!("{f}\t{}", values.join(" ")))
            })
            .collect();
        lines.sort();
        let kinds: Vec<&str> = FormKind::ALL.iter().map(|k| k.name()).collect();
        format!(
            "# gather's form kinds: a softmax regression's weights, one feature a line,\n\
             # its weights as KIND:WEIGHT (those under {WEIGHT_KEPT} left out), the kinds\n\
             # numbered from 0: {}.\n\
             # Learned from the Formasaurus corpus (TeamHG-Memex/Formasaurus, MIT) by\n\
             # `gather bench forms DIR --write-model src/form/kind_model.txt`.\n{}\n",
            kinds.join(", "),
            lines.join("\n")
        )
    }

    /// The probability of each kind, in the order of [`FormKind::ALL`].
    pub fn probabilities(&self, features: &[String]) -> [f64; KINDS] {
        let mut scores = [0f64; KINDS];
        for f in features {
            if let Some(w) = self.weights.get(f) {
                for (s, v) in scores.iter_mut().zip(w) {
                    *s += f64::from(*v);
                }
            }
        }
        softmax(&mut scores);
        scores
    }

    /// The most probable kind.
    pub fn judge(&self, features: &[String]) -> Judged {
        let p = self.probabilities(features);
        let best = (0..KINDS)
            .max_by(|&a, &b| p[a].total_cmp(&p[b]))
            .unwrap_or(KINDS - 1);
        Judged {
            kind: FormKind::ALL[best],
            confidence: p[best],
            search: p[FormKind::Search.position()],
        }
    }

    /// Learns weights from forms of known kinds: softmax regression by
    /// AdaGrad with an L2 penalty, in a fixed order (the same examples give
    /// the same weights). Features seen in fewer than twelve forms are
    /// left out (rarer words learn a page, not a kind).
    pub fn train(examples: &[(Vec<String>, FormKind)]) -> Model {
        const EPOCHS: usize = 40;
        const RATE: f64 = 0.1;
        const L2: f64 = 2e-4;
        const MIN: usize = 12;
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (features, _) in examples {
            for f in features {
                *seen.entry(f.as_str()).or_default() += 1;
            }
        }
        let mut vocabulary: Vec<&str> = seen
            .iter()
            .filter(|(_, &n)| n >= MIN)
            .map(|(f, _)| *f)
            .collect();
        vocabulary.sort_unstable();
        let index: HashMap<&str, usize> = vocabulary
            .iter()
            .enumerate()
            .map(|(i, f)| (*f, i))
            .collect();
        let rows: Vec<(Vec<usize>, usize)> = examples
            .iter()
            .map(|(features, kind)| {
                (
                    features
                        .iter()
                        .filter_map(|f| index.get(f.as_str()).copied())
                        .collect(),
                    kind.position(),
                )
            })
            .collect();
        let mut w = vec![[0f64; KINDS]; vocabulary.len()];
        let mut g2 = vec![[1e-8f64; KINDS]; vocabulary.len()];
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..EPOCHS {
            // Fisher–Yates with a fixed xorshift.
            for i in (1..order.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
            for &r in &order {
                let (x, y) = &rows[r];
                let mut p = [0f64; KINDS];
                for &j in x {
                    for (s, v) in p.iter_mut().zip(&w[j]) {
                        *s += v;
                    }
                }
                softmax(&mut p);
                for &j in x {
                    for k in 0..KINDS {
                        let target = if k == *y { 1.0 } else { 0.0 };
                        let g = p[k] - target + L2 * w[j][k];
                        g2[j][k] += g * g;
                        w[j][k] -= RATE * g / g2[j][k].sqrt();
                    }
                }
            }
        }
        Model {
            weights: vocabulary
                .iter()
                .zip(w)
                .map(|(f, w)| (f.to_string(), w.map(|v| v as f32)))
                .collect(),
        }
    }
}

fn softmax(scores: &mut [f64; KINDS]) {
    let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for s in scores.iter_mut() {
        *s = (*s - max).exp();
        sum += *s;
    }
    for s in scores.iter_mut() {
        *s /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_forms as page_forms;
    use super::*;

    const PAGE: &str = r#"<html><body>
        <header><form action="/search" class="site-search"><input type="search" name="q" placeholder="Search"><button>Search</button></form></header>
        <aside><h3>Sign in</h3><form action="/login" method="post"><input name="user"><input type="password" name="pw"><input type="submit" value="Log in"></form></aside>
        <main><h2>Kontakt</h2><form action="/kontakt" method="post"><input name="name"><input type="email" name="mail"><textarea name="nachricht"></textarea><input type="submit" value="Senden"></form></main>
        <footer><form action="/newsletter/subscribe" method="post"><input type="email" name="email" placeholder="Your e-mail"><input type="submit" value="Subscribe"></form></footer>
        </body></html>"#;

    #[test]
    fn the_shipped_weights_tell_search_login_contact_and_newsletter_apart() {
        let (page, all) = page_forms(PAGE);
        let judged = kinds(&page, &all);
        let got: Vec<FormKind> = judged.iter().map(|j| j.kind).collect();
        assert_eq!(
            got,
            [
                FormKind::Search,
                FormKind::Login,
                FormKind::Contact,
                FormKind::MailingList
            ]
        );
        assert!(judged[0].confidence > 0.8, "{judged:?}");
        assert!(judged.iter().skip(1).all(|j| j.search < 0.2), "{judged:?}");
    }

    #[test]
    fn features_come_from_inputs_words_and_neighbours() {
        let (page, all) = page_forms(PAGE);
        let f = features(&page, &all[0]);
        for want in [
            "method:get",
            "count:search:1",
            "act:search",
            "css:site",
            "lab:search",
            "sub:search",
            "anc:header",
            "kw:act:search",
        ] {
            assert!(f.iter().any(|x| x == want), "{want} not in {f:?}");
        }
        let f = features(&page, &all[2]);
        assert!(f.iter().any(|x| x == "prev:kontakt"), "{f:?}");
        assert!(f.iter().any(|x| x == "kw:name:contact/comment"), "{f:?}");
    }

    #[test]
    fn weights_read_back_as_written_and_bad_weights_are_refused() {
        // Features seen in fewer than twelve forms are not learned.
        let mut examples = Vec::new();
        for _ in 0..12 {
            examples.push((vec!["bias".to_string(), "a".to_string()], FormKind::Search));
            examples.push((vec!["bias".to_string(), "b".to_string()], FormKind::Login));
            examples.push((vec!["rare".to_string()], FormKind::Poll));
        }
        examples.truncate(35);
        let model = Model::train(&examples);
        let again = Model::parse(&model.to_text()).unwrap();
        assert_eq!(again.judge(&["a".into()]).kind, FormKind::Search);
        assert_eq!(again.judge(&["b".into()]).kind, FormKind::Login);
        // "rare" was seen in 11 forms only: it weighs nothing.
        assert_eq!(
            again.probabilities(&["rare".into()]),
            again.probabilities(&[])
        );
        assert!(Model::parse("x\t11:1")
            .unwrap_err()
            .contains("kind 11 of 11"));
        assert!(Model::parse("x\t1")
            .unwrap_err()
            .contains("not KIND:WEIGHT"));
        assert!(Model::parse("x 1").unwrap_err().contains("no tab"));
    }
}
