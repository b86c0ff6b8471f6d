//! Instruction counts of what records cost, for callgrind (the timings are
//! `cargo bench --bench records`):
//!
//! ```text
//! cargo build --release --example records_cost
//! valgrind --tool=callgrind target/release/examples/records_cost values [jobs|listings]
//! valgrind --tool=callgrind target/release/examples/records_cost records [jobs|listings]
//! ```
//!
//! Each run parses the pages of the workloads (both, or the one named) and
//! evaluates their rules `RUNS` times: for their values alone (`values`), or
//! with the page's records (`records`); the difference of the two counts is
//! the records'.

use gather::page::Page;
use gather::record::RecordRules;

#[path = "../benches/support/records_work.rs"]
mod work;

const RUNS: usize = 5;

fn main() {
    let records = match std::env::args().nth(1).as_deref() {
        Some("values") => false,
        Some("records") => true,
        _ => {
            eprintln!("usage: records_cost values|records [jobs|listings]");
            std::process::exit(2);
        }
    };
    let only = std::env::args().nth(2);
    let wanted = |name: &str| match only.as_deref() {
        Some("jobs") => name.contains("job board"),
        Some("listings") => name.contains("listings"),
        _ => true,
    };
    for w in work::workloads().into_iter().filter(|w| wanted(w.name)) {
        let mut n = 0;
        let record_rules = RecordRules::new(&w.rules);
        for _ in 0..RUNS {
            let pages: Vec<Page> = w.html.iter().map(|h| Page::parse(h)).collect();
            n += if records {
                work::with_records(&w.rules, &record_rules, &pages)
            } else {
                work::values_only(&w.rules, &pages)
            };
        }
        println!("{}: {n}", w.name);
    }
}
