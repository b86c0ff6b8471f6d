//! `gather bench induce DIR EXPECTED`: template induction measured on a
//! directory of result pages of one site.
//!
//! EXPECTED is a JSON object: page file name → attribute → the values the
//! page holds. `--train N` pages, spread evenly over the pages in name
//! order, are the training pages; every attribute is named from its
//! expected values on them (up to three per page, as `gather induce
//! --name` does), and its rule is scored on the other pages: precision and
//! recall of its values against the expected ones, counted as multisets.
//! The two mappings (the approximation of §5.2 and the restricted
//! top-down distance of §3.3) run side by side, each with how many test
//! pages its template aligns with (§6.3); their induction times are
//! medians of `--runs` runs, next to the cost of the page tree and of the
//! induced rules per page.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use gather::demo::{DemoConfig, DemoSite};
use gather::hel::Rule;
use gather::induce::{self, Algorithm};
use gather::page::Page;

use super::median_secs;

#[derive(Debug, clap::Args)]
pub struct InduceBenchArgs {
    /// A directory of result pages of one site (`*.html`, `*.htm`).
    #[arg(required_unless_present_any = ["swde", "large"])]
    pub dir: Option<PathBuf>,
    /// A JSON file: page file name → attribute → expected values.
    #[arg(required_unless_present_any = ["swde", "large"])]
    pub expected: Option<PathBuf>,
    /// Instead of DIR and EXPECTED: the SWDE corpus (Hao et al. 2011), a
    /// directory holding `groundtruth/VERTICAL/*.txt` and the sites' pages
    /// (`VERTICAL/VERTICAL-SITE(N)/NNNN.htm` or `…-SITE-N/`); every site with
    /// pages is measured.
    #[arg(long, value_name = "DIR")]
    pub swde: Option<PathBuf>,
    /// Pages per site with --swde: the training pages and the pages to test
    /// on, the first ones in name order.
    #[arg(long, default_value_t = 303)]
    pub pages: usize,
    /// How many pages to induce on (spread evenly over the pages).
    #[arg(long, default_value_t = 3)]
    pub train: usize,
    /// With --swde: instead of the pages spread evenly, this many draws of
    /// `--train` pages at random (the same draws in every run), and each
    /// attribute's F1 over the draws: mean and worst.
    #[arg(long, value_name = "N", requires = "swde")]
    pub draws: Option<usize>,
    /// Runs per timing; medians are reported.
    #[arg(long, default_value_t = 5)]
    pub runs: usize,
    /// Instead of measuring, save the demo site's result pages into DIR and
    /// their values, from the provider's database, into EXPECTED.
    #[arg(long)]
    pub write_demo: bool,
    /// Hotels in the demo database (with --write-demo).
    #[arg(long, default_value_t = 3000)]
    pub hotels: usize,
    /// Instead of measuring, write this many generated product-listing pages
    /// (the pages of `gather bench hel`: nested layout tables, menus,
    /// scripts, unclosed cells) into DIR and their values, read from the
    /// generated markup, into EXPECTED.
    #[arg(long, value_name = "N")]
    pub write_listings: Option<usize>,
    /// Instead of DIR and EXPECTED: two generated listings of ROWS rows
    /// each (about 55 bytes a row), induced on by `gather induce` in a child
    /// process under `/usr/bin/time -v`: time and peak memory against the
    /// pages' size, and the F1 of the best printed rule for each column
    /// (medians of `--runs` runs).
    #[arg(long, value_name = "ROWS", conflicts_with_all = ["swde", "write_demo", "write_listings"])]
    pub large: Option<usize>,
    /// With --large: another gather executable (main's build) run the same
    /// way, its runs alternated with this one's, its row beside this one's.
    #[arg(long, value_name = "EXECUTABLE", requires = "large")]
    pub baseline: Option<PathBuf>,
}

type Expected = BTreeMap<String, BTreeMap<String, Vec<String>>>;

pub fn run(args: &InduceBenchArgs) -> ExitCode {
    if let Some(rows) = args.large {
        return match large(rows, args.runs, args.baseline.as_deref()) {
            Ok(()) => crate::cli::exit(crate::cli::OK),
            Err(e) => {
                eprintln!("gather bench induce: {e}");
                crate::cli::exit(crate::cli::FAILED)
            }
        };
    }
    if let Some(corpus) = &args.swde {
        return match super::swde::measure(corpus, args.pages, args.train, args.draws) {
            Ok(()) => crate::cli::exit(crate::cli::OK),
            Err(e) => {
                eprintln!("gather bench induce: {e}");
                crate::cli::exit(crate::cli::BAD_INPUT)
            }
        };
    }
    let (Some(dir), Some(expected)) = (&args.dir, &args.expected) else {
        eprintln!("gather bench induce: DIR and EXPECTED are needed without --swde");
        return crate::cli::exit(crate::cli::BAD_INPUT);
    };
    let written = if let Some(n) = args.write_listings {
        write_listings(dir, expected, n).map(|()| (n, "product-listing pages"))
    } else if args.write_demo {
        write_demo(args, dir, expected).map(|n| (n, "result pages of the demo site"))
    } else {
        return match measure(args, dir, expected) {
            Ok(()) => crate::cli::exit(crate::cli::OK),
            Err(e) => {
                eprintln!("gather bench induce: {e}");
                crate::cli::exit(crate::cli::BAD_INPUT)
            }
        };
    };
    match written {
        Ok((n, what)) => {
            println!(
                "wrote {n} {what} to {} and their values to {}",
                dir.display(),
                expected.display()
            );
            crate::cli::exit(crate::cli::OK)
        }
        Err(e) => {
            eprintln!("gather bench induce: {e}");
            crate::cli::exit(crate::cli::FAILED)
        }
    }
}

fn measure(args: &InduceBenchArgs, dir: &Path, expected_path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(expected_path)
        .map_err(|e| format!("cannot read {}: {e}", expected_path.display()))?;
    let expected: Expected = serde_json::from_str(&text).map_err(|e| {
        format!(
            "{}: not a JSON object of page → attribute → values: {e}",
            expected_path.display()
        )
    })?;
    let names: Vec<&String> = expected.keys().collect();
    if names.len() < args.train + 1 || args.train < 2 {
        return Err(format!(
            "{} pages are expected, --train {}: induction needs at least 2 pages and at least one page to test on",
            names.len(),
            args.train
        ));
    }
    let mut bytes = Vec::new();
    for name in &names {
        let path = dir.join(name);
        bytes.push(
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?,
        );
    }
    let runs = args.runs.max(1);
    let parse = median_secs(runs, || {
        for b in &bytes {
            std::hint::black_box(Page::from_bytes(b, None));
        }
    });
    let pages: Vec<Page> = bytes.iter().map(|b| Page::from_bytes(b, None)).collect();
    let train: Vec<usize> = (0..args.train)
        .map(|i| i * names.len() / args.train)
        .collect();
    let training: Vec<Page> = train.iter().map(|&i| pages[i].clone()).collect();
    let test: Vec<usize> = (0..names.len()).filter(|i| !train.contains(i)).collect();
    let attributes: Vec<String> = {
        let mut a: Vec<String> = expected.values().flat_map(|m| m.keys().cloned()).collect();
        a.sort();
        a.dedup();
        a
    };
    println!(
        "{} pages ({:.1} KB on average): {} to induce on ({}), {} to test on; median of {runs} runs",
        names.len(),
        bytes.iter().map(Vec::len).sum::<usize>() as f64 / names.len() as f64 / 1e3,
        train.len(),
        train.iter().map(|&i| names[i].as_str()).collect::<Vec<_>>().join(", "),
        test.len()
    );
    println!(
        "page tree: {:.3} ms per page",
        parse * 1e3 / names.len() as f64
    );
    let mut times = Vec::new();
    for algorithm in [Algorithm::Approximate, Algorithm::Restricted] {
        let label = match algorithm {
            Algorithm::Approximate => "approximation (§5.2)",
            Algorithm::Restricted => "restricted top-down distance (§3.3)",
        };
        let mut induction = match induce::induce(&training, algorithm) {
            Ok(i) => i,
            Err(e) => {
                println!("\n{label}: {e}");
                continue;
            }
        };
        let secs = median_secs(runs, || {
            std::hint::black_box(induce::induce(&training, algorithm).ok());
        });
        times.push(secs);
        let test_pages: Vec<Page> = test.iter().map(|&i| pages[i].clone()).collect();
        let aligned = induce::aligned(&induction.template, &test_pages);
        println!(
            "\n{label}: the template aligns with {aligned} of the {} test pages (§6.3)",
            test_pages.len()
        );
        println!(
            "  induction {:.1} ms ({:.2} ms per training page), {} slots found unnamed",
            secs * 1e3,
            secs * 1e3 / training.len() as f64,
            induction.slots.len()
        );
        let mut rules = Vec::new();
        println!(
            "  {:<12} {:>9} {:>7} {:>7}  rule",
            "attribute", "precision", "recall", "values"
        );
        for attribute in &attributes {
            let texts: Vec<String> = train
                .iter()
                .flat_map(|&i| {
                    expected[names[i]]
                        .get(attribute)
                        .into_iter()
                        .flatten()
                        .take(3)
                        .cloned()
                })
                .collect();
            let slot = match induction.name(&training, attribute, &texts) {
                Ok(s) => s,
                Err(e) => {
                    println!(
                        "  {attribute:<12} {:>9} {:>7} {:>7}  ({e})",
                        "-", "0.000", "-"
                    );
                    continue;
                }
            };
            let rule = Rule::parse(&slot.rule).map_err(|e| e.to_string())?;
            let (mut both, mut got, mut want) = (0, 0, 0);
            for &i in &test {
                let values = rule.eval(&pages[i]).flatten();
                let none = Vec::new();
                let wanted = expected[names[i]].get(attribute).unwrap_or(&none);
                let (b, g, w) = induce::overlap(&values, wanted);
                both += b;
                got += g;
                want += w;
            }
            let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
            println!(
                "  {attribute:<12} {:>9.3} {:>7.3} {:>7}  {}",
                ratio(both, got),
                ratio(both, want),
                want,
                slot.rule
            );
            rules.push(rule);
        }
        let hel = median_secs(runs, || {
            for &i in &test {
                for r in &rules {
                    std::hint::black_box(r.eval(&pages[i]).flatten());
                }
            }
        });
        println!(
            "  the {} induced rules with HEL: {:.3} ms per page",
            rules.len(),
            hel * 1e3 / test.len() as f64
        );
    }
    if let [approximation, restricted] = times[..] {
        println!(
            "\nrestricted / approximation induction time: {:.2}×",
            restricted / approximation
        );
    }
    Ok(())
}

/// The demo's result pages: per region, all its hotels, and for each first
/// letter of its towns, the hotels of the towns that begin with it.
fn write_demo(args: &InduceBenchArgs, dir: &Path, expected: &Path) -> Result<usize, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async {
        let site = DemoSite::start(DemoConfig {
            hotels: args.hotels,
            ..DemoConfig::default()
        })
        .await
        .map_err(|e| e.to_string())?;
        let result = write_pages(&site, dir, expected).await;
        site.shutdown().await;
        result
    })
}

struct Hotel {
    name: String,
    ort: String,
    preis: i64,
}

async fn write_pages(site: &DemoSite, dir: &Path, expected_path: &Path) -> Result<usize, String> {
    let conn = rusqlite::Connection::open(site.database_path()).map_err(|e| e.to_string())?;
    let mut by_region: BTreeMap<String, Vec<Hotel>> = BTreeMap::new();
    {
        let mut stmt = conn
            .prepare(
                "SELECT region.region, hotel.name, hotel.ort, hotel.preis FROM hotel \
                 JOIN region ON region.id = hotel.region_id",
            )
            .map_err(|e| e.to_string())?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    Hotel {
                        name: r.get(1)?,
                        ort: r.get(2)?,
                        preis: r.get(3)?,
                    },
                ))
            })
            .map_err(|e| e.to_string())?;
        for row in rows {
            let (region, hotel) = row.map_err(|e| e.to_string())?;
            by_region.entry(region).or_default().push(hotel);
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let client = reqwest::Client::new();
    let mut expected: Expected = BTreeMap::new();
    for (region, hotels) in &by_region {
        let mut prefixes: Vec<String> = vec![String::new()];
        for h in hotels {
            let first: String = h.ort.chars().take(1).collect();
            if !prefixes.contains(&first) {
                prefixes.push(first);
            }
        }
        for prefix in prefixes {
            let shown: Vec<&Hotel> = hotels
                .iter()
                .filter(|h| h.ort.to_lowercase().starts_with(&prefix.to_lowercase()))
                .collect();
            let mut url = site
                .base_url()
                .join("/cgi-bin/auswahl.pl")
                .map_err(|e| e.to_string())?;
            url.set_query(Some(&format!(
                "region={}&ort={}",
                latin1_form(region),
                latin1_form(&prefix)
            )));
            let body = client
                .get(url.clone())
                .send()
                .await
                .and_then(|r| r.error_for_status())
                .map_err(|e| format!("{url}: {e}"))?
                .bytes()
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            let name = format!("{:04}.html", expected.len());
            std::fs::write(dir.join(&name), &body)
                .map_err(|e| format!("cannot write {}: {e}", dir.join(&name).display()))?;
            let mut towns: Vec<String> = Vec::new();
            for h in &shown {
                if !towns.contains(&h.ort) {
                    towns.push(h.ort.clone());
                }
            }
            let mut values = BTreeMap::new();
            values.insert("region".to_string(), vec![region.clone()]);
            values.insert(
                "name".to_string(),
                shown.iter().map(|h| h.name.clone()).collect(),
            );
            values.insert("ort".to_string(), towns);
            values.insert(
                "preis".to_string(),
                shown.iter().map(|h| format!("{} DM", h.preis)).collect(),
            );
            expected.insert(name, values);
        }
    }
    let json = serde_json::to_string_pretty(&expected).map_err(|e| e.to_string())?;
    std::fs::write(expected_path, json)
        .map_err(|e| format!("cannot write {}: {e}", expected_path.display()))?;
    Ok(expected.len())
}

/// Generated product listings and, read from their markup with regular
/// expressions (not with the page tree), the category, the product names,
/// their article numbers and their prices.
fn write_listings(dir: &Path, expected_path: &Path, n: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let pattern = |p: &str| regex::Regex::new(p).map_err(|e| e.to_string());
    let category = pattern(r"</td>\n<td valign=top>\n<h1>([^<]*)</h1>")?;
    let name = pattern(r#"<td class=name><a href="[^"]*" title="([^"]*)">"#)?;
    let number = pattern(r"<small>(Art\.-Nr\. [0-9]+)</small>")?;
    let price = pattern(r"<td class=price align=right><b>([^<]*)</b>")?;
    let decode = |s: &str| s.replace("&amp;", "&");
    let mut expected: Expected = BTreeMap::new();
    for seed in 0..n {
        let html = gather::demo::listing::generate_page(seed as u64, 40_000);
        let file = format!("{seed:04}.html");
        std::fs::write(dir.join(&file), &html)
            .map_err(|e| format!("cannot write {}: {e}", dir.join(&file).display()))?;
        let all = |re: &regex::Regex| -> Vec<String> {
            re.captures_iter(&html).map(|c| decode(&c[1])).collect()
        };
        let mut values = BTreeMap::new();
        values.insert("category".to_string(), all(&category));
        values.insert("name".to_string(), all(&name));
        values.insert("number".to_string(), all(&number));
        values.insert("price".to_string(), all(&price));
        expected.insert(file, values);
    }
    let json = serde_json::to_string_pretty(&expected).map_err(|e| e.to_string())?;
    std::fs::write(expected_path, json)
        .map_err(|e| format!("cannot write {}: {e}", expected_path.display()))
}

/// A value encoded for the demo's ISO-8859-1 forms.
fn latin1_form(value: &str) -> String {
    url::form_urlencoded::byte_serialize(&encoding_rs::WINDOWS_1252.encode(value).0).collect()
}

/// One `gather induce` on the two large pages, as `/usr/bin/time -v` saw it.
struct LargeRun {
    wall: f64,
    peak_rss_bytes: f64,
    sampled: bool,
    /// The rules printed, in order.
    rules: Vec<String>,
}

/// `--large ROWS`: see [`InduceBenchArgs::large`].
fn large(rows: usize, runs: usize, baseline: Option<&Path>) -> Result<(), String> {
    if rows == 0 {
        return Err("--large needs at least one row".into());
    }
    if !Path::new(TIME).is_file() {
        return Err(format!(
            "{TIME} is needed to measure peak memory (Debian: apt-get install time)"
        ));
    }
    let mut exes = vec![("this", std::env::current_exe().map_err(|e| e.to_string())?)];
    if let Some(path) = baseline {
        if !path.is_file() {
            return Err(format!("--baseline {}: no such executable", path.display()));
        }
        exes.push(("baseline", path.to_path_buf()));
    }
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut files = Vec::new();
    let mut truth: Vec<Vec<(String, String)>> = Vec::new();
    let mut input = 0;
    for seed in [1, 2] {
        let (html, values) = gather::demo::listing::generate_long_page(seed, rows);
        let path = dir.path().join(format!("all-{seed}.html"));
        std::fs::write(&path, &html)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        input += html.len();
        files.push(path);
        truth.push(values);
    }
    let mib = |b: f64| b / (1024.0 * 1024.0);
    println!(
        "two listings of {rows} rows, {:.1} MiB together; `gather induce` on both, {} run(s) per executable, alternated; medians",
        mib(input as f64),
        runs.max(1)
    );
    let mut measured: Vec<Vec<LargeRun>> = exes.iter().map(|_| Vec::new()).collect();
    for _ in 0..runs.max(1) {
        for (k, (_, exe)) in exes.iter().enumerate() {
            measured[k].push(induce_once(exe, &files)?);
        }
    }
    // Each column's best rule (by F1 on the whole pages), per executable.
    let pages: Vec<Page> = files
        .iter()
        .map(|f| std::fs::read(f).map(|b| Page::from_bytes(&b, None)))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    println!(
        "\n{:<9} {:>8} {:>10} {:>9} {:>8} {:>8} {:>8}",
        "", "time s", "peak MiB", "× input", "sampled", "name F1", "price F1"
    );
    let mut medians = Vec::new();
    for ((label, _), runs) in exes.iter().zip(&measured) {
        let wall = super::median(runs.iter().map(|r| r.wall).collect());
        let peak = super::median(runs.iter().map(|r| r.peak_rss_bytes).collect());
        let rules = &runs[0].rules;
        let f1 = |column: usize| best_f1(rules, &pages, &truth, column);
        println!(
            "{label:<9} {wall:>8.2} {:>10.0} {:>9.1} {:>8} {:>8.3} {:>8.3}",
            mib(peak),
            peak / input as f64,
            if runs[0].sampled { "yes" } else { "no" },
            f1(0),
            f1(1)
        );
        medians.push((wall, peak));
    }
    if let [(this_wall, this_peak), (base_wall, base_peak)] = medians[..] {
        println!(
            "this / baseline: time {:.2}×, peak memory {:.2}×; the same rules: {}",
            this_wall / base_wall,
            this_peak / base_peak,
            if measured[0][0].rules == measured[1][0].rules {
                "yes"
            } else {
                "no"
            }
        );
    }
    for ((label, _), runs) in exes.iter().zip(&measured) {
        println!("\nrules of {label}:");
        for rule in &runs[0].rules {
            println!("  {rule}");
        }
    }
    Ok(())
}

const TIME: &str = "/usr/bin/time";

/// Runs `exe induce FILES…` under `/usr/bin/time -v`.
fn induce_once(exe: &Path, files: &[PathBuf]) -> Result<LargeRun, String> {
    let out = std::process::Command::new(TIME)
        .arg("-v")
        .arg(exe)
        .arg("induce")
        .args(files)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {TIME}: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} induce failed: {stderr}", exe.display()));
    }
    let field = |name: &str| {
        stderr
            .lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .map(str::trim)
            .ok_or_else(|| format!("{TIME} -v printed no {name:?}"))
    };
    let peak_kib: f64 = field("Maximum resident set size (kbytes):")?
        .parse()
        .map_err(|e| format!("{TIME}: {e}"))?;
    let wall = elapsed_secs(field("Elapsed (wall clock) time (h:mm:ss or m:ss):")?)
        .ok_or_else(|| format!("{TIME}: cannot read the elapsed time"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rules = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("rule: "))
        .map(|r| serde_norway::from_str::<String>(r).unwrap_or_else(|_| r.to_string()))
        .collect();
    Ok(LargeRun {
        wall,
        peak_rss_bytes: peak_kib * 1024.0,
        sampled: stdout.contains("# Sampled"),
        rules,
    })
}

/// `h:mm:ss` or `m:ss.ss` as seconds.
fn elapsed_secs(text: &str) -> Option<f64> {
    text.split(':').try_fold(0.0, |acc, part| {
        Some(acc * 60.0 + part.parse::<f64>().ok()?)
    })
}

/// The best F1, over `rules`, of the values they read on the pages against
/// column `column` (0: name, 1: price) of the generated rows.
fn best_f1(
    rules: &[String],
    pages: &[Page],
    truth: &[Vec<(String, String)>],
    column: usize,
) -> f64 {
    rules
        .iter()
        .filter_map(|r| Rule::parse(r).ok())
        .map(|rule| {
            let (mut both, mut got, mut want) = (0, 0, 0);
            for (page, rows) in pages.iter().zip(truth) {
                let wanted: Vec<String> = rows
                    .iter()
                    .map(|(n, p)| if column == 0 { n.clone() } else { p.clone() })
                    .collect();
                let (b, g, w) = induce::overlap(&rule.eval(page).flatten(), &wanted);
                both += b;
                got += g;
                want += w;
            }
            if got + want == 0 {
                0.0
            } else {
                2.0 * both as f64 / (got + want) as f64
            }
        })
        .fold(0.0, f64::max)
}
