//! `gather bench induce --swde DIR`: induction measured on real pages, the
//! SWDE corpus (Hao et al., SIGIR 2011: detail pages of real sites with the
//! values a person marked on each page).
//!
//! For each site with pages in DIR, the first `--pages` pages in name order
//! are taken; `--train` of them, spread evenly, are the training pages (or,
//! with `--draws N`, N draws of them at random, the same in every run: the
//! rules must hold whichever pages a user names). Each
//! attribute is named on them by its ground-truth values (up to three per
//! page, as `gather induce --name` takes them) and its rule is applied with
//! HEL to every other page. The score is SWDE's own, per page: a page counts
//! as extracted when the rule gives a value there, and as right when one of
//! its values is one of the page's true values (white space collapsed, and
//! the separators SWDE's annotators kept at either end — `": 2008"` —
//! trimmed, on both sides). Beside it, on the same pages, the anchor a
//! wrapper without induction is: the absolute path of the value on the
//! training pages (the path most of them agree on), as an XPath wrapper
//! recorded from one example would read it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use gather::hel::Rule;
use gather::induce::{self, Algorithm};
use gather::page::Page;

/// Pages without their values on which the rules are judged.
const UNLABELLED: usize = 100;

/// Page name (`0000`) → the page's true values.
type Truth = BTreeMap<String, Vec<String>>;

struct Site {
    vertical: String,
    name: String,
    pages: PathBuf,
    /// Attribute → page → values.
    truth: BTreeMap<String, Truth>,
}

impl Site {
    /// `VERTICAL-SITE`, as the corpus names it.
    fn label(&self) -> String {
        format!("{}-{}", self.vertical, self.name)
    }
}

/// One attribute's figures in one draw: (site, attribute, F1, ranked on the
/// training pages alone, anchor).
type Figure = (String, String, f64, f64, f64);

/// SplitMix64's output function.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `train` distinct pages of `n`, drawn at random by a fixed generator
/// (SplitMix64, its start mixed from the draw's number, so that no draw's
/// sequence is another's shifted): the same in every run.
fn drawn(n: usize, train: usize, draw: usize) -> Vec<usize> {
    let mut state = mix(0x5157_4445_0000_0000 ^ draw as u64);
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix(state)
    };
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < train.min(n) {
        let i = (next() % n as u64) as usize;
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen
}

pub fn measure(
    corpus: &Path,
    max_pages: usize,
    train: usize,
    draws: Option<usize>,
) -> Result<(), String> {
    if train < 2 {
        return Err(format!("--train {train}: induction needs at least 2 pages"));
    }
    let sites = sites(corpus)?;
    if sites.is_empty() {
        return Err(format!(
            "{}: no site with both ground truth (groundtruth/VERTICAL/VERTICAL-SITE-ATTRIBUTE.txt) and pages (VERTICAL-SITE(N)/NNNN.htm)",
            corpus.display()
        ));
    }
    // Per draw, every attribute's figures.
    let mut all: Vec<Vec<Figure>> = Vec::new();
    for site in &sites {
        let mut names: Vec<String> = std::fs::read_dir(&site.pages)
            .map_err(|e| format!("cannot read {}: {e}", site.pages.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".htm") || n.ends_with(".html"))
            .collect();
        names.sort();
        // Pages past the measured ones, without their values, to judge the
        // rules on (the test pages themselves when there are none).
        let spare: Vec<String> = names
            .iter()
            .skip(max_pages)
            .take(UNLABELLED)
            .cloned()
            .collect();
        names.truncate(max_pages);
        if names.len() <= train {
            return Err(format!(
                "{}: {} pages, --train {train} leaves none to test on",
                site.pages.display(),
                names.len()
            ));
        }
        let read = |n: &String| {
            let path = site.pages.join(n);
            std::fs::read(&path)
                .map(|bytes| Page::from_bytes(&bytes, None))
                .map_err(|e| format!("cannot read {}: {e}", path.display()))
        };
        let pages = names.iter().map(read).collect::<Result<Vec<Page>, _>>()?;
        let spare = spare.iter().map(read).collect::<Result<Vec<Page>, _>>()?;
        let ids: Vec<String> = names
            .iter()
            .map(|n| n.split('.').next().unwrap_or(n).to_string())
            .collect();
        let choices: Vec<Vec<usize>> = match draws {
            Some(d) => (0..d).map(|k| drawn(names.len(), train, k)).collect(),
            None => vec![(0..train).map(|i| i * names.len() / train).collect()],
        };
        for (k, chosen) in choices.iter().enumerate() {
            let figures = measure_draw(site, &names, &ids, &pages, &spare, chosen)?;
            if all.len() <= k {
                all.push(Vec::new());
            }
            all[k].extend(figures);
        }
    }
    let flat: Vec<&Figure> = all.iter().flatten().collect();
    if flat.is_empty() {
        return Ok(());
    }
    let n = flat.len() as f64;
    let mean = flat.iter().map(|a| a.2).sum::<f64>() / n;
    let trained = flat.iter().map(|a| a.3).sum::<f64>() / n;
    let anchor = flat.iter().map(|a| a.4).sum::<f64>() / n;
    let (worst_site, worst_attr, worst, _, _) = flat
        .iter()
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|a| (*a).clone())
        .unwrap_or_default();
    println!(
        "\n{} attributes on {} sites{}: mean F1 {mean:.3} (ranked on the training pages alone {trained:.3}, anchor {anchor:.3}); lowest {worst:.3} ({worst_site} {worst_attr})",
        all.first().map_or(0, Vec::len),
        sites.len(),
        match draws {
            Some(d) => format!(", {d} draws of {train} named pages"),
            None => String::new(),
        }
    );
    if let Some(d) = draws {
        // Each attribute over the draws, and each draw's mean.
        let mut per: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
        for f in &flat {
            per.entry((f.0.clone(), f.1.clone())).or_default().push(f.2);
        }
        println!("\n| site | attribute | F1 per draw | mean | worst |\n|---|---|---|---|---|");
        for ((site, attribute), f) in &per {
            let shown: Vec<String> = f.iter().map(|x| format!("{x:.2}")).collect();
            println!(
                "| {site} | {attribute} | {} | {:.3} | {:.3} |",
                shown.join(" "),
                f.iter().sum::<f64>() / f.len() as f64,
                f.iter().copied().fold(f64::INFINITY, f64::min)
            );
        }
        let draw_means: Vec<f64> = all
            .iter()
            .map(|figs| figs.iter().map(|f| f.2).sum::<f64>() / figs.len().max(1) as f64)
            .collect();
        println!(
            "\nmean F1 of each of the {d} draws: {}",
            draw_means
                .iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Induces on the pages `chosen` of one site, names every attribute on
/// them, and scores its rule on the site's other pages.
fn measure_draw(
    site: &Site,
    names: &[String],
    ids: &[String],
    pages: &[Page],
    spare: &[Page],
    chosen: &[usize],
) -> Result<Vec<Figure>, String> {
    let training: Vec<Page> = chosen.iter().map(|&i| pages[i].clone()).collect();
    let test: Vec<usize> = (0..names.len()).filter(|i| !chosen.contains(i)).collect();
    let unlabelled: Vec<Page> = if spare.is_empty() {
        test.iter().map(|&i| pages[i].clone()).collect()
    } else {
        spare.to_vec()
    };
    println!(
        "\n{}: {} pages, induced on {} ({}), tested on {}; rules judged on {} {}",
        site.label(),
        names.len(),
        training.len(),
        chosen
            .iter()
            .map(|&i| names[i].as_str())
            .collect::<Vec<_>>()
            .join(", "),
        test.len(),
        unlabelled.len(),
        if spare.is_empty() {
            "of the test pages, without their values"
        } else {
            "further pages without their values"
        }
    );
    let started = Instant::now();
    let mut induction = match induce::induce(&training, Algorithm::Approximate) {
        Ok(i) => i,
        Err(e) => {
            println!("  induction failed: {e}");
            return Ok(site
                .truth
                .keys()
                .map(|a| (site.label(), a.clone(), 0.0, 0.0, 0.0))
                .collect());
        }
    };
    println!(
        "  template and {} unnamed slots in {:.0} ms",
        induction.slots.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    println!(
        "  {:<17} {:>6} {:>6} {:>6}   {:>8} {:>6}   rule",
        "attribute", "prec.", "recall", "F1", "trained", "anchor"
    );
    let mut figures = Vec::new();
    for (attribute, truth) in &site.truth {
        let texts: Vec<String> = chosen
            .iter()
            .flat_map(|&i| truth.get(&ids[i]).into_iter().flatten().take(3))
            .map(|t| clean(t))
            .filter(|t| !t.is_empty())
            .collect();
        let anchor = absolute_path(&training, &texts)
            .map(|r| score(&r, pages, ids, &test, truth).2)
            .unwrap_or(0.0);
        let trained = induction
            .name(&training, attribute, &texts)
            .ok()
            .and_then(|s| Rule::parse(&s.rule).ok())
            .map(|r| score(&r, pages, ids, &test, truth).2)
            .unwrap_or(0.0);
        let named = induction.name_generalising(&training, &unlabelled, attribute, &texts);
        let f = match named {
            Ok(slot) => {
                let rule = Rule::parse(&slot.rule).map_err(|e| e.to_string())?;
                let (p, r, f) = score(&rule, pages, ids, &test, truth);
                println!(
                    "  {attribute:<17} {p:>6.3} {r:>6.3} {f:>6.3}   {trained:>8.3} {anchor:>6.3}   {}",
                    slot.rule
                );
                f
            }
            Err(e) => {
                println!(
                    "  {attribute:<17} {:>6} {:>6} {:>6.3}   {trained:>8.3} {anchor:>6.3}   ({e})",
                    "-", "0.000", 0.0
                );
                0.0
            }
        };
        figures.push((site.label(), attribute.clone(), f, trained, anchor));
    }
    Ok(figures)
}

/// SWDE's per-page precision, recall and F1 of a rule on the test pages.
fn score(
    rule: &Rule,
    pages: &[Page],
    ids: &[String],
    test: &[usize],
    truth: &Truth,
) -> (f64, f64, f64) {
    let (mut extracted, mut right, mut expected) = (0usize, 0usize, 0usize);
    for &i in test {
        let want: Vec<String> = truth
            .get(&ids[i])
            .into_iter()
            .flatten()
            .map(|t| clean(t))
            .filter(|t| !t.is_empty())
            .collect();
        let got: Vec<String> = rule
            .eval(&pages[i])
            .flatten()
            .iter()
            .map(|t| clean(t))
            .filter(|t| !t.is_empty())
            .collect();
        if !want.is_empty() {
            expected += 1;
        }
        if !got.is_empty() {
            extracted += 1;
            if got.iter().any(|g| want.contains(g)) {
                right += 1;
            }
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let (p, r) = (ratio(right, extracted), ratio(right, expected));
    let f = if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    };
    (p, r, f)
}

/// A value as SWDE's scores compare it: white space collapsed, the
/// separators left at either end by the annotation (`": June 2010"`) cut,
/// the HTML entities some values kept decoded.
fn clean(text: &str) -> String {
    // A few true values keep the page's entities (`&nbsp;The Four Loves`).
    let text = text
        .replace("&nbsp;", " ")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, ':' | ';' | ',' | '|' | '-' | '/'))
        .to_string()
}

/// The anchor: the absolute path of the value on the training pages, the
/// one most of them give.
fn absolute_path(training: &[Page], texts: &[String]) -> Option<Rule> {
    let mut votes: BTreeMap<String, usize> = BTreeMap::new();
    for page in training {
        for text in texts {
            let found = gather::locate::locate(page, text);
            let whole = found.iter().find(|l| clean(&l.value) == clean(text));
            if let Some(loc) = whole.or(found.first()).cloned() {
                *votes.entry(loc.path).or_default() += 1;
                break;
            }
        }
    }
    let best = votes.into_iter().max_by_key(|(_, n)| *n)?.0;
    Rule::parse(&best).ok()
}

/// The sites of the corpus that have both ground truth and pages.
fn sites(corpus: &Path) -> Result<Vec<Site>, String> {
    let truth_dir = corpus.join("groundtruth");
    let verticals = std::fs::read_dir(&truth_dir)
        .map_err(|e| format!("cannot read {}: {e}", truth_dir.display()))?;
    let mut page_dirs = Vec::new();
    collect_dirs(corpus, 4, &mut page_dirs);
    let mut out: BTreeMap<(String, String), Site> = BTreeMap::new();
    for v in verticals.filter_map(|e| e.ok()) {
        let vertical = v.file_name().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(v.path()) else {
            continue;
        };
        for f in files.filter_map(|e| e.ok()) {
            let file = f.file_name().to_string_lossy().into_owned();
            let Some(stem) = file.strip_suffix(".txt") else {
                continue;
            };
            let mut parts = stem.splitn(3, '-');
            let (Some(_), Some(site), Some(attribute)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let prefix = format!("{vertical}-{site}");
            let Some(pages) = page_dirs.iter().find(|d| {
                d.file_name().is_some_and(|n| {
                    let n = n.to_string_lossy();
                    n.strip_prefix(&prefix)
                        .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('-'))
                })
            }) else {
                continue;
            };
            let text = std::fs::read_to_string(f.path())
                .map_err(|e| format!("cannot read {}: {e}", f.path().display()))?;
            let entry = out
                .entry((vertical.clone(), site.to_string()))
                .or_insert_with(|| Site {
                    vertical: vertical.clone(),
                    name: site.to_string(),
                    pages: pages.clone(),
                    truth: BTreeMap::new(),
                });
            entry.truth.insert(attribute.to_string(), truth_of(&text));
        }
    }
    Ok(out.into_values().collect())
}

/// An SWDE ground-truth file: two header lines, then `page TAB count TAB
/// value…` (`<NULL>` for none).
fn truth_of(text: &str) -> Truth {
    text.lines()
        .skip(2)
        .filter_map(|line| {
            let mut fields = line.trim_end_matches('\r').split('\t');
            let page = fields.next()?.trim().to_string();
            fields.next()?;
            let values = fields
                .filter(|v| *v != "<NULL>" && !v.trim().is_empty())
                .map(str::to_string)
                .collect();
            Some((page, values))
        })
        .collect()
}

fn collect_dirs(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        if e.path().is_dir() {
            out.push(e.path());
            if depth > 0 {
                collect_dirs(&e.path(), depth - 1, out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::drawn;

    #[test]
    fn draws_are_distinct_pages_the_same_in_every_run_and_differ_between_draws() {
        let draws: Vec<Vec<usize>> = (0..5).map(|k| drawn(303, 3, k)).collect();
        for d in &draws {
            assert_eq!(d.len(), 3);
            assert!(d.windows(2).all(|w| w[0] < w[1]) && d[2] < 303, "{d:?}");
        }
        assert_eq!(draws, (0..5).map(|k| drawn(303, 3, k)).collect::<Vec<_>>());
        // No page is named in every draw, as a shifted sequence would do.
        assert!(
            (0..303).all(|p| draws.iter().any(|d| !d.contains(&p))),
            "{draws:?}"
        );
        assert_eq!(
            drawn(4, 10, 0),
            vec![0, 1, 2, 3],
            "no more pages than there are"
        );
    }
}
