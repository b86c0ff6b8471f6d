//! Surfacing a form that carries no metadata (`gather spec --induce URL`,
//! and plain `gather URL` on such a form): which inputs to query, with
//! which values, and the rules that read the answers — all found by
//! sending a few probe queries (Madhavan et al., VLDB 2008: informative
//! query templates found by probing, keywords for text boxes by probing).
//!
//! 0. **The form.** Of a page's forms, the one that looks like a search
//!    ([`surfaced_form`]): not a login, contact or newsletter form.
//! 1. **Probes.** The form as it stands (every input at its default), then
//!    each input alone: a select or radio group with `per_input` of its
//!    other values (spread over its choices), a text field with a first
//!    letter and each wildcard (`S%`, `S*`); with a wildcard that works a
//!    second letter and a digit (more letters while no two answers show
//!    rows); only when nothing brought a row, the most frequent words of
//!    the form page ([`crate::refine::learn::page_words`]). The others
//!    keep their defaults. A select without an "any" choice that brought
//!    nothing while the text fields were empty is probed again with the
//!    field filled. Every probe's answer is kept: a query of the
//!    gathering that sends the same request takes it
//!    ([`InducedSpec::answers`]).
//! 2. **Rules.** The template of the distinct answers gives the rules
//!    ([`crate::induce`]); the rule that reads the most rows (a `[*]` rule)
//!    tells, per answer, which rows it holds. An answer without rows is
//!    empty. The rules are then induced again on the answers that hold rows.
//! 3. **Inputs chosen by what they return.** An input is *informative*
//!    when its probes bring at least two different non-empty sets of rows,
//!    and not only more of the rows the form as it stands shows (a page
//!    size). Informative selects without a
//!    choice meaning "any" partition the database: they are the query
//!    elements, together (a template of several inputs only when none
//!    reaches the rows alone). Those with such a choice only narrow what
//!    another input gives: they become refinement elements (`refine:`),
//!    used when an answer is cut short. When no select partitions, a text
//!    field whose probes bring rows is the query element: with a wildcard
//!    that works, its domain is the letters followed by it (and the
//!    digits when `1%`/`1*` brought rows); otherwise it is a keyword
//!    field, queried with the words that brought rows, and the gatherer
//!    learns its other values from the answers ([`crate::refine::learn`]).
//!    A select that answered only with the field filled, with other rows
//!    than the field alone, is queried together with it. When neither,
//!    the one informative select that varies most is the query element.
//!    A line of every answer that repeats the query's words around a
//!    count (the answer's summary) is left out of the rules.
//! 4. **Values without their template words.** Where every value of a
//!    slot starts with the same words (a heading "Films filed under
//!    Drama", a label "Company: Acme"), those words are template: the rule
//!    cuts them off (`, match/^Films filed under (.+?)$/`). A common end of
//!    two words or more is cut too; a unit ("50 EUR") stays.
//! 5. **Names from the page.** A slot that shows the value a probe sent is
//!    named after that input; else after the form field whose choices hold
//!    all its values; else the column header over it, the definition-list
//!    term before it, a label before it ("Preis:"), or the last
//!    capitalised word of the template words cut off ("…im Landkreis X");
//!    else `slot_N`.
//!
//! Nothing is silent: when no probe brings a row, or no rule is found, the
//! error lists every input, every probe and what it answered.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use url::Url;

use super::{induce, Algorithm, Induction, Slot};
use crate::fetch::{Fetcher, Request};
use crate::form::{forms, Choice, ElementKind, Form};
use crate::hel::Rule;
use crate::metadata::{classify, Metadata};
use crate::page::{Page, PCDATA};
use crate::plan::QueryPlan;
use crate::spec::{FormRef, ResultItem, Spec, Values};

/// Values of a select probed besides its default, unless told otherwise.
pub const DEFAULT_PER_INPUT: usize = 1;
/// Letters a text field is probed with: the first with each wildcard, the
/// others only with a wildcard the first showed to work.
const PROBE_LETTERS: [char; 2] = ['S', 'M'];
/// The digit a prefix search is probed with once its wildcard works: the
/// most frequent leading digit (Benford's law). When it brings no row, the
/// digits are left out of the domain.
const PROBE_DIGIT: char = '1';
const WILDCARDS: [char; 2] = ['%', '*'];
/// Words of the form page a text field is probed with.
const PROBE_WORDS: usize = 8;
/// Words of the form page read for probing a text field (the first
/// `PROBE_WORDS` are sent).
const SEED_WORDS: usize = 20;

/// What an input became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A query element: its values are sent.
    Query,
    /// A refinement element: used where an answer is cut short.
    Refine,
    /// Left at its default.
    Unused,
}

/// An input of the form and why it got its role.
#[derive(Debug, Clone)]
pub struct InputReport {
    pub name: String,
    /// `select`, `radio`, `text`…
    pub kind: &'static str,
    pub role: Role,
    pub why: String,
}

/// One probe: the values it sent (besides the defaults) and what came back.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    pub values: Vec<(String, String)>,
    /// Rows the answer held (by the rule that reads the most rows).
    pub rows: usize,
    /// HTTP status of the answer.
    pub status: u16,
}

/// A spec written from a form page and the answers to its probes.
#[derive(Debug, Clone)]
pub struct InducedSpec {
    pub spec: Spec,
    /// The probes sent, in order.
    pub probes: Vec<ProbeReport>,
    /// Every input of the form with its role.
    pub inputs: Vec<InputReport>,
    /// The attributes named `slot_N`, with their values on the first answer.
    pub unnamed: Vec<(String, Vec<String>)>,
    /// Every attribute with its first values, in the spec's order.
    pub samples: Vec<(String, Vec<String>)>,
    /// The probes' answers (2xx only) with the requests that brought them:
    /// a query of the gathering that sends the same request takes its
    /// answer from here instead of asking again.
    pub answers: Vec<(Request, crate::fetch::Response)>,
    /// Lines of the answers left out because they repeat the query's own
    /// words around a count ("41 openings for “analyst”"): one example each.
    pub left_out: Vec<String>,
}

impl InducedSpec {
    /// The plan chosen, for people: inputs with their roles and reasons,
    /// the probes, the rules with sample values.
    pub fn plan_text(&self) -> String {
        let mut out = format!("surfacing {} (no metadata):\n", self.spec.url);
        out.push_str("  inputs:\n");
        for i in &self.inputs {
            let role = match i.role {
                Role::Query => "query element",
                Role::Refine => "refinement element",
                Role::Unused => "left at its default",
            };
            let _ = writeln!(out, "    {} ({}): {role}: {}", i.name, i.kind, i.why);
        }
        let _ = writeln!(
            out,
            "  probes: {} requests to the provider (besides the form page); an answer the gathering needs again is taken from them, not asked again",
            self.probes.len()
        );
        for p in &self.probes {
            let _ = writeln!(out, "    {}: {}", describe_values(&p.values), answer(p));
        }
        out.push_str("  rules:\n");
        for (item, (_, values)) in self.spec.results.iter().zip(&self.samples) {
            let shown: Vec<&String> = values.iter().take(3).collect();
            let more = if values.len() > 3 { ", …" } else { "" };
            let _ = writeln!(
                out,
                "    {}: {}  e.g. {shown:?}{more}",
                item.attribute.as_deref().unwrap_or("?"),
                item.rule.as_deref().unwrap_or("?")
            );
        }
        for line in &self.left_out {
            let _ = writeln!(
                out,
                "    left out: a line that repeats the words of the query (the answer's summary), e.g. {line:?}"
            );
        }
        out
    }

    /// The spec as YAML, with a header that says where it comes from and
    /// which slots still need a name.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("# gather spec induced by probing the form\n");
        for line in self.plan_text().lines() {
            let _ = writeln!(out, "# {line}");
        }
        if self.unnamed.is_empty() {
            out.push_str("# every slot is named; review the rules before gathering\n");
        } else {
            out.push_str("# slots it could not name (rename them, drop those you do not want):\n");
            for (name, values) in &self.unnamed {
                let shown: Vec<&String> = values.iter().take(3).collect();
                let more = if values.len() > 3 { ", …" } else { "" };
                let _ = writeln!(out, "#   {name}: {shown:?}{more}");
            }
        }
        out.push_str(&self.spec.to_yaml());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// The plan written in the comments of an induced spec's YAML
/// ([`InducedSpec::to_yaml`]), for a run that takes the stored spec.
pub fn plan_of_yaml(yaml: &str) -> String {
    let mut out = String::new();
    for line in yaml.lines().skip(1) {
        let Some(line) = line.strip_prefix("# ") else {
            break;
        };
        if line.starts_with("every slot is named") || line.starts_with("slots it could not name") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn describe_values(values: &[(String, String)]) -> String {
    if values.is_empty() {
        "the form as it stands".into()
    } else {
        values
            .iter()
            .map(|(k, v)| format!("{k}={v:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn answer(p: &ProbeReport) -> String {
    if !(200..300).contains(&p.status) {
        format!("HTTP {}", p.status)
    } else if p.rows == 0 {
        "empty".into()
    } else {
        format!("{} rows", p.rows)
    }
}

/// Why no spec could be induced.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    #[error("{0}")]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("{url} carries DB.* metadata: `gather spec {url}` writes its spec")]
    HasMetadata { url: Url },
    #[error("{url}: {message}")]
    Form { url: Url, message: String },
    #[error("{url}: {0}", url = .1)]
    Induce(super::InduceError, Url),
    /// No probe brought rows, or no rule reads them: what was tried.
    #[error("{url}: {reason}; tried:\n{tried}")]
    Nothing {
        url: Url,
        reason: String,
        tried: String,
    },
}

/// Element → value pairs.
type Pairs = Vec<(String, String)>;

/// An input the probes vary.
struct Input {
    name: String,
    kind: &'static str,
    /// Values probed (not the default).
    probes: Vec<String>,
    /// The choices of a select or radio group (empty for a text field).
    choices: Vec<Choice>,
    /// A choice means "any" (empty value, "all", "alle", "egal" …).
    any: bool,
    text: bool,
}

/// A probe sent: the input it varies (`None` for the form as it stands),
/// the value, the answer.
struct Sent {
    input: Option<usize>,
    values: Vec<(String, String)>,
    status: u16,
    body: Vec<u8>,
    page: Page,
    /// The request sent and its answer, for the gathering to take as the
    /// answer of the same query.
    answer: Option<(Request, crate::fetch::Response)>,
}

/// Fetches the form page, probes its inputs and induces the spec (see the
/// module docs). `per_input` is how many values of each select are probed
/// besides its default.
pub async fn induce_spec(
    url: &Url,
    fetcher: &Fetcher,
    per_input: usize,
    named: &[String],
) -> Result<InducedSpec, SiteError> {
    let resp = fetcher.get(url).await?;
    induce_spec_from(resp, fetcher, per_input, named).await
}

/// [`induce_spec`] on a form page already fetched. Only a form the
/// operator named (`named`: positions, names or ids) or one judged a
/// search form that is safe to submit is probed
/// ([`crate::form::safe::submittable`]).
pub async fn induce_spec_from(
    resp: crate::fetch::Response,
    fetcher: &Fetcher,
    per_input: usize,
    named: &[String],
) -> Result<InducedSpec, SiteError> {
    let decoded = resp.text();
    let page = Page::parse(&decoded.text);
    if page.meta_tags().any(|(name, _)| classify(name).is_some()) {
        return Err(SiteError::HasMetadata { url: resp.url });
    }
    let form_url = resp.url.clone();
    let form_error = |message: String| SiteError::Form {
        url: form_url.clone(),
        message,
    };
    let all = forms(&page, &resp.url, decoded.encoding).map_err(|e| form_error(e.to_string()))?;
    let seeds = crate::refine::learn::page_words(&page.text(), SEED_WORDS);
    let allowed: Vec<Form> = crate::form::safe::submittable(&page, &all, named)
        .map_err(form_error)?
        .into_iter()
        .cloned()
        .collect();
    let (form, inputs) = surfaced_form(&allowed)
        .map(|f| (f, inputs_of(f, per_input.max(1), &seeds)))
        .ok_or_else(|| {
            form_error(
                "no form has an input to query (a select, radio group or checkboxes with two or more values, or a text field)"
                    .into(),
            )
        })?;
    let mut spec = Spec {
        url: resp.url.to_string(),
        form: (form.index > 0).then_some(FormRef::Index(form.index)),
        ..Spec::default()
    };
    let plan =
        probe_plan(&spec, form, &inputs[0], &resp.url, decoded.encoding).map_err(form_error)?;

    // 1. Probes.
    let mut sent: Vec<Sent> = Vec::new();
    // The form as it stands: the plan's query element keeps its default too.
    let defaults: Vec<(String, String)> = form
        .element(&inputs[0].name)
        .map(|e| e.default_values())
        .unwrap_or_default()
        .into_iter()
        .take(1)
        .map(|v| (inputs[0].name.clone(), v))
        .collect();
    // First the form as it stands, the selects and the first letter of
    // the text fields with each wildcard; then, for a wildcard that
    // brought rows, a second letter and a digit with it (a wildcard whose
    // first letter brought nothing is judged and not tried again); the
    // words of the form page only when none of those brought a row.
    let mut wanted: Vec<(Option<usize>, Pairs)> = vec![(None, Vec::new())];
    let mut words: Vec<(Option<usize>, Pairs)> = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        for value in &input.probes {
            let probe = (Some(i), vec![(input.name.clone(), value.clone())]);
            if input.text && !value.ends_with(WILDCARDS) {
                words.push(probe);
            } else {
                wanted.push(probe);
            }
        }
    }
    let mut rows: Vec<BTreeSet<String>> = Vec::new();
    let mut distinct: Vec<usize> = Vec::new();
    let mut reason = "";
    let mut stage = 0;
    let mut round = wanted;
    loop {
        if !round.is_empty() {
            send_probes(fetcher, &plan, &defaults, round, &mut sent).await?;
            // 2. Rules, and the rows of every answer.
            let answers =
                answers_rows(&sent).map_err(|e| SiteError::Induce(e, resp.url.clone()))?;
            (distinct, rows, reason) = (answers.distinct, answers.rows, answers.reason);
        }
        // Letters with a wildcard that works are queries of the plan too
        // (their answers are taken again), so more of them are sent until
        // two answers show the rows a rule reads.
        let more = if stage == 1 {
            more_letters(&inputs, &sent, &rows)
        } else {
            Vec::new()
        };
        if !more.is_empty() {
            round = more;
            continue;
        }
        stage += 1;
        round = match stage {
            1 => prefix_follow_ups(&inputs, &sent, &rows),
            2 if rows.iter().all(BTreeSet::is_empty) => std::mem::take(&mut words),
            2 => Vec::new(),
            3 => selects_beside_text(&inputs, &sent, &rows),
            _ => break,
        };
    }
    let nothing = |reason: &str, rows: &[BTreeSet<String>]| SiteError::Nothing {
        url: resp.url.clone(),
        reason: reason.to_string(),
        tried: tried(&inputs, &sent, rows),
    };
    if !reason.is_empty() {
        return Err(nothing(reason, &rows));
    }

    // 3. Inputs chosen by what they return.
    let verdicts = judge(&inputs, &sent, &rows);
    let chosen = choose(&inputs, &verdicts, &sent, &rows);
    let Some(chosen) = chosen else {
        return Err(nothing("no probe brought a row", &rows));
    };
    let mut reports: Vec<InputReport> = inputs
        .iter()
        .zip(&verdicts)
        .map(|(input, v)| InputReport {
            name: input.name.clone(),
            kind: input.kind,
            role: Role::Unused,
            why: v.why.clone(),
        })
        .collect();
    for &i in &chosen.query {
        reports[i].role = Role::Query;
        reports[i].why = match chosen.beside.iter().find(|(s, _)| *s == i) {
            Some((_, why)) => why.clone(),
            None => format!("{}; {}", chosen.why, reports[i].why),
        };
    }
    for &i in &chosen.refine {
        reports[i].role = Role::Refine;
        reports[i].why = format!(
            "narrows what {} gives; {}",
            names(&inputs, &chosen.query),
            reports[i].why
        );
    }
    let query_names: Vec<String> = chosen
        .query
        .iter()
        .map(|&i| inputs[i].name.clone())
        .collect();
    if let [one] = query_names.as_slice() {
        spec.query_element = Some(one.clone());
    } else {
        spec.query_elements = Some(Values::List(query_names.clone()));
    }
    for (name, domain) in &chosen.domains {
        spec.domains.insert(name.clone(), domain.clone());
    }
    if !chosen.refine.is_empty() {
        spec.refine = Some(Values::List(
            chosen
                .refine
                .iter()
                .map(|&i| inputs[i].name.clone())
                .collect(),
        ));
    }

    // The rules again, on the answers with rows: those of the query
    // elements' probes and the form as it stands first.
    let with_rows: Vec<usize> = distinct
        .iter()
        .copied()
        .filter(|&i| !rows[i].is_empty())
        .collect();
    let mut training: Vec<usize> = with_rows
        .iter()
        .copied()
        .filter(|&i| sent[i].input.is_none_or(|k| chosen.query.contains(&k)))
        .collect();
    if training.len() < 2 {
        training = with_rows.clone();
    }
    let (pages, training_sent): (Vec<Page>, Vec<&Sent>) = if training.len() >= 2 {
        (
            training.iter().map(|&i| sent[i].page.clone()).collect(),
            training.iter().map(|&i| &sent[i]).collect(),
        )
    } else {
        (
            distinct.iter().map(|&i| sent[i].page.clone()).collect(),
            distinct.iter().map(|&i| &sent[i]).collect(),
        )
    };
    let mut induction = induce(&pages, Algorithm::Approximate)
        .map_err(|e| SiteError::Induce(e, resp.url.clone()))?;

    // 4. and 5. Values without template words, names from the page.
    name_by_probes(&mut induction, form, &training_sent);
    let mut used: Vec<String> = Vec::new();
    let mut unnamed = Vec::new();
    let mut samples = Vec::new();
    let mut left_out = Vec::new();
    for (n, slot) in induction.slots.iter().enumerate() {
        if echoes_query(slot, &training_sent, &inputs) {
            let shown = slot.values.iter().flatten().next().cloned();
            left_out.push(shown.unwrap_or_default());
            continue;
        }
        let (slot, cut) = without_template_words(slot, &pages);
        let name = slot
            .name
            .clone()
            .or_else(|| name_by_choices(form, &slot))
            .or_else(|| name_on_page(&pages, &slot))
            .or_else(|| cut.as_deref().and_then(name_of_words))
            .map(|n| attribute_name(&n))
            .filter(|n| !n.is_empty());
        let name = match name {
            Some(name) => unique(name, &used),
            None => {
                let name = unique(format!("slot_{}", n + 1), &used);
                unnamed.push((name.clone(), slot.values[0].clone()));
                name
            }
        };
        used.push(name.clone());
        samples.push((
            name.clone(),
            slot.values.iter().flatten().take(5).cloned().collect(),
        ));
        spec.results.push(ResultItem {
            attribute: Some(name),
            rule: Some(slot.rule.clone()),
            ..ResultItem::default()
        });
    }
    if spec.results.is_empty() {
        return Err(nothing("no rule reads the answers", &rows));
    }
    let probes = sent
        .iter()
        .zip(&rows)
        .map(|(s, r)| ProbeReport {
            values: s.values.clone(),
            rows: r.len(),
            status: s.status,
        })
        .collect();
    let answers = sent
        .into_iter()
        .filter_map(|s| s.answer)
        .filter(|(_, a)| (200..300).contains(&a.status))
        .collect();
    Ok(InducedSpec {
        spec,
        probes,
        inputs: reports,
        unnamed,
        samples,
        answers,
        left_out,
    })
}

/// Sends a round of probes (each input's values, the others at their
/// defaults) and keeps their answers.
async fn send_probes(
    fetcher: &Fetcher,
    plan: &QueryPlan,
    defaults: &Pairs,
    round: Vec<(Option<usize>, Pairs)>,
    sent: &mut Vec<Sent>,
) -> Result<(), SiteError> {
    for (input, values) in round {
        let mut sending = values.clone();
        for (k, v) in defaults {
            if !sending.iter().any(|(n, _)| n == k) {
                sending.push((k.clone(), v.clone()));
            }
        }
        let query = plan.query_with(0, sending);
        let answer = fetcher.fetch(&query.request).await?;
        let page = Page::from_bytes(&answer.body, answer.content_type.as_deref());
        sent.push(Sent {
            input,
            values,
            status: answer.status,
            body: answer.body.to_vec(),
            page,
            answer: Some((query.request, answer)),
        });
    }
    Ok(())
}

/// The second round of a text field's prefix probes: for each wildcard
/// whose first letter brought rows, a second letter and a digit with it.
fn prefix_follow_ups(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, i)| i.text) {
        for w in WILDCARDS {
            if !wildcard_works(sent, rows, i, w) {
                continue;
            }
            for c in PROBE_LETTERS[1..].iter().chain([&PROBE_DIGIT]) {
                out.push((Some(i), vec![(input.name.clone(), format!("{c}{w}"))]));
            }
        }
    }
    out
}

/// Letters in the order they most often begin a word (English and
/// German), for more prefix probes.
const LETTER_ORDER: &str = "SMCPBATDRHFGLWKENOIUVJYZQX";
/// Letters probed with one wildcard at most.
const MOST_LETTERS: usize = 12;

/// While no rule reads rows yet (a single answer with rows is too few),
/// three more letters with each wildcard whose first letter brought a
/// long answer.
fn more_letters(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    if !rows.iter().all(BTreeSet::is_empty) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, input) in inputs.iter().enumerate().filter(|(_, i)| i.text) {
        for w in WILDCARDS {
            if !wildcard_works(sent, rows, i, w) {
                continue;
            }
            let tried: Vec<char> = LETTER_ORDER
                .chars()
                .filter(|c| sent_value(sent, i, &format!("{c}{w}")))
                .collect();
            if tried.len() >= MOST_LETTERS {
                continue;
            }
            let next = LETTER_ORDER.chars().filter(|c| !tried.contains(c)).take(3);
            for c in next {
                out.push((Some(i), vec![(input.name.clone(), format!("{c}{w}"))]));
            }
        }
    }
    out
}

/// Whether the first letter with wildcard `w` brought rows to text field
/// `i`; before a rule reads rows, whether its answer is well longer than
/// the shortest answer (one with rows stands out so).
fn wildcard_works(sent: &[Sent], rows: &[BTreeSet<String>], i: usize, w: char) -> bool {
    let first = format!("{}{w}", PROBE_LETTERS[0]);
    if !rows.iter().all(BTreeSet::is_empty) {
        return probe_rows(sent, rows, i, &first) > 0;
    }
    let shortest = sent
        .iter()
        .filter(|s| (200..300).contains(&s.status))
        .map(|s| s.body.len())
        .min()
        .unwrap_or(0);
    sent.iter().any(|s| {
        s.input == Some(i)
            && s.values.iter().any(|(_, v)| *v == first)
            && (200..300).contains(&s.status)
            && s.body.len() * 2 > shortest * 3
    })
}

/// Whether a probe of input `i` sent `value`.
fn sent_value(sent: &[Sent], i: usize, value: &str) -> bool {
    sent.iter()
        .any(|s| s.input == Some(i) && s.values.iter().any(|(_, v)| v == value))
}

/// The text probe that brought the most rows: its input and value.
fn best_text_probe(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Option<(usize, String)> {
    sent.iter()
        .zip(rows)
        .filter_map(|(s, r)| {
            let t = s.input.filter(|&t| inputs[t].text)?;
            let (_, value) = s.values.iter().find(|(k, _)| *k == inputs[t].name)?;
            (!r.is_empty() && s.values.len() == 1).then(|| (r.len(), t, value.clone()))
        })
        .max_by_key(|(n, t, _)| (*n, std::cmp::Reverse(*t)))
        .map(|(_, t, value)| (t, value))
}

/// A select with no "any" choice whose probes brought nothing while the
/// text fields were empty is probed again with the text field filled
/// (the value whose probe brought the most rows): a form that needs both
/// (a section and the start of a name) answers only then. Only when no
/// select partitions the rows on its own.
fn selects_beside_text(
    inputs: &[Input],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(Option<usize>, Pairs)> {
    let verdicts = judge(inputs, sent, rows);
    let partitions = |i: usize| !inputs[i].text && !inputs[i].any && verdicts[i].informative;
    if (0..inputs.len()).any(partitions) {
        return Vec::new();
    }
    let Some((t, value)) = best_text_probe(inputs, sent, rows) else {
        return Vec::new();
    };
    // Each value of the select with each of the field's values that
    // brought rows (up to three): with a wildcard, those are queries of
    // the plan, whose answers are taken again.
    let mut filled: Vec<String> = vec![value];
    for (x, r) in sent.iter().zip(rows) {
        if x.input == Some(t) && x.values.len() == 1 && !r.is_empty() {
            let v = &x.values[0].1;
            if !filled.contains(v) && filled.len() < 3 {
                filled.push(v.clone());
            }
        }
    }
    let mut out = Vec::new();
    for (s, input) in inputs.iter().enumerate() {
        if input.text || input.any || verdicts[s].rows > 0 {
            continue;
        }
        for v in &input.probes {
            for f in &filled {
                out.push((
                    Some(s),
                    vec![
                        (input.name.clone(), v.clone()),
                        (inputs[t].name.clone(), f.clone()),
                    ],
                ));
            }
        }
    }
    out
}

/// The selects that, with text field `t` filled, brought rows other than
/// the text field's probe alone ([`selects_beside_text`]), each with why.
fn beside_text(
    inputs: &[Input],
    t: usize,
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(usize, String)> {
    let text = &inputs[t].name;
    let mut out = Vec::new();
    for s in 0..inputs.len() {
        let filled: Vec<(&Sent, &BTreeSet<String>)> = sent
            .iter()
            .zip(rows)
            .filter(|(x, _)| x.input == Some(s) && x.values.iter().any(|(k, _)| k == text))
            .collect();
        let Some((probe, found)) = filled.first() else {
            continue;
        };
        let Some((_, value)) = probe.values.iter().find(|(k, _)| k == text) else {
            continue;
        };
        // Other rows than the field alone brought (none at all, too), and
        // not only more of them (a page size).
        let alone = probe_rows_set(sent, rows, t, value);
        if alone.is_some_and(|a| a != *found && !a.is_subset(found)) {
            out.push((
                s,
                format!(
                    "its answers were empty while {text} was; with {text}={value:?} its value {:?} brought {} rows, the field alone {}: its values partition the rows, queried together with {text}",
                    probe.values[0].1,
                    found.len(),
                    alone.map_or(0, BTreeSet::len)
                ),
            ));
        }
    }
    out
}

/// The rows of input `i`'s probe alone with `value`, when sent.
fn probe_rows_set<'a>(
    sent: &[Sent],
    rows: &'a [BTreeSet<String>],
    i: usize,
    value: &str,
) -> Option<&'a BTreeSet<String>> {
    sent.iter()
        .zip(rows)
        .find(|(s, _)| s.input == Some(i) && s.values.len() == 1 && s.values[0].1 == value)
        .map(|(_, r)| r)
}

/// Rows the probe of input `i` with `value` brought (0 when not sent).
fn probe_rows(sent: &[Sent], rows: &[BTreeSet<String>], i: usize, value: &str) -> usize {
    sent.iter()
        .zip(rows)
        .find(|(s, _)| s.input == Some(i) && s.values.iter().any(|(_, v)| v == value))
        .map_or(0, |(_, r)| r.len())
}

/// The form of a page that surfacing probes, among those with an input to
/// probe: not one that asks for a password (a login or registration), nor
/// one that takes a message or an e-mail address (a contact form, a
/// newsletter), before them; among the rest one that calls itself a
/// search (a search field, a name, action or button saying so) first; then
/// the one with the most inputs, then the first. `None` when no form has
/// an input to probe.
pub fn surfaced_form(all: &[Form]) -> Option<&Form> {
    all.iter()
        .map(|f| (f, inputs_of(f, 1, &[]).len()))
        .filter(|(_, n)| *n > 0)
        .max_by_key(|(f, n)| {
            let (account, message, search) = looks(f);
            (!account, !message, search, *n, std::cmp::Reverse(f.index))
        })
        .map(|(f, _)| f)
}

/// Words that name a search in a field, action or button.
const SEARCH_WORDS: [&str; 12] = [
    "q",
    "query",
    "search",
    "keyword",
    "keywords",
    "suche",
    "such",
    "suchbegriff",
    "stichwort",
    "find",
    "recherche",
    "buscar",
];

/// What a form looks like: (asks for a password, takes a message or an
/// e-mail address, calls itself a search).
fn looks(form: &Form) -> (bool, bool, bool) {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let says_search = |text: &str| {
        let lower = text.to_lowercase();
        words(text)
            .iter()
            .any(|w| SEARCH_WORDS.contains(&w.as_str()))
            || lower.contains("search")
            || lower.contains("such")
    };
    let mut account = false;
    let mut message = false;
    let mut search = says_search(form.action.path())
        || form.id.as_deref().is_some_and(says_search)
        || form.name.as_deref().is_some_and(says_search);
    for e in &form.elements {
        let named = |w: &str| words(&e.name).iter().any(|n| n.contains(w));
        match &e.kind {
            ElementKind::Text { input_type, .. } => {
                let t = input_type.to_ascii_lowercase();
                account |= t == "password";
                message |= t == "email" || named("mail");
                search |= t == "search"
                    || says_search(&e.name)
                    || e.label.as_deref().is_some_and(says_search);
            }
            ElementKind::TextArea { .. } => message = true,
            ElementKind::Submit { value, .. } => search |= says_search(value),
            _ => {}
        }
    }
    (account, message, search)
}

/// The inputs of a form that surfacing probes, by name, with their kind
/// (`select`, `radio`, `checkboxes`, `text`, `text area`).
pub fn probed_inputs(form: &Form) -> Vec<(String, &'static str)> {
    inputs_of(form, 1, &[])
        .into_iter()
        .map(|i| (i.name, i.kind))
        .collect()
}

/// Whether a page has a form with an input to probe (a select, radio
/// group or checkboxes with two or more values, or a text field).
pub fn has_inputs(page: &Page, url: &Url) -> bool {
    forms(page, url, encoding_rs::UTF_8)
        .is_ok_and(|all| all.iter().any(|f| !inputs_of(f, 1, &[]).is_empty()))
}

/// The inputs of a form the probes vary, with their probe values: never
/// a sorting option, a page size, a honeypot or an account's field
/// ([`crate::form::role`]).
fn inputs_of(form: &Form, per_input: usize, seeds: &[String]) -> Vec<Input> {
    let mut out: Vec<Input> = Vec::new();
    let roles = crate::form::role::roles(form, crate::form::kind::FormKind::Search);
    for (e, role) in form.elements.iter().zip(roles) {
        if e.name.is_empty() || !role.queryable() || out.iter().any(|i| i.name == e.name) {
            continue;
        }
        let (kind, choices, text) = match &e.kind {
            ElementKind::Select { options, .. } => ("select", options.clone(), false),
            ElementKind::Radio { choices } => ("radio", choices.clone(), false),
            ElementKind::Checkbox { choices } => ("checkboxes", choices.clone(), false),
            ElementKind::Text { input_type, .. }
                if matches!(input_type.as_str(), "" | "text" | "search") =>
            {
                ("text", Vec::new(), true)
            }
            ElementKind::TextArea { .. } => ("text area", Vec::new(), true),
            _ => continue,
        };
        let probes = if text {
            let mut p: Vec<String> = WILDCARDS
                .iter()
                .map(|w| format!("{}{w}", PROBE_LETTERS[0]))
                .collect();
            p.extend(seeds.iter().take(PROBE_WORDS).cloned());
            p
        } else {
            let default = e.default_values().into_iter().next();
            let values: Vec<&Choice> = choices
                .iter()
                .filter(|c| Some(&c.value) != default.as_ref() && !means_any(c))
                .collect();
            if values.is_empty() || choices.len() < 2 {
                continue;
            }
            let n = per_input.min(values.len());
            (0..n)
                .map(|k| values[k * values.len() / n].value.clone())
                .collect()
        };
        let any = choices.iter().any(means_any);
        out.push(Input {
            name: e.name.clone(),
            kind,
            probes,
            choices,
            any,
            text,
        });
    }
    out
}

/// A choice that stands for every value (see [`crate::refine`]).
fn means_any(c: &Choice) -> bool {
    crate::refine::means_any(&c.value, &c.label)
}

/// The plan the probes are built from: the first input is its query
/// element (a text field with a placeholder domain); every probe sets its
/// own values with [`QueryPlan::query_with`].
fn probe_plan(
    spec: &Spec,
    form: &Form,
    first: &Input,
    url: &Url,
    encoding: &'static encoding_rs::Encoding,
) -> Result<QueryPlan, String> {
    let mut spec = spec.clone();
    spec.query_element = Some(first.name.clone());
    if first.text {
        spec.domains
            .insert(first.name.clone(), Values::List(vec![String::new()]));
    }
    let entries = spec.entries("induced spec").map_err(|e| joined(&e))?;
    let metadata = Metadata::parse(&entries).map_err(|e| joined(&e))?;
    QueryPlan::build(Some(form), &metadata, url, encoding, None).map_err(|e| joined(&e))
}

/// Problems as one line.
fn joined<T: ToString>(problems: &[T]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// The distinct answers among those sent, and the rows of every answer
/// by the rule that reads the most rows on them; or why there are none.
fn answers_rows(sent: &[Sent]) -> Result<Answers, super::InduceError> {
    let ok: Vec<usize> = (0..sent.len())
        .filter(|&i| (200..300).contains(&sent[i].status))
        .collect();
    let distinct = distinct_answers(sent, &ok);
    let no_rows = vec![BTreeSet::new(); sent.len()];
    if distinct.len() < 2 {
        return Ok(Answers {
            distinct,
            rows: no_rows,
            reason: "every probe got the same answer: no input changes what the form returns",
        });
    }
    let pages: Vec<Page> = distinct.iter().map(|&i| sent[i].page.clone()).collect();
    let first = induce(&pages, Algorithm::Approximate)?;
    let Some(row_rule) = row_rule(&first) else {
        return Ok(Answers {
            distinct,
            rows: no_rows,
            reason: "no rule reads a list of rows on the answers",
        });
    };
    let rows = sent
        .iter()
        .map(|s| {
            if (200..300).contains(&s.status) {
                row_rule.eval(&s.page).flatten().into_iter().collect()
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    Ok(Answers {
        distinct,
        rows,
        reason: "",
    })
}

/// The distinct answers, the rows of every answer, and why there are no
/// rows (empty when there are).
struct Answers {
    distinct: Vec<usize>,
    rows: Vec<BTreeSet<String>>,
    reason: &'static str,
}

/// The answers (among `ok`) whose bodies differ, first of each.
fn distinct_answers(sent: &[Sent], ok: &[usize]) -> Vec<usize> {
    let mut seen: Vec<&[u8]> = Vec::new();
    let mut out = Vec::new();
    for &i in ok {
        if !seen.contains(&sent[i].body.as_slice()) {
            seen.push(&sent[i].body);
            out.push(i);
        }
    }
    out
}

/// The rule that reads the most rows: a rule over every row with the most
/// values, or `None`.
fn row_rule(induction: &Induction) -> Option<Rule> {
    induction
        .slots
        .iter()
        .filter(|s| s.rule.contains(":*]") || s.rule.contains("[*]"))
        .max_by_key(|s| {
            let distinct: BTreeSet<&String> = s.values.iter().flatten().collect();
            distinct.len()
        })
        .and_then(|s| Rule::parse(&s.rule).ok())
}

/// What the probes of one input showed.
struct Verdict {
    informative: bool,
    /// Distinct non-empty row sets.
    variety: usize,
    /// Rows of all its answers.
    rows: usize,
    why: String,
}

fn judge(inputs: &[Input], sent: &[Sent], rows: &[BTreeSet<String>]) -> Vec<Verdict> {
    let default_rows = &rows[0];
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let mut sets: Vec<&BTreeSet<String>> = Vec::new();
            if !input.text {
                sets.push(default_rows);
            }
            for (s, r) in sent.iter().zip(rows) {
                if s.input == Some(i) {
                    sets.push(r);
                }
            }
            let non_empty: Vec<&BTreeSet<String>> =
                sets.iter().copied().filter(|r| !r.is_empty()).collect();
            let mut distinct: Vec<&BTreeSet<String>> = Vec::new();
            for r in &non_empty {
                if !distinct.contains(r) {
                    distinct.push(r);
                }
            }
            // Answers that only add rows to the default answer (a page
            // size) show more of the same; narrower ones (a filter) differ.
            let nested = distinct.len() >= 2
                && !input.text
                && !default_rows.is_empty()
                && distinct.iter().all(|a| default_rows.is_subset(a));
            let all: BTreeSet<&String> = non_empty.iter().flat_map(|r| r.iter()).collect();
            let informative = distinct.len() >= 2 && !nested;
            let why = if non_empty.is_empty() {
                format!("all {} answers were empty", sets.len())
            } else if distinct.len() < 2 {
                format!(
                    "its {} answers held the same rows ({} non-empty)",
                    sets.len(),
                    non_empty.len()
                )
            } else if nested {
                "its answers only showed more of the same rows".into()
            } else {
                format!(
                    "{} of its {} answers held different rows ({} rows in all)",
                    distinct.len(),
                    sets.len(),
                    all.len()
                )
            };
            Verdict {
                informative,
                variety: distinct.len(),
                rows: all.len(),
                why,
            }
        })
        .collect()
}

/// The template chosen: query elements (with domains for text fields) and
/// refinement elements.
struct Chosen {
    query: Vec<usize>,
    refine: Vec<usize>,
    domains: Vec<(String, Values)>,
    why: String,
    /// Selects queried together with a text field, with why
    /// ([`beside_text`]).
    beside: Vec<(usize, String)>,
}

fn choose(
    inputs: &[Input],
    verdicts: &[Verdict],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Option<Chosen> {
    let informative = |i: &usize| verdicts[*i].informative;
    let selects: Vec<usize> = (0..inputs.len()).filter(|&i| !inputs[i].text).collect();
    let partition: Vec<usize> = selects
        .iter()
        .copied()
        .filter(informative)
        .filter(|&i| !inputs[i].any)
        .collect();
    let filters: Vec<usize> = selects
        .iter()
        .copied()
        .filter(|&i| inputs[i].any && inputs[i].choices.len() > 2)
        .collect();
    if !partition.is_empty() {
        let why = if partition.len() == 1 {
            "informative, and no choice of it means \"any\": its values partition the rows".into()
        } else {
            "informative, with no choice meaning \"any\": no one of them reaches the rows alone, so they are queried together".into()
        };
        let refine = filters
            .into_iter()
            .filter(|i| verdicts[*i].informative)
            .collect();
        return Some(Chosen {
            query: partition,
            refine,
            domains: Vec::new(),
            why,
            beside: Vec::new(),
        });
    }
    if let Some(t) = (0..inputs.len()).find(|&i| inputs[i].text && verdicts[i].rows > 0) {
        let (why, domain) = text_field(&inputs[t], t, sent, rows);
        let beside = beside_text(inputs, t, sent, rows);
        let mut query: Vec<usize> = beside.iter().map(|(s, _)| *s).collect();
        query.push(t);
        return Some(Chosen {
            query,
            refine: filters,
            domains: vec![(inputs[t].name.clone(), domain)],
            why,
            beside,
        });
    }
    let best = selects
        .iter()
        .copied()
        .filter(informative)
        .max_by_key(|&i| (verdicts[i].variety, verdicts[i].rows))?;
    Some(Chosen {
        query: vec![best],
        refine: filters.into_iter().filter(|&i| i != best).collect(),
        domains: Vec::new(),
        why: "its answers vary the most among the informative inputs".into(),
        beside: Vec::new(),
    })
}

/// A text field as the query element: a prefix with the wildcard whose
/// probes brought rows, else a keyword field seeded with the words that
/// brought rows and the form page's words (module docs, point 3).
fn text_field(
    input: &Input,
    t: usize,
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> (String, Values) {
    let rows_of = |value: &str| probe_rows(sent, rows, t, value);
    for w in WILDCARDS {
        let found: Vec<(String, usize)> = sent
            .iter()
            .filter(|s| s.input == Some(t) && s.values.len() == 1)
            .map(|s| s.values[0].1.clone())
            .filter(|p| p.chars().count() == 2 && p.ends_with(w))
            .map(|p| {
                let n = rows_of(&p);
                (p, n)
            })
            .collect();
        let letters = found
            .iter()
            .any(|(p, n)| *n > 0 && !p.starts_with(PROBE_DIGIT));
        if letters {
            let digits = rows_of(&format!("{PROBE_DIGIT}{w}")) > 0;
            let shown: Vec<String> = found.iter().map(|(p, n)| format!("{p} {n} rows")).collect();
            let escaped = if w == '*' {
                "\\*".to_string()
            } else {
                w.to_string()
            };
            let (class, queried) = if digits {
                ("A-Z0-9", "every letter and digit".to_string())
            } else {
                (
                    "A-Z",
                    format!("every letter ({PROBE_DIGIT}{w} brought no row, so the digits are left out)"),
                )
            };
            return (
                format!(
                    "a prefix search: {}; queried with {queried} followed by {w}",
                    shown.join(", ")
                ),
                Values::One(format!("/[{class}]{escaped}/")),
            );
        }
    }
    let working: Vec<&String> = input
        .probes
        .iter()
        .filter(|p| !p.ends_with(WILDCARDS) && rows_of(p) > 0)
        .collect();
    // The page's words that were not probed are left to the learner: it
    // ranks them with the words of the answers, by the rows they promise.
    let domain: Vec<String> = working.iter().map(|w| w.to_string()).collect();
    let shown: Vec<String> = working.iter().map(|w| format!("{w:?}")).collect();
    (
        format!(
            "a keyword field: the words {} of the form page brought rows, prefixes with % or * did not; queried with those, further words are learned from the answers",
            shown.join(", "),
        ),
        Values::List(domain),
    )
}

fn names(inputs: &[Input], which: &[usize]) -> String {
    which
        .iter()
        .map(|&i| inputs[i].name.as_str())
        .collect::<Vec<_>>()
        .join(" × ")
}

/// Everything tried, for the error that says nothing was found.
fn tried(inputs: &[Input], sent: &[Sent], rows: &[BTreeSet<String>]) -> String {
    let mut out = String::new();
    let listed: Vec<String> = inputs
        .iter()
        .map(|i| format!("{} ({})", i.name, i.kind))
        .collect();
    let _ = writeln!(out, "  inputs: {}", listed.join(", "));
    for (s, r) in sent.iter().zip(rows) {
        let report = ProbeReport {
            values: s.values.clone(),
            rows: r.len(),
            status: s.status,
        };
        let _ = writeln!(
            out,
            "  probe {}: {}",
            describe_values(&s.values),
            answer(&report)
        );
    }
    out.trim_end().to_string()
}

/// Whether a slot, one value per answer, is the answer's summary: on
/// every answer to a text field's value its value holds that value (the
/// query's words) but is more than it ("41 openings for “analyst”"). Such
/// a line is new on every answer, and would make every query look as if
/// it found something.
fn echoes_query(slot: &Slot, sent: &[&Sent], inputs: &[Input]) -> bool {
    if slot.rule.contains("[*]") || slot.rule.contains(":*]") {
        return false;
    }
    let mut seen = false;
    for (values, s) in slot.values.iter().zip(sent) {
        let texts: Vec<String> = s
            .values
            .iter()
            .filter(|(k, _)| inputs.iter().any(|i| i.text && i.name == *k))
            .map(|(_, v)| v.to_lowercase())
            .filter(|v| !v.is_empty())
            .collect();
        if texts.is_empty() {
            continue;
        }
        for v in values {
            let lower = v.to_lowercase();
            if texts
                .iter()
                .any(|t| lower == *t || !lower.contains(t.as_str()))
            {
                return false;
            }
            seen = true;
        }
    }
    seen
}

/// Names the slots that show a probe's value (module docs, point 5).
fn name_by_probes(induction: &mut Induction, form: &Form, sent: &[&Sent]) {
    let mut elements: Vec<&String> = Vec::new();
    for s in sent {
        for (k, _) in &s.values {
            if !elements.contains(&k) {
                elements.push(k);
            }
        }
    }
    for element in elements {
        let Some(e) = form.element(element) else {
            continue;
        };
        let default = e.default_values().into_iter().next().unwrap_or_default();
        let shown: Vec<Vec<String>> = sent
            .iter()
            .map(|s| {
                let value = s
                    .values
                    .iter()
                    .find(|(k, _)| k == element)
                    .map_or(default.clone(), |(_, v)| v.clone());
                let mut texts = vec![value.clone()];
                if let Some(label) = label_of(form, element, &value) {
                    texts.push(label);
                }
                texts
            })
            .collect();
        induction.name_by_values(element, &shown);
    }
}

/// The visible label of an element's choice.
fn label_of(form: &Form, element: &str, value: &str) -> Option<String> {
    let e = form.element(element)?;
    let choices = match &e.kind {
        ElementKind::Select { options, .. } => options,
        ElementKind::Radio { choices } | ElementKind::Checkbox { choices } => choices,
        _ => return None,
    };
    choices
        .iter()
        .find(|c| c.value == value)
        .map(|c| c.label.clone())
}

/// The slot with its template words cut off (module docs, point 4), and
/// the words cut off in front.
fn without_template_words(slot: &Slot, pages: &[Page]) -> (Slot, Option<String>) {
    let values: Vec<&String> = slot.values.iter().flatten().collect();
    let distinct: BTreeSet<&String> = values.iter().copied().collect();
    let Some((prefix, suffix)) = common_words(&values) else {
        return (slot.clone(), None);
    };
    // Two values that happen to share their first word are no evidence;
    // a label, three values or two words in front are.
    let labelled = prefix.trim_end().ends_with(':');
    if distinct.len() < 3 && !labelled && prefix.split_whitespace().count() < 2 {
        return (slot.clone(), None);
    }
    let pattern = format!(
        "^{}(.+?){}$",
        regex::escape(&prefix),
        regex::escape(&suffix)
    )
    .replace('/', "\\x2F");
    // The refinement follows the property, before any condition.
    let (path, conditions) = match slot.rule.find(" WHERE ") {
        Some(at) => slot.rule.split_at(at),
        None => (slot.rule.as_str(), ""),
    };
    let rule = format!("{path}, match/{pattern}/{conditions}");
    let Ok(parsed) = Rule::parse(&rule) else {
        return (slot.clone(), None);
    };
    let cut: Vec<Vec<String>> = pages.iter().map(|p| parsed.eval(p).flatten()).collect();
    if cut.iter().map(Vec::len).sum::<usize>() != values.len() {
        return (slot.clone(), None);
    }
    let cut_slot = Slot {
        rule,
        values: cut,
        ..slot.clone()
    };
    (cut_slot, Some(prefix.trim().to_string()))
}

/// The words every value starts with (up to a space) and the words of
/// two or more every value ends with (from a space); `None` when there
/// are no words in front.
fn common_words(values: &[&String]) -> Option<(String, String)> {
    let first = values.first()?;
    let mut prefix: &str = first;
    let mut suffix: &str = first;
    for v in values {
        while !v.starts_with(prefix) {
            prefix = &prefix[..prefix.char_indices().last()?.0];
        }
        while !v.ends_with(suffix) {
            let second = suffix
                .char_indices()
                .nth(1)
                .map_or(suffix.len(), |(i, _)| i);
            suffix = &suffix[second..];
        }
    }
    // Cut back to whole words: the prefix ends with a space.
    let prefix = match prefix.rfind(' ') {
        Some(i) => &prefix[..=i],
        None => "",
    };
    let suffix = match suffix.find(' ') {
        Some(i) => &suffix[i..],
        None => "",
    };
    let suffix = if suffix.split_whitespace().count() >= 2 {
        suffix
    } else {
        ""
    };
    let longest = values.iter().map(|v| v.len()).min().unwrap_or(0);
    if prefix.trim().is_empty() || prefix.len() + suffix.len() >= longest {
        return None;
    }
    Some((prefix.to_string(), suffix.to_string()))
}

/// The form field whose choices (values or labels) hold every value of the slot.
fn name_by_choices(form: &Form, slot: &Slot) -> Option<String> {
    let values: BTreeSet<&String> = slot.values.iter().flatten().collect();
    if values.is_empty() {
        return None;
    }
    form.elements.iter().find_map(|e| {
        let choices = match &e.kind {
            ElementKind::Select { options, .. } => options,
            ElementKind::Radio { choices } | ElementKind::Checkbox { choices } => choices,
            _ => return None,
        };
        let holds = values.iter().all(|v| {
            choices
                .iter()
                .any(|c| !means_any(c) && (c.label.trim() == v.as_str() || c.value == **v))
        });
        holds.then(|| e.name.clone())
    })
}

/// The name the page gives the slot's first value: the column header over
/// it, the definition-list term before it, or a label before it.
fn name_on_page(pages: &[Page], slot: &Slot) -> Option<String> {
    let (p, value) = slot
        .values
        .iter()
        .enumerate()
        .find_map(|(p, vs)| vs.first().map(|v| (p, v)))?;
    let page = &pages[p];
    let node = page
        .node_ids()
        .find(|&n| page.label_of(n) == PCDATA && page.text_of(n).contains(value.as_str()))?;
    let mut node = crate::locate::widest_with_same_text(page, node, &page.text_of(node));
    if page.label_of(node) == PCDATA {
        node = page.parent(node)?;
    }
    let cell = std::iter::once(node)
        .chain(page.ancestors(node))
        .find(|&n| matches!(page.label_name(n), "td" | "th" | "dd"))?;
    let parent = page.parent(cell)?;
    let siblings: Vec<_> = page
        .children(parent)
        .filter(|&c| page.label_of(c) != PCDATA)
        .collect();
    let at = siblings.iter().position(|&c| c == cell)?;
    // A two-column table of facts: the cell before the value names it.
    if page.label_name(cell) == "td" && siblings.len() == 2 && at == 1 {
        let label = page.text_of(siblings[0]);
        if !label.is_empty() && label.chars().count() <= 40 {
            return Some(label);
        }
    }
    if page.label_name(cell) == "dd" {
        return siblings[..at]
            .iter()
            .rev()
            .find(|&&c| page.label_name(c) == "dt")
            .map(|&c| page.text_of(c));
    }
    // The header row: the first row of the table whose cells are `th`.
    let table = page
        .ancestors(cell)
        .find(|&n| page.label_name(n) == "table")?;
    let header = page.node_ids().skip_while(|&n| n != table).find(|&n| {
        page.label_name(n) == "tr" && page.children(n).any(|c| page.label_name(c) == "th")
    })?;
    let cells: Vec<_> = page
        .children(header)
        .filter(|&c| matches!(page.label_name(c), "td" | "th"))
        .collect();
    cells
        .get(at)
        .map(|&c| page.text_of(c))
        .filter(|t| !t.is_empty())
}

/// A name from the words in front of a value: a label before a colon, or
/// the last capitalised word ("…im Landkreis").
fn name_of_words(words: &str) -> Option<String> {
    if let Some(label) = words.trim().strip_suffix(':') {
        return Some(label.trim().to_string());
    }
    let last = words.split_whitespace().last()?;
    last.chars()
        .next()
        .is_some_and(char::is_uppercase)
        .then(|| last.to_string())
}

/// A page's words as an attribute name: lower case, umlauts spelled out,
/// words joined by `_`.
fn attribute_name(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().to_lowercase().chars() {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            c if c.is_ascii_alphanumeric() => out.push(c),
            _ if !out.ends_with('_') && !out.is_empty() => out.push('_'),
            _ => {}
        }
    }
    out.trim_end_matches('_').to_string()
}

fn unique(name: String, used: &[String]) -> String {
    if !used.contains(&name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name}_{n}"))
        .find(|n| !used.contains(n))
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    #[test]
    fn template_words_in_front_are_cut_and_a_unit_at_the_end_stays() {
        let values = owned(&["Preis: 50-80 EUR", "Preis: bis 50 EUR", "Preis: 90 EUR"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Preis: ".to_string(), String::new()))
        );
        let values = owned(&[
            "Unterkünfte in der Region Rügen",
            "Unterkünfte in der Region Fischland-Darß-Zingst",
        ]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Unterkünfte in der Region ".to_string(), String::new()))
        );
        // Two words or more at the end are template too.
        let values = owned(&["12 films match here", "3 films match here"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(common_words(&refs), None, "nothing in front: no cut");
        let values = owned(&["Genre: Drama films listed", "Genre: Comedy films listed"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Genre: ".to_string(), " films listed".to_string()))
        );
        // Values sharing only part of a word share no template word.
        let values = owned(&["1987", "1995"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(common_words(&refs), None);
    }

    #[test]
    fn names_come_from_labels_and_capitalised_words_in_front() {
        assert_eq!(name_of_words("Verfasser:").as_deref(), Some("Verfasser"));
        assert_eq!(
            name_of_words("Unterkünfte in der Region").as_deref(),
            Some("Region")
        );
        assert_eq!(name_of_words("Films filed under"), None);
        assert_eq!(attribute_name("Preis pro Nacht"), "preis_pro_nacht");
        assert_eq!(attribute_name("Größe (m²):"), "groesse_m");
        assert_eq!(unique("ort".into(), &owned(&["ort", "ort_2"])), "ort_3");
    }

    fn sent(input: Option<usize>) -> Sent {
        Sent {
            input,
            values: Vec::new(),
            status: 200,
            body: Vec::new(),
            page: Page::parse("<html></html>"),
            answer: None,
        }
    }

    fn rows(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    fn select(name: &str, any: bool) -> Input {
        Input {
            name: name.into(),
            kind: "select",
            probes: vec!["x".into()],
            choices: Vec::new(),
            any,
            text: false,
        }
    }

    #[test]
    fn a_page_size_shows_more_of_the_same_and_a_filter_narrows() {
        let inputs = [select("per", false), select("decade", true)];
        let answers = [sent(None), sent(Some(0)), sent(Some(1))];
        let found = [rows(&["a", "b"]), rows(&["a", "b", "c", "d"]), rows(&["b"])];
        let verdicts = judge(&inputs, &answers, &found);
        assert!(!verdicts[0].informative, "{}", verdicts[0].why);
        assert!(verdicts[0].why.contains("more of the same rows"));
        assert!(verdicts[1].informative, "{}", verdicts[1].why);
    }

    #[test]
    fn selects_without_any_choice_are_queried_and_those_with_one_refine() {
        let mut region = select("region", false);
        region.choices = vec![Choice {
            value: "a".into(),
            label: "A".into(),
            selected: false,
        }];
        let mut price = select("preis", true);
        price.choices = ["", "1", "2"]
            .iter()
            .map(|v| Choice {
                value: v.to_string(),
                label: if v.is_empty() { "egal" } else { v }.to_string(),
                selected: v.is_empty(),
            })
            .collect();
        let inputs = [region, price];
        let answers = [sent(None), sent(Some(0)), sent(Some(1))];
        let found = [rows(&["a", "b"]), rows(&["c", "d"]), rows(&["a"])];
        let verdicts = judge(&inputs, &answers, &found);
        let chosen = choose(&inputs, &verdicts, &answers, &found).unwrap();
        assert_eq!(chosen.query, vec![0]);
        assert_eq!(chosen.refine, vec![1]);
        // Nothing brought a row: nothing is chosen.
        let empty = [rows(&[]), rows(&[]), rows(&[])];
        let verdicts = judge(&inputs, &answers, &empty);
        assert!(choose(&inputs, &verdicts, &answers, &empty).is_none());
    }

    fn page_forms(html: &str) -> Vec<Form> {
        let url = Url::parse("http://shop.example/").unwrap();
        forms(&Page::parse(html), &url, encoding_rs::UTF_8).unwrap()
    }

    #[test]
    fn the_search_form_is_picked_over_login_contact_and_newsletter_forms() {
        let html = r#"<html><body>
            <form action="/login" method="post"><input name="user"><input name="remember" type="text"><input type="password" name="pw"></form>
            <form action="/contact" method="post"><input name="name"><input name="subject"><textarea name="msg"></textarea></form>
            <form action="/news"><input name="your_email"><input name="first"></form>
            <form action="/catalogue"><input name="term"><button>Go</button></form>
            <form action="/find"><input type="search" name="q"></form>
            </body></html>"#;
        let all = page_forms(html);
        assert_eq!(all.len(), 5);
        // The one that calls itself a search (a search field) wins over
        // forms with more inputs that ask for a password, a message or an
        // e-mail address, and over a form that says nothing of a search.
        assert_eq!(surfaced_form(&all).map(|f| f.index), Some(4));
        assert_eq!(probed_inputs(&all[4]), vec![("q".to_string(), "text")]);
        // Without it, the plain form before the account and message forms.
        assert_eq!(surfaced_form(&all[..4]).map(|f| f.index), Some(3));
        // A login form alone is still the only form there is.
        assert_eq!(surfaced_form(&all[..1]).map(|f| f.index), Some(0));
    }

    #[test]
    fn a_line_repeating_the_query_words_around_a_count_is_the_answers_summary() {
        let inputs = [Input {
            name: "keywords".into(),
            kind: "text",
            probes: Vec::new(),
            choices: Vec::new(),
            any: false,
            text: true,
        }];
        let with = |value: &str| Sent {
            values: vec![("keywords".into(), value.into())],
            ..sent(Some(0))
        };
        let answers = [with("analyst"), with("energy")];
        let refs: Vec<&Sent> = answers.iter().collect();
        let slot = |rule: &str, values: [&str; 2]| Slot {
            name: None,
            rule: rule.into(),
            values: values.iter().map(|v| vec![v.to_string()]).collect(),
            precision: 1.0,
        };
        let summary = slot(
            "html->p[0].txt",
            ["41 openings for “analyst”", "34 openings for “Energy”"],
        );
        assert!(echoes_query(&summary, &refs, &inputs));
        // The value itself (a heading naming what was asked) is data.
        let heading = slot("html->h2[0].txt", ["analyst", "energy"]);
        assert!(!echoes_query(&heading, &refs, &inputs));
        // A row rule is never the summary.
        let rows = slot(
            "html->article[*].h3.txt",
            ["Lead Data Analyst", "Energy Analyst"],
        );
        assert!(!echoes_query(&rows, &refs, &inputs));
    }
}
