//! `gather bench forms DIR`: how surfacing reads real search forms, on
//! the Formasaurus corpus (TeamHG-Memex/Formasaurus, MIT): ~1,000 forms
//! of pages from the Alexa top sites, each form annotated with its type
//! (search, login, registration, …) and each visible field with its role
//! ("search query", "search category / refinement", "sorting option",
//! "submit button", "username", …), by people other than us. Its pages are
//! third-party pages, so they are not part of gather: clone the corpus
//! and pass its `formasaurus/data` directory (`index.json`, `html/`).
//!
//! Measured, without any request (the pages are files):
//! - **The form surfacing picks** on a page that has a search form: is it
//!   a search form (and not the login or newsletter form beside it)? And
//!   on the pages without one, how many would see a form probed at all
//!   (only forms judged search forms and safe to submit are,
//!   `gather::form::safe`).
//! - **The inputs it would probe** in each search form, against the fields
//!   annotated as a search query or a category / refinement: precision
//!   and recall over the annotated fields (those left "not annotated"
//!   are not counted), and the same for the query fields alone (text
//!   fields probed against "search query").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gather::form::safe::submittable;
use gather::form::{forms, Form};
use gather::page::Page;
use gather::surface::{probed_inputs, surfaced_form};

mod kinds;
mod served;

#[derive(Debug, clap::Args)]
pub struct FormsBenchArgs {
    /// The corpus's data directory (`formasaurus/data` of a clone of
    /// TeamHG-Memex/Formasaurus): `index.json` and the pages under `html/`.
    pub dir: PathBuf,
    /// Also learn the form kinds' weights from the whole corpus and write
    /// them to this file (gather ships them as `src/form/kind_model.txt`).
    #[arg(long, value_name = "FILE")]
    pub write_model: Option<PathBuf>,
    /// Also serve every page on 127.0.0.1 (its absolute URLs rewritten to
    /// it) and run `gather URL` on each: which forms are submitted, by
    /// their annotated kind.
    #[arg(long)]
    pub served: bool,
}

pub fn run(args: &FormsBenchArgs) -> ExitCode {
    let served = |()| {
        if args.served {
            served::bench(&args.dir)
        } else {
            Ok(())
        }
    };
    match bench(&args.dir)
        .and_then(|()| kinds::bench(&args.dir, args.write_model.as_deref()))
        .and_then(served)
    {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench forms: {e}");
            crate::cli::exit(crate::cli::BAD_INPUT)
        }
    }
}

/// Counts of a set comparison.
#[derive(Default)]
pub(crate) struct Tally {
    pub both: usize,
    pub got: usize,
    pub want: usize,
}

impl Tally {
    pub fn add(&mut self, got: &BTreeSet<String>, want: &BTreeSet<String>) {
        self.both += got.intersection(want).count();
        self.got += got.len();
        self.want += want.len();
    }

    pub fn line(&self, what: &str) -> String {
        let (p, r, f1) = super::prf(self.both, self.got, self.want);
        format!(
            "| {what} | {p:.3} | {r:.3} | {f1:.3} | {} | {} |",
            self.got, self.want
        )
    }
}

/// One page of the corpus, read as gather reads it.
pub(crate) struct CorpusPage {
    /// The page's file under the data directory (`html/…`).
    pub file: String,
    pub page: Page,
    pub forms: Vec<Form>,
    /// The annotated kind of each form (Formasaurus's one-letter codes).
    pub kinds: Vec<String>,
    /// The annotated role of each visible field, by name, per form.
    pub fields: Vec<BTreeMap<String, String>>,
}

/// The pages of the corpus whose forms gather reads as many as annotated;
/// and how many were left out (another number of forms, unreadable).
pub(crate) fn corpus(dir: &Path) -> Result<(Vec<CorpusPage>, usize, usize), String> {
    let index_path = dir.join("index.json");
    let text = std::fs::read_to_string(&index_path).map_err(|e| {
        format!(
            "{}: {e} (pass the corpus's formasaurus/data directory)",
            index_path.display()
        )
    })?;
    let index: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", index_path.display()))?;
    let (mut out, mut unreadable, mut mismatched) = (Vec::new(), 0usize, 0usize);
    for (file, entry) in &index {
        let kinds: Vec<String> = entry["forms"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|k| k.as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let Ok(bytes) = std::fs::read(dir.join(file)) else {
            unreadable += 1;
            continue;
        };
        let url = entry["url"]
            .as_str()
            .and_then(|u| url::Url::parse(u).ok())
            .unwrap_or_else(|| url::Url::parse("http://example.invalid/").expect("a URL"));
        let decoded = gather::charset::decode(&bytes, None);
        let page = Page::parse(&decoded.text);
        let Ok(found) = forms(&page, &url, decoded.encoding) else {
            unreadable += 1;
            continue;
        };
        // The annotations list the page's forms in document order.
        if found.len() != kinds.len() {
            mismatched += 1;
            continue;
        }
        let fields = (0..kinds.len())
            .map(|i| {
                entry["visible_html_fields"]
                    .get(i)
                    .and_then(|r| r.as_object())
                    .map(|r| {
                        r.iter()
                            .filter_map(|(n, t)| Some((n.clone(), t.as_str()?.to_string())))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .collect();
        out.push(CorpusPage {
            file: file.clone(),
            page,
            forms: found,
            kinds,
            fields,
        });
    }
    Ok((out, mismatched, unreadable))
}

fn bench(dir: &Path) -> Result<(), String> {
    let (corpus, mismatched, unreadable) = corpus(dir)?;
    let mut pages = 0usize;
    let (mut picked_search, mut picked_other, mut picked_none) = (0usize, 0usize, 0usize);
    // On the pages without a search form: the forms surfacing would probe.
    let (mut other_pages, mut other_picked) = (0usize, 0usize);
    let mut all_inputs = Tally::default();
    let mut query_inputs = Tally::default();
    let mut search_forms = 0usize;
    for CorpusPage {
        page,
        forms: found,
        kinds,
        fields,
        ..
    } in &corpus
    {
        // The form `gather URL` would probe: one judged a search form and
        // safe to submit ([`gather::form::safe`]), the best of them.
        let allowed: Vec<Form> = submittable(page, found, &[])
            .map(|a| a.into_iter().cloned().collect())
            .unwrap_or_default();
        let picked = surfaced_form(&allowed);
        if !kinds.iter().any(|k| k == "s") {
            other_pages += 1;
            other_picked += usize::from(picked.is_some());
            continue;
        }
        pages += 1;
        match picked {
            Some(f) if kinds[f.index] == "s" => picked_search += 1,
            Some(_) => picked_other += 1,
            None => picked_none += 1,
        }
        for (i, form) in found.iter().enumerate() {
            if kinds[i] != "s" {
                continue;
            }
            let roles = &fields[i];
            search_forms += 1;
            let annotated: BTreeSet<&str> = roles
                .iter()
                .filter(|(_, t)| t.as_str() != "XX")
                .map(|(n, _)| n.as_str())
                .collect();
            let role_of = |wanted: &[&str]| -> BTreeSet<String> {
                roles
                    .iter()
                    .filter(|(_, t)| wanted.contains(&t.as_str()))
                    .map(|(n, _)| n.clone())
                    .collect()
            };
            let probed = probed_inputs(form);
            let got: BTreeSet<String> = probed
                .iter()
                .filter(|(n, _)| annotated.contains(n.as_str()))
                .map(|(n, _)| n.clone())
                .collect();
            all_inputs.add(&got, &role_of(&["qq", "qc"]));
            let texts: BTreeSet<String> = probed
                .iter()
                .filter(|(n, k)| k.starts_with("text") && annotated.contains(n.as_str()))
                .map(|(n, _)| n.clone())
                .collect();
            query_inputs.add(&texts, &role_of(&["qq"]));
        }
    }
    println!(
        "Formasaurus pages with a search form: {pages} read ({mismatched} left out: gather reads another number of forms than annotated; {unreadable} unreadable)"
    );
    println!();
    println!("| the form surfacing picks | pages |");
    println!("|---|---|");
    println!("| a search form | {picked_search} |");
    println!("| another form (login, newsletter, …) | {picked_other} |");
    println!("| none (no search form judged safe, or no input to probe) | {picked_none} |");
    println!(
        "| share right | {:.3} |",
        picked_search as f64 / pages.max(1) as f64
    );
    println!(
        "\nOn the {other_pages} pages without a search form, a form would be probed on {other_picked}."
    );
    println!();
    println!("Inputs probed in the {search_forms} search forms, against the annotated fields:");
    println!();
    println!("| inputs | precision | recall | F1 | probed | annotated |");
    println!("|---|---|---|---|---|---|");
    println!(
        "{}",
        all_inputs.line("all probed, against search query + category/refinement")
    );
    println!(
        "{}",
        query_inputs.line("text fields probed, against search query")
    );
    Ok(())
}
