//! Parsing generated ~40 KB product-listing pages and evaluating the five
//! rules of `gather::demo::listing::RULES` (run: `cargo bench --bench hel`),
//! next to two yardsticks on the same pages: html5ever's tokenizer alone, and
//! building `select`'s document (an Rc DOM) from the same parser.

use std::cell::Cell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gather::demo::listing as bench;
use gather::hel::Rule;
use gather::page::Page;

fn hel(c: &mut Criterion) {
    let pages: Vec<String> = (0..20).map(|i| bench::generate_page(i, 40_000)).collect();
    let bytes: usize = pages.iter().map(String::len).sum();
    let rules: Vec<Rule> = bench::RULES
        .iter()
        .map(|r| Rule::parse(r).expect("bench rule"))
        .collect();
    let mut group = c.benchmark_group("hel");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("html5ever tokenizer only, 20 pages", |b| {
        b.iter(|| {
            for p in &pages {
                let tok = Tokenizer::new(CountTokens(Cell::new(0)), Default::default());
                let input = BufferQueue::default();
                input.push_back(StrTendril::from_slice(p));
                let _ = tok.feed(&input);
                tok.end();
                std::hint::black_box(tok.sink.0.get());
            }
        })
    });
    group.bench_function("select Document, 20 pages", |b| {
        b.iter(|| {
            for p in &pages {
                std::hint::black_box(select::document::Document::from(p.as_str()));
            }
        })
    });
    group.bench_function("parse 20 pages", |b| {
        b.iter(|| {
            for p in &pages {
                std::hint::black_box(Page::from_bytes(p.as_bytes(), None));
            }
        })
    });
    group.bench_function("parse + 5 rules, 20 pages", |b| {
        b.iter(|| {
            for p in &pages {
                let page = Page::from_bytes(p.as_bytes(), None);
                for r in &rules {
                    std::hint::black_box(r.eval(&page));
                }
            }
        })
    });
    let parsed: Vec<Page> = pages.iter().map(|p| Page::parse(p)).collect();
    group.bench_function("5 rules on 20 parsed pages", |b| {
        b.iter(|| {
            for page in &parsed {
                for r in &rules {
                    std::hint::black_box(r.eval(page));
                }
            }
        })
    });
    group.finish();
}

/// A token sink that only counts.
struct CountTokens(Cell<usize>);

impl TokenSink for CountTokens {
    type Handle = ();
    fn process_token(&self, _token: Token, _line: u64) -> TokenSinkResult<()> {
        self.0.set(self.0.get() + 1);
        TokenSinkResult::Continue
    }
}

criterion_group!(benches, hel);
criterion_main!(benches);
