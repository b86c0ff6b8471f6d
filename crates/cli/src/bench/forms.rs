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
//!   a search form (and not the login or newsletter form beside it)?
//! - **The inputs it would probe** in each search form, against the fields
//!   annotated as a search query or a category / refinement: precision
//!   and recall over the annotated fields (those left "not annotated"
//!   are not counted), and the same for the query fields alone (text
//!   fields probed against "search query").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gather::form::forms;
use gather::page::Page;
use gather::surface::{probed_inputs, surfaced_form};

#[derive(Debug, clap::Args)]
pub struct FormsBenchArgs {
    /// The corpus's data directory (`formasaurus/data` of a clone of
    /// TeamHG-Memex/Formasaurus): `index.json` and the pages under `html/`.
    pub dir: PathBuf,
}

pub fn run(args: &FormsBenchArgs) -> ExitCode {
    match bench(&args.dir) {
        Ok(()) => crate::cli::exit(crate::cli::OK),
        Err(e) => {
            eprintln!("gather bench forms: {e}");
            crate::cli::exit(crate::cli::BAD_INPUT)
        }
    }
}

/// Counts of a set comparison.
#[derive(Default)]
struct Tally {
    both: usize,
    got: usize,
    want: usize,
}

impl Tally {
    fn add(&mut self, got: &BTreeSet<String>, want: &BTreeSet<String>) {
        self.both += got.intersection(want).count();
        self.got += got.len();
        self.want += want.len();
    }

    fn line(&self, what: &str) -> String {
        let p = self.both as f64 / self.got.max(1) as f64;
        let r = self.both as f64 / self.want.max(1) as f64;
        let f1 = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        format!(
            "| {what} | {p:.3} | {r:.3} | {f1:.3} | {} | {} |",
            self.got, self.want
        )
    }
}

fn bench(dir: &Path) -> Result<(), String> {
    let index_path = dir.join("index.json");
    let text = std::fs::read_to_string(&index_path).map_err(|e| {
        format!(
            "{}: {e} (pass the corpus's formasaurus/data directory)",
            index_path.display()
        )
    })?;
    let index: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", index_path.display()))?;
    let (mut pages, mut unreadable, mut mismatched) = (0usize, 0usize, 0usize);
    let (mut picked_search, mut picked_other, mut picked_none) = (0usize, 0usize, 0usize);
    let mut all_inputs = Tally::default();
    let mut query_inputs = Tally::default();
    let mut search_forms = 0usize;
    for (file, entry) in &index {
        let kinds: Vec<&str> = entry["forms"]
            .as_array()
            .map(|a| a.iter().filter_map(|k| k.as_str()).collect())
            .unwrap_or_default();
        if !kinds.contains(&"s") {
            continue;
        }
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
        pages += 1;
        match surfaced_form(&found) {
            Some(f) if kinds[f.index] == "s" => picked_search += 1,
            Some(_) => picked_other += 1,
            None => picked_none += 1,
        }
        let fields = entry["visible_html_fields"].as_array();
        for (i, form) in found.iter().enumerate() {
            if kinds[i] != "s" {
                continue;
            }
            let Some(roles) = fields.and_then(|f| f.get(i)).and_then(|r| r.as_object()) else {
                continue;
            };
            search_forms += 1;
            let annotated: BTreeSet<&str> = roles
                .iter()
                .filter(|(_, t)| t.as_str() != Some("XX"))
                .map(|(n, _)| n.as_str())
                .collect();
            let role_of = |wanted: &[&str]| -> BTreeSet<String> {
                roles
                    .iter()
                    .filter(|(_, t)| t.as_str().is_some_and(|t| wanted.contains(&t)))
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
    println!("| none (no input to probe) | {picked_none} |");
    println!(
        "| share right | {:.3} |",
        picked_search as f64 / pages.max(1) as f64
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
