//! What records cost: the rules of a result page evaluated for their values
//! alone (what a gathering did before records), side by side with the same
//! rules evaluated with the nodes of their rows and the page's records built
//! (`RecordRules::records`), on the same parsed pages (run: `cargo bench
//! --bench records`). Two workloads: the job board's result pages (a rule
//! per column, header rows) and the generated ~40 KB product listings (five
//! rules, a fork per link and per product).

use criterion::{criterion_group, criterion_main, Criterion};
use gather::demo::{jobs, listing};
use gather::fragment::IndexFragment;
use gather::hel::{Nsl, RowNodes, Rule};
use gather::page::Page;
use gather::record::RecordRules;

/// Values only, as a gathering without records takes them: each rule's
/// value, flattened into the page's index fragment.
fn values_only(rules: &[(String, Rule)], pages: &[Page]) -> usize {
    let mut n = 0;
    for page in pages {
        let mut fragment = IndexFragment::new();
        for (attribute, rule) in rules {
            for value in rule.evaluate(page).value.flatten() {
                fragment.add(attribute, &value);
            }
        }
        n += fragment.len();
    }
    n
}

/// Values and records.
fn with_records(rules: &[(String, Rule)], records: &RecordRules, pages: &[Page]) -> usize {
    let mut n = 0;
    for page in pages {
        let mut values: Vec<Nsl> = Vec::with_capacity(rules.len());
        let mut rows: Vec<RowNodes> = Vec::with_capacity(rules.len());
        let mut fragment = IndexFragment::new();
        for (attribute, rule) in rules {
            let (evaluation, nodes) = rule.evaluate_rows(page);
            for value in evaluation.value.flatten() {
                fragment.add(attribute, &value);
            }
            n += fragment.len();
            values.push(evaluation.value);
            rows.push(nodes);
        }
        n += records
            .records(rules, &values, &rows, page, "http://bench/")
            .len();
    }
    n
}

fn workload(c: &mut Criterion, name: &str, rules: Vec<(String, Rule)>, html: Vec<String>) {
    let records = RecordRules::new(&rules);
    assert!(!records.is_empty(), "{name}: the rules make records");
    let pages: Vec<Page> = html.iter().map(|h| Page::parse(h)).collect();
    let mut group = c.benchmark_group(name);
    group.bench_function("values only", |b| {
        b.iter(|| std::hint::black_box(values_only(&rules, &pages)))
    });
    group.bench_function("values + records", |b| {
        b.iter(|| std::hint::black_box(with_records(&rules, &records, &pages)))
    });
    // What a gathering spends per page besides the network and the store:
    // parsing too.
    group.bench_function("parse + values only", |b| {
        b.iter(|| {
            let pages: Vec<Page> = html.iter().map(|h| Page::parse(h)).collect();
            std::hint::black_box(values_only(&rules, &pages))
        })
    });
    group.bench_function("parse + values + records", |b| {
        b.iter(|| {
            let pages: Vec<Page> = html.iter().map(|h| Page::parse(h)).collect();
            std::hint::black_box(with_records(&rules, &records, &pages))
        })
    });
    group.finish();
}

fn records(c: &mut Criterion) {
    let meta = jobs::meta_tags();
    let prefix = meta
        .iter()
        .find(|(n, _)| *n == "DB.Result")
        .map(|(_, p)| *p);
    let job_rules: Vec<(String, Rule)> = meta
        .iter()
        .filter_map(|(n, r)| Some((n.strip_prefix("DB.Result.")?.to_string(), *r)))
        .map(|(a, r)| {
            let prefix = if r.starts_with("html.") { None } else { prefix };
            (
                a,
                Rule::parse_with_prefix(r, prefix).expect("job board rule"),
            )
        })
        .collect();
    let job_pages: Vec<String> = jobs::DISTRICTS
        .iter()
        .map(|d| jobs::result_page(d))
        .collect();
    workload(c, "records: job board, 6 pages", job_rules, job_pages);

    let listing_rules: Vec<(String, Rule)> = listing::RULES
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("r{i}"), Rule::parse(r).expect("listing rule")))
        .collect();
    let listing_pages: Vec<String> = (0..20).map(|i| listing::generate_page(i, 40_000)).collect();
    workload(
        c,
        "records: product listings, 20 pages of 40 KB",
        listing_rules,
        listing_pages,
    );
}

criterion_group!(benches, records);
criterion_main!(benches);
