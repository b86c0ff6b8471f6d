//! The work the records benchmark measures (`benches/records.rs`, and
//! `examples/records_cost.rs` for instruction counts under callgrind): a
//! result page's rules evaluated for their values alone, as a gathering
//! without records takes them, or with the nodes of their rows and the
//! page's records built.

use gather::demo::{jobs, listing};
use gather::fragment::IndexFragment;
use gather::hel::{Nsl, RowNodes, Rule};
use gather::page::Page;
use gather::record::RecordRules;

/// Rules, and the HTML of the pages they are evaluated on.
pub struct Workload {
    pub name: &'static str,
    pub rules: Vec<(String, Rule)>,
    pub html: Vec<String>,
}

/// The job board's result pages (a rule per column, header rows) and the
/// generated ~40 KB product listings (five rules, a fork per link and per
/// product).
pub fn workloads() -> Vec<Workload> {
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
    let listing_rules: Vec<(String, Rule)> = listing::RULES
        .iter()
        .enumerate()
        .map(|(i, r)| (format!("r{i}"), Rule::parse(r).expect("listing rule")))
        .collect();
    vec![
        Workload {
            name: "records: job board, 6 pages",
            rules: job_rules,
            html: jobs::DISTRICTS
                .iter()
                .map(|d| jobs::result_page(d))
                .collect(),
        },
        Workload {
            name: "records: product listings, 20 pages of 40 KB",
            rules: listing_rules,
            html: (0..20).map(|i| listing::generate_page(i, 40_000)).collect(),
        },
    ]
}

/// Values only: each rule's value, flattened into the page's index fragment.
pub fn values_only(rules: &[(String, Rule)], pages: &[Page]) -> usize {
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
pub fn with_records(rules: &[(String, Rule)], records: &RecordRules, pages: &[Page]) -> usize {
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
            values.push(evaluation.value);
            rows.push(nodes);
        }
        n += fragment.len();
        n += records
            .records(rules, &values, &rows, page, "http://bench/")
            .len();
    }
    n
}
