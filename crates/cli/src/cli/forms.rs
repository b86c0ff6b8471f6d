//! `gather forms URL|FILE`: every form of a page with its kind and the
//! confidence of it, every input with its role and domain, and whether
//! gather would submit the form on its own — what an operator checks
//! before gathering a page that carries no metadata.

use std::path::Path;
use std::process::ExitCode;

use url::Url;

use gather::fetch::{FetchConfig, Fetcher};
use gather::form::kind::kinds;
use gather::form::role::{roles, unsent_roles};
use gather::form::safe::{describe, refusal};
use gather::form::{forms, ElementKind, Form};
use gather::page::Page;

#[derive(Debug, clap::Args)]
pub struct FormsArgs {
    /// An http(s) URL, or a local HTML file (`.gz` is read decompressed).
    #[arg(value_name = "URL|FILE")]
    pub source: String,
    /// One JSON object per form: index, name, id, method, action, kind,
    /// confidence, search (the probability of a search), submitted (whether
    /// gather submits it unnamed), why_not, and its inputs (name, type,
    /// role, label, domain).
    #[arg(long)]
    pub json: bool,
}

/// The page's text, its URL (after redirects) and its encoding.
fn read(source: &str) -> Result<(String, Url, &'static encoding_rs::Encoding), (u8, String)> {
    let remote = Url::parse(source)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    if let Some(url) = remote {
        let failed = |e: String| (super::FAILED, e);
        let runtime = tokio::runtime::Runtime::new().map_err(|e| failed(e.to_string()))?;
        let fetcher = Fetcher::new(FetchConfig::default())
            .map_err(|e| failed(format!("cannot set up HTTP: {e}")))?;
        let response = runtime
            .block_on(fetcher.get(&url))
            .map_err(|e| failed(e.to_string()))?;
        if response.status != 200 {
            return Err(failed(format!("{url}: HTTP status {}", response.status)));
        }
        let decoded = response.text();
        return Ok((decoded.text, response.url, decoded.encoding));
    }
    let path = Path::new(source);
    let bytes = gather::fetch::read_saved_page(path)
        .map_err(|e| (super::BAD_INPUT, format!("cannot read {source}: {e}")))?;
    let absolute = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let url = Url::from_file_path(&absolute)
        .unwrap_or_else(|()| Url::parse("file:///page.html").expect("a URL"));
    let decoded = gather::charset::decode(&bytes, None);
    Ok((decoded.text, url, decoded.encoding))
}

pub fn run_forms(args: &FormsArgs) -> ExitCode {
    let (text, url, encoding) = match read(&args.source) {
        Ok(r) => r,
        Err((code, e)) => {
            eprintln!("gather forms: {e}");
            return super::exit(code);
        }
    };
    let page = Page::parse(&text);
    let all = match forms(&page, &url, encoding) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("gather forms: {url}: {e}");
            return super::exit(super::BAD_INPUT);
        }
    };
    if all.is_empty() && !args.json {
        outln!("{url}: no form");
    }
    let judged = kinds(&page, &all);
    for (form, j) in all.iter().zip(&judged) {
        let form_roles = roles(form, j.kind);
        let off_roles = unsent_roles(form, j.kind);
        let why_not = refusal(&page, form, j).map(|r| r.to_string());
        if args.json {
            outln!(
                "{}",
                json(form, j, &form_roles, &off_roles, why_not.as_deref())
            );
            continue;
        }
        outln!(
            "{}: {} ({:.0} %; search {:.0} %)",
            describe(form),
            j.kind,
            100.0 * j.confidence,
            100.0 * j.search
        );
        match &why_not {
            None => outln!("  submitted by gather unnamed: yes"),
            Some(why) => outln!(
                "  submitted by gather unnamed: no, {why} (name it with --forms {} to use it)",
                form.index
            ),
        }
        let inputs = form
            .elements
            .iter()
            .zip(&form_roles)
            .map(|(e, r)| (e, r, false));
        let off = form
            .unsent
            .iter()
            .zip(&off_roles)
            .map(|(e, r)| (e, r, true));
        for (e, role, unsent) in inputs.chain(off) {
            let domain = match e.domain() {
                Some(d) => format!("[{}]", d.join(", ")),
                None => "undetermined".into(),
            };
            let domain = match (unsent, &e.kind) {
                (false, _) => domain,
                (true, ElementKind::Button { .. }) => {
                    format!("{domain} (a script acts on it; not sent)")
                }
                (true, _) => {
                    format!("{domain} (disabled: a script of the page enables it; not sent)")
                }
            };
            outln!(
                "  {:<20} {:<14} {:<20} {domain}",
                if e.name.is_empty() {
                    "(unnamed)"
                } else {
                    &e.name
                },
                e.kind_name(),
                role.name()
            );
        }
    }
    super::exit(super::OK)
}

fn json(
    form: &Form,
    j: &gather::form::kind::Judged,
    form_roles: &[gather::form::role::Role],
    off_roles: &[gather::form::role::Role],
    why_not: Option<&str>,
) -> serde_json::Value {
    let inputs = form
        .elements
        .iter()
        .zip(form_roles)
        .map(|(e, r)| (e, r, false));
    let off = form.unsent.iter().zip(off_roles).map(|(e, r)| (e, r, true));
    let inputs: Vec<serde_json::Value> = inputs
        .chain(off)
        .map(|(e, role, unsent)| {
            serde_json::json!({
                "name": e.name,
                "type": e.kind_name(),
                "role": role,
                "label": e.label,
                "domain": e.domain(),
                "disabled": unsent && !matches!(e.kind, ElementKind::Button { .. }),
                "sent": !unsent,
            })
        })
        .collect();
    serde_json::json!({
        "index": form.index,
        "name": form.name,
        "id": form.id,
        "method": form.method.to_string(),
        "action": form.action.as_str(),
        "kind": j.kind,
        "confidence": (j.confidence * 1000.0).round() / 1000.0,
        "search": (j.search * 1000.0).round() / 1000.0,
        "submitted": why_not.is_none(),
        "why_not": why_not,
        "inputs": inputs,
    })
}
