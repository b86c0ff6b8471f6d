//! `gather links URL`: a page's links in groups, classified as menus,
//! pagination and content links (navigation detection, seed 004).

use std::collections::HashMap;
use std::process::ExitCode;

use futures::StreamExt;
use url::Url;

use gather::fetch::{FetchConfig, Fetcher};
use gather::links::{document_key, LinkKind, PageLinks};
use gather::page::Page;

#[derive(Debug, clap::Args)]
pub struct LinksArgs {
    /// The page whose links to classify.
    #[arg(value_name = "URL")]
    pub url: String,
    /// Pages of its host read at most to check its link groups (the
    /// documents the groups link to).
    #[arg(long, value_name = "N", default_value_t = 40)]
    pub max_pages: usize,
    /// One JSON object per link: url, href, text, kind, group.
    #[arg(long)]
    pub json: bool,
}

/// The links of the HTML pages among `urls`, read with `fetcher`, by
/// document; pages that cannot be read are left out.
pub async fn read_links(fetcher: &Fetcher, urls: Vec<Url>) -> HashMap<String, PageLinks> {
    futures::stream::iter(urls)
        .map(|url| async move {
            let response = fetcher.get(&url).await.ok()?;
            let html = response
                .content_type
                .as_deref()
                .is_none_or(|t| t.to_ascii_lowercase().contains("html"));
            if response.status != 200 || !html {
                return None;
            }
            let page = Page::from_bytes(&response.body, response.content_type.as_deref());
            Some((document_key(&url), PageLinks::of(&page, &response.url)))
        })
        .buffer_unordered(4)
        .filter_map(|x| async move { x })
        .collect()
        .await
}

pub fn run_links(args: &LinksArgs) -> ExitCode {
    let url = match Url::parse(&args.url) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => u,
        _ => {
            eprintln!("gather links: {:?} is not an http(s) URL", args.url);
            return super::exit(super::BAD_INPUT);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gather links: {e}");
            return super::exit(super::FAILED);
        }
    };
    let fetcher = match Fetcher::new(FetchConfig::default()) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("gather links: cannot set up HTTP: {e}");
            return super::exit(super::FAILED);
        }
    };
    let links = runtime.block_on(async {
        let mut pages = read_links(&fetcher, vec![url.clone()]).await;
        let mut page = pages.remove(&document_key(&url))?;
        let mut neighbours: Vec<Url> = Vec::new();
        for g in 0..page.groups.len() {
            if page.groups[g].kind == LinkKind::Content {
                for doc in page.neighbour_documents(g) {
                    if !neighbours.contains(&doc) && neighbours.len() < args.max_pages {
                        neighbours.push(doc);
                    }
                }
            }
        }
        let known = read_links(&fetcher, neighbours).await;
        page.classify(&|key| known.get(key));
        Some(page)
    });
    let Some(links) = links else {
        eprintln!("gather links: {url} could not be read as an HTML page");
        return super::exit(super::FAILED);
    };
    print_links(&links, args.json);
    super::exit(super::OK)
}

fn print_links(links: &PageLinks, json: bool) {
    let group_of: HashMap<usize, usize> = links
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, group)| group.links.iter().map(move |l| (l.index, g)))
        .collect();
    if json {
        for (link, kind) in links.classified() {
            let line = serde_json::json!({
                "url": link.target.as_ref().map(Url::as_str),
                "href": link.href,
                "text": link.text,
                "kind": kind.name(),
                "group": group_of.get(&link.index),
            });
            outln!("{line}");
        }
        return;
    }
    let mut counts: HashMap<LinkKind, usize> = HashMap::new();
    for (_, kind) in links.classified() {
        *counts.entry(kind).or_default() += 1;
    }
    outln!(
        "{}: {} links in {} groups: {} menu, {} pagination, {} content",
        links.url,
        links.ungrouped.len() + links.groups.iter().map(|g| g.links.len()).sum::<usize>(),
        links.groups.len(),
        counts.get(&LinkKind::Menu).unwrap_or(&0),
        counts.get(&LinkKind::Pagination).unwrap_or(&0),
        counts.get(&LinkKind::Content).unwrap_or(&0)
    );
    for (g, group) in links.groups.iter().enumerate() {
        outln!(
            "group {} ({}, {} links):",
            g + 1,
            group.kind,
            group.links.len()
        );
        for l in &group.links {
            outln!("  {:?} -> {}", l.text, target(l));
        }
    }
    if !links.ungrouped.is_empty() {
        outln!("in no group:");
        for (l, kind) in &links.ungrouped {
            outln!("  {kind}: {:?} -> {}", l.text, target(l));
        }
    }
}

fn target(link: &gather::links::PageLink) -> String {
    link.target
        .as_ref()
        .map_or_else(|| link.href.clone(), |t| t.to_string())
}
