//! Form kinds and input roles on the Formasaurus corpus, beside the
//! figures of Formasaurus's own classifier (5-fold cross-validation).
//!
//! The kinds' weights are learned, so they are scored by five-fold
//! cross-validation only: the pages are split into five folds by their
//! site (the pages of one site in one fold), and each fold's forms are
//! judged by weights learned from the other four. Formasaurus folds its
//! rarest kinds (poll, display options, navigation, captcha) into "other";
//! the accuracy beside its figure does the same. The roles are rules:
//! they are scored on every annotated field, given the kind judged for
//! its form by the cross-validated weights.

use std::collections::BTreeMap;
use std::path::Path;

use gather::form::kind::{features, FormKind, Judged, Model};
use gather::form::role::{roles, unsent_roles, Role};
use gather::form::safe::refusal;

use super::{corpus, CorpusPage};
use crate::bench::prf;

/// Formasaurus's form type codes.
fn kind_of(code: &str) -> Option<FormKind> {
    Some(match code {
        "s" => FormKind::Search,
        "l" => FormKind::Login,
        "r" => FormKind::Registration,
        "p" => FormKind::PasswordRecovery,
        "c" => FormKind::Contact,
        "m" => FormKind::MailingList,
        "b" => FormKind::Order,
        "P" => FormKind::Poll,
        "V" => FormKind::DisplayOptions,
        "N" => FormKind::Navigation,
        "o" | "C" => FormKind::Other,
        _ => return None,
    })
}

/// The kinds Formasaurus's figures count as one ("other").
fn simplified(kind: FormKind) -> FormKind {
    match kind {
        FormKind::Poll | FormKind::DisplayOptions | FormKind::Navigation => FormKind::Other,
        k => k,
    }
}

/// The site of a page's file (`html/example.com-3.html`).
fn site(file: &str) -> &str {
    let name = file.rsplit('/').next().unwrap_or(file);
    name.rsplit_once('-').map_or(name, |(s, _)| s)
}

/// A fold of five, by site (FNV-1a).
fn fold(file: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in site(file).bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % 5) as usize
}

pub(crate) struct Example {
    pub page: usize,
    pub form: usize,
    pub kind: FormKind,
    features: Vec<String>,
    fold: usize,
}

/// Every annotated form of the corpus, with the kind judged for it by
/// weights learned without its fold.
pub(crate) fn cross_validated(pages: &[CorpusPage]) -> Result<Vec<(Example, Judged)>, String> {
    let mut examples = Vec::new();
    for (p, page) in pages.iter().enumerate() {
        for (i, form) in page.forms.iter().enumerate() {
            let Some(kind) = kind_of(&page.kinds[i]) else {
                continue;
            };
            examples.push(Example {
                page: p,
                form: i,
                kind,
                features: features(&page.page, form),
                fold: fold(&page.file),
            });
        }
    }
    let mut judged: Vec<Option<Judged>> = vec![None; examples.len()];
    for k in 0..5 {
        let training: Vec<(Vec<String>, FormKind)> = examples
            .iter()
            .filter(|e| e.fold != k)
            .map(|e| (e.features.clone(), e.kind))
            .collect();
        // Judged by the weights as gather ships them (written, read back).
        let model = Model::parse(&Model::train(&training).to_text())?;
        for (e, j) in examples.iter().zip(judged.iter_mut()) {
            if e.fold == k {
                *j = Some(model.judge(&e.features));
            }
        }
    }
    Ok(examples
        .into_iter()
        .zip(judged)
        .filter_map(|(e, j)| Some((e, j?)))
        .collect())
}

pub fn bench(dir: &Path, write_model: Option<&Path>) -> Result<(), String> {
    let (pages, _, _) = corpus(dir)?;
    let judged = cross_validated(&pages)?;
    let n = judged.len();
    let right = judged.iter().filter(|(e, j)| e.kind == j.kind).count();
    let right_simple = judged
        .iter()
        .filter(|(e, j)| simplified(e.kind) == simplified(j.kind))
        .count();
    let search_both = judged
        .iter()
        .filter(|(e, j)| e.kind == FormKind::Search && j.kind == FormKind::Search)
        .count();
    let search_got = judged
        .iter()
        .filter(|(_, j)| j.kind == FormKind::Search)
        .count();
    let search_want = judged
        .iter()
        .filter(|(e, _)| e.kind == FormKind::Search)
        .count();
    let (p, r, f1) = prf(search_both, search_got, search_want);
    println!();
    println!("Form kinds, {n} annotated forms, five-fold cross-validation by site:");
    println!();
    println!("| measure | gather | Formasaurus (anchor) |");
    println!("|---|---|---|");
    println!(
        "| form-kind accuracy (poll, display options, navigation as other) | {:.1} % | 87.8 % |",
        100.0 * right_simple as f64 / n.max(1) as f64
    );
    println!(
        "| form-kind accuracy, 11 kinds | {:.1} % | |",
        100.0 * right as f64 / n.max(1) as f64
    );
    println!("| search form precision | {p:.3} | |");
    println!("| search form recall | {r:.3} | |");
    println!("| search form F1 | {f1:.3} | |");
    println!();
    println!("| annotated kind | forms | judged right | judged search |");
    println!("|---|---|---|---|");
    let mut per: BTreeMap<FormKind, (usize, usize, usize)> = BTreeMap::new();
    for (e, j) in &judged {
        let c = per.entry(e.kind).or_default();
        c.0 += 1;
        c.1 += usize::from(e.kind == j.kind);
        c.2 += usize::from(j.kind == FormKind::Search);
    }
    for (kind, (forms, right, search)) in &per {
        println!("| {kind} | {forms} | {right} | {search} |");
    }
    let passed = |search: bool| {
        judged
            .iter()
            .filter(|(e, j)| {
                (e.kind == FormKind::Search) == search
                    && refusal(&pages[e.page].page, &pages[e.page].forms[e.form], j).is_none()
            })
            .count()
    };
    println!();
    println!(
        "Forms gather would submit unnamed (judged search and safe, gather::form::safe): {} of the {search_want} search forms, {} of the {} others",
        passed(true),
        passed(false),
        n - search_want
    );
    role_table(&pages, &judged);
    if let Some(path) = write_model {
        let all: Vec<(Vec<String>, FormKind)> = judged
            .iter()
            .map(|(e, _)| (e.features.clone(), e.kind))
            .collect();
        std::fs::write(path, Model::train(&all).to_text())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!();
        println!(
            "weights learned from all {n} forms written to {}",
            path.display()
        );
    }
    Ok(())
}

/// Per-role precision, recall and F1 over the annotated fields (by name,
/// per form), each form's roles read given the kind judged for it.
fn role_table(pages: &[CorpusPage], judged: &[(Example, Judged)]) {
    // (Formasaurus's codes, the roles that count as them, its F1.)
    let wanted: [(&str, &[&str], &[Role], &str); 4] = [
        ("search query", &["qq"], &[Role::SearchQuery], "0.93"),
        ("category / refinement", &["qc"], &[Role::Category], "0.93"),
        (
            "sorting option (with page size)",
            &["sp"],
            &[Role::Sort, Role::PageSize],
            "0.78",
        ),
        ("submit button", &["Bs"], &[Role::Submit], "0.96 (its docs)"),
    ];
    let mut counts = [(0usize, 0usize, 0usize); 4];
    for (e, j) in judged {
        let page = &pages[e.page];
        let form = &page.forms[e.form];
        let fields = &page.fields[e.form];
        // The unsent controls count too (disabled ones, script buttons):
        // the annotators name them.
        let mut got = roles(form, j.kind);
        got.extend(unsent_roles(form, j.kind));
        for (w, (_, codes, as_roles, _)) in wanted.iter().enumerate() {
            let mut mine: Vec<&str> = form
                .elements
                .iter()
                .chain(&form.unsent)
                .zip(&got)
                .filter(|(el, r)| {
                    as_roles.contains(r) && fields.get(&el.name).is_some_and(|t| t.as_str() != "XX")
                })
                .map(|(el, _)| el.name.as_str())
                .collect();
            mine.sort_unstable();
            mine.dedup();
            let theirs: Vec<&str> = fields
                .iter()
                .filter(|(_, t)| codes.contains(&t.as_str()))
                .map(|(n, _)| n.as_str())
                .collect();
            counts[w].0 += mine.iter().filter(|n| theirs.contains(n)).count();
            counts[w].1 += mine.len();
            counts[w].2 += theirs.len();
        }
    }
    println!();
    println!("Input roles, every annotated field, given the kind judged for its form:");
    println!();
    println!("| role | precision | recall | F1 | fields | Formasaurus F1 (anchor) |");
    println!("|---|---|---|---|---|---|");
    for ((what, _, _, anchor), (both, got, want)) in wanted.iter().zip(counts) {
        let (p, r, f1) = prf(both, got, want);
        println!("| {what} | {p:.3} | {r:.3} | {f1:.3} | {want} | {anchor} |");
    }
}
