//! `gather hel`, `gather locate`.

use std::io::{Read, Write};
use std::process::ExitCode;

use gather::hel::Rule;
use gather::page::Page;

#[derive(Debug, clap::Args)]
pub struct HelArgs {
    /// The rule.
    pub rule: String,
    /// Pages (local files; `-` for standard input). With several pages, each
    /// output line starts with the page's name and `: `.
    #[arg(required = true)]
    pub pages: Vec<String>,
    /// A DB.Result prefix applied to a relative rule and its conditions.
    #[arg(long)]
    pub prefix: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct LocateArgs {
    /// The page (a local file; `-` for standard input).
    pub page: String,
    /// The text to find on it.
    pub text: String,
    /// Show at most this many places.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max: usize,
}

/// Reads a page given on the command line (`-` is standard input).
fn read_page(name: &str) -> std::io::Result<Vec<u8>> {
    if name == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf)?;
        Ok(buf)
    } else {
        std::fs::read(name)
    }
}

/// Evaluates a rule on pages and prints each value as one line of JSON.
/// Exit 2 when the rule is rejected, 1 when a page cannot be read.
pub fn run_hel(args: &HelArgs) -> ExitCode {
    let rule = match Rule::parse_with_prefix(&args.rule, args.prefix.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gather hel: bad rule: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    let mut status = super::OK;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for name in &args.pages {
        let bytes = match read_page(name) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("gather hel: cannot read {name}: {e}");
                status = super::FAILED;
                continue;
            }
        };
        let evaluation = rule.evaluate(&Page::from_bytes(&bytes, None));
        if let Some(limit) = evaluation.limit {
            eprintln!("gather hel: {name}: {limit}");
            status = super::FAILED;
        }
        let value = serde_json::to_string(&evaluation.value).unwrap_or_else(|_| "null".into());
        // With several pages each line says which page it is about, as grep does.
        let line = if args.pages.len() > 1 {
            format!("{name}: {value}")
        } else {
            value
        };
        if writeln!(out, "{line}").is_err() {
            return super::exit(super::FAILED);
        }
    }
    super::exit(status)
}

/// The extraction wizard: for each place the text occurs, its canonical dot
/// path and more robust alternatives, each checked on the page.
pub fn run_locate(args: &LocateArgs) -> ExitCode {
    let bytes = match read_page(&args.page) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("gather locate: cannot read {}: {e}", args.page);
            return super::exit(super::FAILED);
        }
    };
    if args.text.trim().is_empty() {
        eprintln!("gather locate: the text to find is empty");
        return super::exit(super::BAD_INPUT);
    }
    let page = Page::from_bytes(&bytes, None);
    let found = gather::locate::locate(&page, &args.text);
    if found.is_empty() {
        eprintln!(
            "gather locate: {:?} does not occur on {}",
            args.text, args.page
        );
        return super::exit(super::FAILED);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut print = || -> std::io::Result<()> {
        for loc in found.iter().take(args.max) {
            writeln!(out, "{}", loc.path)?;
            let value = serde_json::to_string(&loc.value).unwrap_or_default();
            writeln!(out, "    = {value}")?;
            for alt in &loc.alternatives {
                writeln!(out, "  robust: {alt}")?;
            }
            writeln!(out)?;
        }
        if found.len() > args.max {
            writeln!(
                out,
                "… and {} more places (--max raises the limit)",
                found.len() - args.max
            )?;
        }
        out.flush()
    };
    match print() {
        Ok(()) => super::exit(super::OK),
        // The reader went away (`gather locate … | head`): nothing to say.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => super::exit(super::OK),
        Err(e) => {
            eprintln!("gather locate: cannot write: {e}");
            super::exit(super::FAILED)
        }
    }
}
