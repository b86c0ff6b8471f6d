//! `gather bench boilerplate`: the boilerplate methods side by side on the
//! result pages of a crawl of the demo site.

use std::process::ExitCode;
use std::time::Instant;

use gather::boilerplate::{Blocks, MainContent, Method, SitePages};
use gather::demo::{DemoConfig, DemoSite};
use gather::gatherer::{self, Options, Start};
use gather::hel::Rule;
use gather::page::Page;
use gather::store::{SourceKind, Store};
use url::Url;

#[derive(Debug, clap::Args)]
pub struct BoilerplateBenchArgs {
    /// Hotels in the demo database.
    #[arg(long, default_value_t = 600)]
    pub hotels: usize,
    /// Runs per method; the median time is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Print up to N values per method that its main content lost, with their page.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub show_lost: usize,
}

/// The result pages of one database source of the crawl, parsed once, and
/// the source's rules.
pub struct CrawledSource {
    pub pages: Vec<(Url, Page)>,
    pub rules: Vec<(String, Rule)>,
}

/// Gathers the demo site (`hotels` hotels) from its start page, keeping the
/// result pages, and returns them per database source.
pub fn crawl_demo(hotels: usize) -> Result<Vec<CrawledSource>, String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let db = dir.path().join("bench.sqlite");
    runtime.block_on(async {
        let config = DemoConfig {
            hotels,
            ..DemoConfig::default()
        };
        let site = DemoSite::start(config.clone())
            .await
            .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
        let mut options = Options {
            db: db.clone(),
            progress: None,
            ..Options::default()
        };
        let port = site.base_url().port().unwrap_or(80);
        options
            .fetch
            .credentials
            .add(&format!("127.0.0.1:{port}"), &config.user, &config.password);
        let gathered = gatherer::gather(&[Start::Url(site.base_url())], &options).await;
        site.shutdown().await;
        gathered.map_err(|e| e.to_string()).map(|_| ())
    })?;
    let store = Store::open_existing(&db).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for source in store.sources().map_err(|e| e.to_string())? {
        if source.info.kind != SourceKind::Database {
            continue;
        }
        let rules = match store.rules(source.id).map_err(|e| e.to_string())? {
            Some(json) => gatherer::rules_from_json(&json)?,
            None => continue,
        };
        let pages: Vec<(Url, Page)> = store
            .kept_pages(source.id)
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter_map(|kept| {
                let url = Url::parse(&kept.url).ok()?;
                Some((
                    url,
                    Page::from_bytes(&kept.body, kept.content_type.as_deref()),
                ))
            })
            .collect();
        if pages.len() > 1 {
            out.push(CrawledSource { pages, rules });
        }
    }
    Ok(out)
}

fn page_url<'a>(source: &'a CrawledSource, page: &Page) -> &'a str {
    source
        .pages
        .iter()
        .find(|(_, p)| std::ptr::eq(p, page))
        .map_or("", |(u, _)| u.as_str())
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Median seconds of `runs` calls of `f`.
pub fn timed(runs: usize, mut f: impl FnMut()) -> f64 {
    median(
        (0..runs.max(1))
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

/// The text values the rules find on a page (values that are not in the
/// page's text, such as attribute values, are left out).
fn text_values(rules: &[(String, Rule)], page: &Page, text: &str) -> Vec<String> {
    rules
        .iter()
        .flat_map(|(_, rule)| rule.eval(page).flatten())
        .map(|v| v.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|v| !v.is_empty() && text.contains(v.as_str()))
        .collect()
}

pub fn run(args: &BoilerplateBenchArgs) -> ExitCode {
    let sources = match crawl_demo(args.hotels) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("gather bench boilerplate: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let pages: usize = sources.iter().map(|s| s.pages.len()).sum();
    println!(
        "demo site, {} hotels: {} result pages of {} database sources (each source's pages are one crawl; comparison pages: the same net path)",
        args.hotels,
        pages,
        sources.len()
    );
    let runs = args.runs;
    let per_page = |secs: f64| secs * 1000.0 / pages.max(1) as f64;
    let hel = timed(runs, || {
        for s in &sources {
            for (_, page) in &s.pages {
                for (_, rule) in &s.rules {
                    std::hint::black_box(rule.eval(page));
                }
            }
        }
    });
    let reduce = timed(runs, || {
        for s in &sources {
            for (_, page) in &s.pages {
                std::hint::black_box(Blocks::of(page));
            }
        }
    });
    println!(
        "HEL rules: {:.3} ms per page; reducing a page tree to its units: {:.3} ms per page",
        per_page(hel),
        per_page(reduce)
    );
    let sites: Vec<SitePages> = sources
        .iter()
        .map(|s| {
            let mut site = SitePages::default();
            for (url, page) in &s.pages {
                site.add(url.clone(), page);
            }
            site
        })
        .collect();
    println!(
        "{:<6} {:>14} {:>18} {:>14} {:>10}",
        "method", "text removed", "values surviving", "ms per page", "vs HEL"
    );
    for method in Method::ALL {
        let mut contents: Vec<Vec<(Url, MainContent)>> = Vec::new();
        let secs = timed(runs, || {
            contents = sites
                .iter()
                .map(|site| site.main_contents(method))
                .collect();
        });
        let (mut total, mut kept) = (0usize, 0usize);
        let (mut values, mut surviving) = (0usize, 0usize);
        let mut lost: Vec<String> = Vec::new();
        for (source, main) in sources.iter().zip(&contents) {
            for ((_, page), (_, content)) in source.pages.iter().zip(main) {
                total += content.total_chars;
                kept += content.text.chars().count();
                let full = Blocks::of(page).text();
                for v in text_values(&source.rules, page, &full) {
                    values += 1;
                    if content.text.contains(&v) {
                        surviving += 1;
                    } else if lost.len() < args.show_lost {
                        lost.push(format!(
                            "  {method} lost {v:?} on {}",
                            page_url(source, page)
                        ));
                    }
                }
            }
        }
        println!(
            "{:<6} {:>13.1}% {:>17.2}% {:>14.3} {:>9.1}x",
            method.name(),
            100.0 * (1.0 - kept as f64 / total.max(1) as f64),
            100.0 * surviving as f64 / values.max(1) as f64,
            per_page(secs),
            secs / hel
        );
        for line in lost {
            println!("{line}");
        }
    }
    match magazine_pages() {
        Ok(pages) => magazine_report(&pages),
        Err(e) => {
            eprintln!("gather bench boilerplate: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    }
    crate::cli::exit(crate::cli::OK)
}

/// The magazine's pages, read from a demo site of their own.
fn magazine_pages() -> Result<Vec<(Url, Page)>, String> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let site = DemoSite::start(DemoConfig {
            hotels: 10,
            ..DemoConfig::default()
        })
        .await
        .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
        let start = site
            .base_url()
            .join("/magazin/")
            .map_err(|e| e.to_string())?;
        let pages = read_site(vec![start], 200).await;
        site.shutdown().await;
        Ok(pages?
            .into_iter()
            .filter(|(u, _)| u.path().starts_with("/magazin/"))
            .collect())
    })
}

/// The words of a text, counted.
fn word_counts(text: &str) -> std::collections::HashMap<&str, usize> {
    let mut m = std::collections::HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w).or_insert(0) += 1;
    }
    m
}

/// How much of the magazine's article blocks (`div.inhalt`) each method
/// keeps and how much of the rest (header, menus, breadcrumb, tag cloud,
/// footer) it drops, by words.
fn magazine_report(pages: &[(Url, Page)]) {
    // The article block's markup, parsed on its own for its text with the
    // same spaces between blocks as the page's (measuring only).
    let content_rule = Rule::parse("html.body.div[1].src").ok();
    let mut site = SitePages::default();
    for (url, page) in pages {
        site.add(url.clone(), page);
    }
    println!(
        "travel magazine ({} ordinary pages; content: each page's div.inhalt, the rest is boilerplate):",
        pages.len()
    );
    println!(
        "{:<6} {:>14} {:>15} {:>19}",
        "method", "text removed", "content kept", "boilerplate removed"
    );
    for method in Method::ALL {
        let contents = site.main_contents(method);
        let (mut total, mut kept) = (0usize, 0usize);
        let (mut content_words, mut content_kept) = (0usize, 0usize);
        let (mut rest_words, mut rest_kept) = (0usize, 0usize);
        for ((_, page), (_, main)) in pages.iter().zip(&contents) {
            total += main.total_chars;
            kept += main.text.chars().count();
            let content = content_rule
                .as_ref()
                .map(|r| r.eval(page).flatten().join(" "))
                .map(|src| Blocks::of(&Page::parse(&src)).text())
                .unwrap_or_default();
            let full = Blocks::of(page).text();
            let mut main_words = word_counts(&main.text);
            let content_counts = word_counts(&content);
            for (w, n) in &content_counts {
                let m = main_words.entry(w).or_insert(0);
                let k = (*n).min(*m);
                content_words += n;
                content_kept += k;
                *m -= k;
            }
            let mut rest = word_counts(&full);
            for (w, n) in &content_counts {
                if let Some(r) = rest.get_mut(w) {
                    *r = r.saturating_sub(*n);
                }
            }
            for (w, n) in rest {
                rest_words += n;
                rest_kept += n.min(main_words.get(w).copied().unwrap_or(0));
            }
        }
        println!(
            "{:<6} {:>13.1}% {:>14.1}% {:>18.1}%",
            method.name(),
            100.0 * (1.0 - kept as f64 / total.max(1) as f64),
            100.0 * content_kept as f64 / content_words.max(1) as f64,
            100.0 * (1.0 - rest_kept as f64 / rest_words.max(1) as f64)
        );
    }
}

#[derive(Debug, clap::Args)]
pub struct LinksBenchArgs {
    /// Hotels in the demo database.
    #[arg(long, default_value_t = 200)]
    pub hotels: usize,
    /// Pages of the demo site read at most.
    #[arg(long, default_value_t = 200)]
    pub max_pages: usize,
    /// Runs of the classification; the median time is reported.
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Print up to N links the thesis's checks classify wrongly.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub show_errors: usize,
}

/// What a link of the demo site is for, from the block around it: the
/// magazine's classes (see `gather::demo::magazine`), CityWorld's banner
/// table and centred pager.
fn true_kind(url: &Url, path: &str) -> gather::links::LinkKind {
    use gather::links::LinkKind;
    if url.path().starts_with("/magazin/") {
        return match gather::demo::magazine::link_role(path) {
            Some(true) => LinkKind::Menu,
            Some(false) => LinkKind::Pagination,
            None => LinkKind::Content,
        };
    }
    if path.contains("bgcolor=\"#003399\"") {
        LinkKind::Menu
    } else if path.contains("<p align=\"center\">") {
        LinkKind::Pagination
    } else {
        LinkKind::Content
    }
}

/// Reads the demo site breadth first from `starts`, HTML pages only.
async fn read_site(starts: Vec<Url>, max_pages: usize) -> Result<Vec<(Url, Page)>, String> {
    use gather::fetch::{FetchConfig, Fetcher};
    let fetcher = Fetcher::new(FetchConfig {
        respect_robots: false,
        ..FetchConfig::default()
    })
    .map_err(|e| e.to_string())?;
    let origin = starts.first().map(Url::origin);
    let mut seen: std::collections::HashSet<String> =
        starts.iter().map(gather::links::document_key).collect();
    let mut queue: std::collections::VecDeque<Url> = starts.into();
    let mut pages = Vec::new();
    while let Some(url) = queue.pop_front() {
        if pages.len() >= max_pages {
            break;
        }
        let Ok(response) = fetcher.get(&url).await else {
            continue;
        };
        let html = response
            .content_type
            .as_deref()
            .is_some_and(|t| t.contains("html"));
        if response.status != 200 || !html {
            continue;
        }
        let page = Page::from_bytes(&response.body, response.content_type.as_deref());
        for link in page.links().iter() {
            let Ok(mut target) = response.url.join(link.href) else {
                continue;
            };
            target.set_fragment(None);
            if Some(target.origin()) == origin && seen.insert(gather::links::document_key(&target))
            {
                queue.push_back(target);
            }
        }
        pages.push((response.url, page));
    }
    Ok(pages)
}

/// Precision and recall per kind, over (truth, found) pairs.
fn scores(pairs: &[(gather::links::LinkKind, gather::links::LinkKind)]) -> String {
    use gather::links::LinkKind;
    let mut out = Vec::new();
    for kind in [LinkKind::Menu, LinkKind::Pagination, LinkKind::Content] {
        let tp = pairs
            .iter()
            .filter(|(t, f)| *t == kind && *f == kind)
            .count();
        let found = pairs.iter().filter(|(_, f)| *f == kind).count();
        let real = pairs.iter().filter(|(t, _)| *t == kind).count();
        out.push(format!(
            "{kind}: P {:.3} R {:.3} ({real} links)",
            tp as f64 / found.max(1) as f64,
            tp as f64 / real.max(1) as f64
        ));
    }
    out.join("; ")
}

pub fn run_links(args: &LinksBenchArgs) -> ExitCode {
    use gather::links::{document_key, path_descriptions, CrawlLinks, LinkKind, PageLinks};
    use std::collections::HashMap;
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("gather bench links: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let pages = runtime.block_on(async {
        let site = DemoSite::start(DemoConfig {
            hotels: args.hotels,
            ..DemoConfig::default()
        })
        .await
        .map_err(|e| format!("cannot start the demo site: {e:#}"))?;
        let base = site.base_url();
        let starts: Vec<Url> = [
            "/",
            "/magazin/",
            "/cgi-bin/liste.pl?region=Usedom",
            "/cgi-bin/liste.pl?region=Vorpommern",
        ]
        .iter()
        .filter_map(|p| base.join(p).ok())
        .collect();
        let pages = read_site(starts, args.max_pages).await;
        site.shutdown().await;
        pages
    });
    let pages = match pages {
        Ok(p) => p,
        Err(e) => {
            eprintln!("gather bench links: {e}");
            return crate::cli::exit(crate::cli::FAILED);
        }
    };
    let per_page = |secs: f64| secs * 1000.0 / pages.len().max(1) as f64;
    let mut grouped: Vec<PageLinks> = Vec::new();
    let grouping = timed(args.runs, || {
        grouped = pages
            .iter()
            .map(|(url, page)| PageLinks::of(page, url))
            .collect();
    });
    let by_key: HashMap<String, &PageLinks> =
        grouped.iter().map(|l| (document_key(&l.url), l)).collect();
    let mut checked: Vec<PageLinks> = Vec::new();
    let checking = timed(args.runs, || {
        checked = grouped
            .iter()
            .map(|l| {
                let mut l = l.clone();
                l.classify(&|key| by_key.get(key).copied());
                l
            })
            .collect();
    });
    // As the crawl does: pages in the order read, each checked against the
    // pages read before it, earlier pages' groups again as their
    // neighbours come in, menus recognised once per site.
    let mut crawl = CrawlLinks::default();
    for l in &grouped {
        crawl.read_links(l.clone());
    }
    let crawled: Vec<PageLinks> = grouped
        .iter()
        .filter_map(|l| crawl.page(&l.url).cloned())
        .collect();
    let truth: Vec<Vec<LinkKind>> = pages
        .iter()
        .map(|(url, page)| {
            path_descriptions(page)
                .iter()
                .map(|p| true_kind(url, p))
                .collect()
        })
        .collect();
    let pairs = |found: &[PageLinks], magazine: Option<bool>| -> Vec<(LinkKind, LinkKind)> {
        found
            .iter()
            .zip(&truth)
            .filter(|(l, _)| magazine.is_none_or(|m| l.url.path().starts_with("/magazin/") == m))
            .flat_map(|(l, t)| {
                l.classified()
                    .into_iter()
                    .map(|(link, k)| (t[link.index], k))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let errors = checked.iter().zip(&truth).flat_map(|(l, t)| {
        l.classified()
            .into_iter()
            .filter(|(link, k)| t[link.index] != *k)
            .map(|(link, k)| format!("  {} {:?}: {k}, is {}", l.url, link.text, t[link.index]))
            .collect::<Vec<_>>()
    });
    for line in errors.take(args.show_errors) {
        println!("{line}");
    }
    let magazine = pages
        .iter()
        .filter(|(u, _)| u.path().starts_with("/magazin/"))
        .count();
    println!(
        "demo site: {} pages read ({} of the magazine, {} of CityWorld: start, form, ordinary and result pages)",
        pages.len(),
        magazine,
        pages.len() - magazine
    );
    println!(
        "grouping the links (Algorithm 2): {:.3} ms per page; checking the groups against the pages they link to: {:.3} ms per page (medians of {})",
        per_page(grouping),
        per_page(checking),
        args.runs.max(1)
    );
    for (name, found) in [
        ("thesis's checks, all pages known", &checked),
        (
            "at the end of a crawl (pages read in order, menus once per site)",
            &crawled,
        ),
    ] {
        println!("{name}:");
        println!("  magazine:  {}", scores(&pairs(found, Some(true))));
        println!("  CityWorld: {}", scores(&pairs(found, Some(false))));
        println!("  all:       {}", scores(&pairs(found, None)));
    }
    crate::cli::exit(crate::cli::OK)
}
