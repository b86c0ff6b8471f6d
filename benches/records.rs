//! What records cost: the rules of a result page evaluated for their values
//! alone (what a gathering did before records), side by side with the same
//! rules evaluated with the nodes of their rows and the page's records built
//! (`RecordRules::records`), on the same pages, parsed once or parsed in
//! each run (run: `cargo bench --bench records`; instruction counts:
//! `examples/records_cost.rs`).

use criterion::{criterion_group, criterion_main, Criterion};
use gather::page::Page;
use gather::record::RecordRules;

#[path = "support/records_work.rs"]
mod work;

fn records(c: &mut Criterion) {
    for w in work::workloads() {
        let (rules, html) = (&w.rules, &w.html);
        let records = RecordRules::new(rules);
        assert!(!records.is_empty(), "{}: the rules make records", w.name);
        let pages: Vec<Page> = html.iter().map(|h| Page::parse(h)).collect();
        let parse = || html.iter().map(|h| Page::parse(h)).collect::<Vec<Page>>();
        let mut group = c.benchmark_group(w.name);
        group.bench_function("values only", |b| {
            b.iter(|| std::hint::black_box(work::values_only(rules, &pages)))
        });
        group.bench_function("values + records", |b| {
            b.iter(|| std::hint::black_box(work::with_records(rules, &records, &pages)))
        });
        // What a gathering spends per page besides the network and the
        // store: parsing too.
        group.bench_function("parse + values only", |b| {
            b.iter(|| std::hint::black_box(work::values_only(rules, &parse())))
        });
        group.bench_function("parse + values + records", |b| {
            b.iter(|| std::hint::black_box(work::with_records(rules, &records, &parse())))
        });
        group.finish();
    }
}

criterion_group!(benches, records);
criterion_main!(benches);
