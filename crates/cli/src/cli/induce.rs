//! `gather induce`, `gather spec --induce`.

use std::io::Write;
use std::process::ExitCode;

use gather::fetch::{FetchConfig, Fetcher};
use gather::induce::{self, Algorithm, Slot};
use gather::page::Page;

#[derive(Debug, clap::Args)]
pub struct InduceArgs {
    /// Two or more result pages of one site (local files).
    #[arg(required = true, num_args = 2.., value_name = "PAGE")]
    pub pages: Vec<String>,
    /// Name the slot that holds TEXT (repeat a NAME to give its text on
    /// several pages); only named slots are printed.
    #[arg(long = "name", value_name = "NAME=TEXT")]
    pub names: Vec<String>,
    /// A further page of the same site, not induced on and without named
    /// texts: the rules for the named slots are chosen by what they read
    /// there too (repeat for several pages).
    #[arg(long = "unlabelled", value_name = "PAGE")]
    pub unlabelled: Vec<String>,
    /// Map the pages with the restricted top-down tree edit distance
    /// instead of its faster approximation.
    #[arg(long)]
    pub exact: bool,
}

/// Reads the pages given on the command line.
pub fn read_pages(names: &[String]) -> Result<Vec<Page>, String> {
    names
        .iter()
        .map(|name| {
            std::fs::read(name)
                .map(|bytes| Page::from_bytes(&bytes, None))
                .map_err(|e| format!("cannot read {name}: {e}"))
        })
        .collect()
}

/// `--name NAME=TEXT` arguments grouped by name, in the order given.
pub fn parse_names(args: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for arg in args {
        let Some((name, text)) = arg.split_once('=') else {
            return Err(format!("--name {arg:?}: write NAME=TEXT"));
        };
        let name = name.trim();
        if name.is_empty() || text.trim().is_empty() {
            return Err(format!("--name {arg:?}: both NAME and TEXT must be given"));
        }
        match out.iter_mut().find(|(n, _)| n == name) {
            Some((_, texts)) => texts.push(text.to_string()),
            None => out.push((name.to_string(), vec![text.to_string()])),
        }
    }
    Ok(out)
}

pub fn run_induce(args: &InduceArgs) -> ExitCode {
    let names = match parse_names(&args.names) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("gather induce: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let pages = match read_pages(&args.pages) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("gather induce: {e}");
            return super::exit(super::FAILED);
        }
    };
    // Large pages are aligned on a sample of their rows (the named texts'
    // rows among them), the rules then read on the whole pages.
    let texts: Vec<String> = names.iter().flat_map(|(_, t)| t.iter().cloned()).collect();
    let sampling = induce::Sampling::new(pages, &texts);
    let pages = &sampling.pages;
    let unlabelled = match read_pages(&args.unlabelled) {
        Ok(p) => induce::Sampling::new(p, &[]).into_pages(),
        Err(e) => {
            eprintln!("gather induce: {e}");
            return super::exit(super::FAILED);
        }
    };
    let algorithm = if args.exact {
        Algorithm::Restricted
    } else {
        Algorithm::Approximate
    };
    let mut induction = match induce::induce(pages, algorithm) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("gather induce: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let mut slots: Vec<Slot> = if names.is_empty() {
        induction
            .slots
            .iter()
            .enumerate()
            .map(|(n, s)| Slot {
                name: Some(format!("slot_{}", n + 1)),
                ..s.clone()
            })
            .collect()
    } else {
        let mut named = Vec::new();
        for (name, texts) in &names {
            match induction.name_generalising(pages, &unlabelled, name, texts) {
                Ok(slot) => named.push(slot),
                Err(e) => {
                    eprintln!("gather induce: --name {name}: {e}");
                    return super::exit(super::FAILED);
                }
            }
        }
        named
    };
    if slots.is_empty() {
        eprintln!(
            "gather induce: the pages differ nowhere a rule could read on two of them ({} texts differ)",
            induction.data_count()
        );
        return super::exit(super::FAILED);
    }
    let mut text = String::new();
    if sampling.sampled() {
        let differ = sampling.check(&mut slots);
        text = sampling_note(&sampling, &slots, &differ, &args.pages);
        eprintln!(
            "gather induce: large pages: the template was aligned on a sample of their rows, the rules read on the whole pages (see the comments)"
        );
    }
    text.push_str(&results_yaml(&slots, &args.pages));
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => super::exit(super::OK),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => super::exit(super::OK),
        Err(e) => {
            eprintln!("gather induce: cannot write: {e}");
            super::exit(super::FAILED)
        }
    }
}

/// The slots as the `results:` items of a spec, each with its values on the
/// pages as comments.
fn results_yaml(slots: &[Slot], pages: &[String]) -> String {
    let items: Vec<gather::spec::ResultItem> = slots
        .iter()
        .map(|s| gather::spec::ResultItem {
            attribute: s.name.clone(),
            rule: Some(s.rule.clone()),
            ..Default::default()
        })
        .collect();
    let mut out = String::from("results:\n");
    for (slot, item) in slots.iter().zip(items) {
        let yaml = serde_norway::to_string(&vec![item]).unwrap_or_default();
        out.push_str(&indent(&yaml));
        for (page, values) in pages.iter().zip(&slot.values) {
            let shown: Vec<&String> = values.iter().take(5).collect();
            let more = if values.len() > 5 {
                format!(" … ({} values)", values.len())
            } else {
                String::new()
            };
            let shown = serde_json::to_string(&shown).unwrap_or_default();
            out.push_str(&format!("  #   {page}: {shown}{more}\n"));
        }
    }
    out
}

/// What sampling did, as comments above the rules: the lists cut short on
/// each page, and the rules that read on a whole page fewer values than on
/// its sample, or other ones.
fn sampling_note(
    sampling: &induce::Sampling,
    slots: &[Slot],
    differ: &[Vec<usize>],
    pages: &[String],
) -> String {
    let mut out = String::from(
        "# Sampled: large pages, so the template was aligned on a sample of their rows\n\
         # (the first ones of each long list, and those holding a --name text);\n\
         # the rules below were then read on the whole pages.\n",
    );
    for (page, cuts) in pages.iter().zip(&sampling.cuts) {
        for cut in cuts {
            out.push_str(&format!(
                "#   {page}: {} of {} children of {} aligned\n",
                cut.kept, cut.rows, cut.list
            ));
        }
    }
    for (slot, differ) in slots.iter().zip(differ) {
        if !differ.is_empty() {
            let on: Vec<&str> = differ.iter().map(|&p| pages[p].as_str()).collect();
            out.push_str(&format!(
                "# Check {}: on the whole page it reads fewer or other values than on the sample ({})\n",
                slot.name.as_deref().unwrap_or("this rule"),
                on.join(", ")
            ));
        }
    }
    out
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// `gather spec --induce URL`.
pub fn run_spec_induce(
    url: &str,
    login: &super::CredentialArgs,
    queries: usize,
    forms: &[String],
) -> ExitCode {
    let given = super::gather::start_url(url)
        .and_then(|url| Ok((url, login.credentials()?, login.network.network()?)));
    let (url, credentials, network) = match given {
        Ok(given) => given,
        Err(e) => {
            eprintln!("gather spec: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let fetcher = match Fetcher::new(FetchConfig {
        credentials,
        network,
        ..FetchConfig::default()
    }) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("gather spec: {e}");
            return super::exit(super::FAILED);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gather spec: cannot start the runtime: {e}");
            return super::exit(super::FAILED);
        }
    };
    match rt.block_on(gather::surface::induce_spec(&url, &fetcher, queries, forms)) {
        Ok(induced) => {
            print!("{}", induced.to_yaml());
            for (name, _) in &induced.unnamed {
                eprintln!("gather spec: could not name {name}: name it in the spec");
            }
            super::exit(super::OK)
        }
        Err(e @ gather::surface::SurfaceError::Fetch(_)) => {
            eprintln!("gather spec: {e}");
            super::exit(super::FAILED)
        }
        Err(e) => {
            eprintln!("gather spec: {e}");
            super::exit(super::BAD_INPUT)
        }
    }
}
