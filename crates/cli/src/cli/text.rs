//! `gather text URL|FILE`: the main text of one page, found from the page
//! alone (see `gather::boilerplate::article`).

use std::path::Path;
use std::process::ExitCode;

use url::Url;

use gather::boilerplate::article;
use gather::fetch::{read_saved_page, FetchConfig, Fetcher};
use gather::page::Page;

#[derive(Debug, clap::Args)]
pub struct TextArgs {
    /// An http(s) URL, or a local HTML file (`.gz` is read decompressed).
    #[arg(value_name = "URL|FILE")]
    pub source: String,
    /// Print a JSON object (`url`, `title`, `text`) instead of the text.
    #[arg(long)]
    pub json: bool,
}

fn fetch(url: &Url) -> Result<(Vec<u8>, Option<String>), String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let fetcher =
        Fetcher::new(FetchConfig::default()).map_err(|e| format!("cannot set up HTTP: {e}"))?;
    let response = runtime
        .block_on(fetcher.get(url))
        .map_err(|e| e.to_string())?;
    if response.status != 200 {
        return Err(format!("{url}: HTTP status {}", response.status));
    }
    Ok((response.body, response.content_type))
}

/// A page read: its bytes, its content type, its URL if it has one.
pub(crate) type Source = (Vec<u8>, Option<String>, Option<Url>);

/// A page named by an http(s) URL or a file; else the exit code of the
/// command (`command`, for the message).
pub(crate) fn read_source(command: &str, source: &str) -> Result<Source, ExitCode> {
    let url = Url::parse(source)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    let read = match &url {
        Some(url) => fetch(url),
        None => read_saved_page(Path::new(source))
            .map(|b| (b, None))
            .map_err(|e| format!("cannot read {source}: {e}")),
    };
    match read {
        Ok((bytes, content_type)) => Ok((bytes, content_type, url)),
        Err(e) => {
            eprintln!("gather {command}: {e}");
            Err(super::exit(if url.is_some() {
                super::FAILED
            } else {
                super::BAD_INPUT
            }))
        }
    }
}

pub fn run_text(args: &TextArgs) -> ExitCode {
    let (bytes, content_type) = match read_source("text", &args.source) {
        Ok((bytes, content_type, _)) => (bytes, content_type),
        Err(code) => return code,
    };
    let page = Page::from_bytes(&bytes, content_type.as_deref());
    let text = article::main_text(&page);
    if args.json {
        let out = serde_json::json!({
            "url": args.source,
            "title": page.title(),
            "text": text,
        });
        outln!("{out}");
    } else {
        outln!("{text}");
    }
    super::exit(super::OK)
}
