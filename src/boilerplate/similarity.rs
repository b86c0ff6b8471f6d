//! The relevances of seed 000: word counting (`ntpc`, §3.4) and the
//! normalised Levenshtein distance (`lev`, §3.3).

use std::collections::{HashMap, HashSet};

use super::{is_text, word_set, Blocks};

/// `rel_e = 1 - Σ_i Σ_j c(w_ei, s_vj) / (n·m)` for every node of `page`
/// (§3.4): the share of (word, comparison page) pairs where the page's text
/// holds the word, inverted. A node without words has relevance 1.
pub(super) fn ntpc(page: &Blocks, others: &[&Blocks]) -> Vec<f64> {
    let sets: Vec<HashSet<&str>> = others.iter().map(|o| word_set(o)).collect();
    // Per text node: (words, hits); a unit sums those of its text nodes.
    let per_text: Vec<(usize, usize)> = page
        .blocks
        .iter()
        .map(|b| {
            if !is_text(b) {
                return (0, 0);
            }
            b.text
                .split(' ')
                .filter(|w| !w.is_empty())
                .fold((0, 0), |(words, hits), w| {
                    (
                        words + 1,
                        hits + sets.iter().filter(|s| s.contains(w)).count(),
                    )
                })
        })
        .collect();
    (0..page.blocks.len())
        .map(|n| {
            let end = (page.blocks[n].end as usize).max(n + 1);
            let (words, hits) = per_text[n..end]
                .iter()
                .fold((0, 0), |(w, h), &(w2, h2)| (w + w2, h + h2));
            if words == 0 || sets.is_empty() {
                1.0
            } else {
                1.0 - hits as f64 / (words * sets.len()) as f64
            }
        })
        .collect()
}

/// The units of one comparison page by tag: their strings, for exact
/// matches, and their characters sorted by length.
struct Units {
    exact: HashSet<String>,
    by_len: Vec<Vec<char>>,
}

/// What a node is compared by: its tag, and for a text node also the tag
/// of its unit (the text of an `h1` is compared with texts of `h1`s).
fn kind(page: &Blocks, n: usize) -> (&str, &str) {
    let tag: &str = &page.blocks[n].tag;
    let unit = if is_text(&page.blocks[n]) {
        page.parent(n).map_or("", |p| &*page.blocks[p].tag)
    } else {
        ""
    };
    (tag, unit)
}

fn units_by_tag(page: &Blocks) -> HashMap<(&str, &str), Units> {
    let mut map: HashMap<(&str, &str), Units> = HashMap::new();
    for n in 0..page.blocks.len() {
        let s = page.string(n);
        if s.is_empty() {
            continue;
        }
        let units = map.entry(kind(page, n)).or_insert_with(|| Units {
            exact: HashSet::new(),
            by_len: Vec::new(),
        });
        if units.exact.insert(s.clone()) {
            units.by_len.push(s.chars().collect());
        }
    }
    for units in map.values_mut() {
        units.by_len.sort_by_key(Vec::len);
    }
    map
}

/// `rel_e = Σ_v min_u nlev(s_e, t_u) / n` for every node of `page` (§3.3),
/// comparing a node only with the units of the same tag (§3.5), a text
/// node only with the text nodes of units of the same tag. The
/// thesis prints `1 - …` of the distances, but its text and pseudo-code
/// treat the minimum as a similarity ("minSimilarity") that is averaged and
/// inverted, and a unit found unchanged on every page must get the lowest
/// relevance ("indirekt proportional aus der Anzahl der Funde"): the
/// average smallest distance is that relevance. A node without text has
/// relevance 1.
pub(super) fn lev(page: &Blocks, others: &[&Blocks]) -> Vec<f64> {
    let indexes: Vec<HashMap<(&str, &str), Units>> =
        others.iter().map(|o| units_by_tag(o)).collect();
    (0..page.blocks.len())
        .map(|n| {
            let s = page.string(n);
            if s.is_empty() || indexes.is_empty() {
                return 1.0;
            }
            let chars: Vec<char> = s.chars().collect();
            let pattern = Pattern::new(&chars);
            let kind = kind(page, n);
            let sum: f64 = indexes
                .iter()
                .map(|index| match index.get(&kind) {
                    None => 1.0,
                    Some(units) if units.exact.contains(&s) => 0.0,
                    Some(units) => nearest(&pattern, units),
                })
                .sum();
            sum / indexes.len() as f64
        })
        .collect()
}

/// The smallest normalised distance from the pattern to a unit: units are
/// tried outwards from the pattern's length, and the search stops where
/// the length difference alone exceeds the best distance found.
fn nearest(pattern: &Pattern, units: &Units) -> f64 {
    let m = pattern.len;
    let list = &units.by_len;
    let mid = list.partition_point(|u| u.len() < m);
    let (mut lo, mut hi) = (mid, mid);
    let mut best = 1.0f64;
    let bound = |len: usize| len.abs_diff(m) as f64 / len.max(m) as f64;
    loop {
        let below = (lo > 0).then(|| bound(list[lo - 1].len()));
        let above = (hi < list.len()).then(|| bound(list[hi].len()));
        let next = match (below, above) {
            (Some(b), Some(a)) if b <= a => {
                lo -= 1;
                (b, lo)
            }
            (_, Some(a)) => {
                hi += 1;
                (a, hi - 1)
            }
            (Some(b), None) => {
                lo -= 1;
                (b, lo)
            }
            (None, None) => break,
        };
        if next.0 >= best {
            break;
        }
        let text = &list[next.1];
        let d = pattern.distance(text) as f64 / text.len().max(m) as f64;
        best = best.min(d);
    }
    best
}

/// The Levenshtein distance of two strings (seed 000 §3.3's `lev`).
pub fn levenshtein(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    Pattern::new(&a).distance(&b)
}

/// A string prepared for Myers's bit-parallel edit distance (Myers 1999,
/// in Hyyrö's blocked form): the distance to a text of length n costs
/// ⌈m/64⌉·n word operations instead of the matrix's m·n cells; the result
/// is the same `M_{m+1,n+1}`.
struct Pattern {
    len: usize,
    blocks: usize,
    peq: HashMap<char, Vec<u64>>,
}

impl Pattern {
    fn new(chars: &[char]) -> Pattern {
        let blocks = chars.len().div_ceil(64).max(1);
        let mut peq: HashMap<char, Vec<u64>> = HashMap::new();
        for (i, &c) in chars.iter().enumerate() {
            peq.entry(c).or_insert_with(|| vec![0; blocks])[i / 64] |= 1 << (i % 64);
        }
        Pattern {
            len: chars.len(),
            blocks,
            peq,
        }
    }

    fn distance(&self, text: &[char]) -> usize {
        let m = self.len;
        if m == 0 {
            return text.len();
        }
        let zero = vec![0u64; self.blocks];
        let mut pv = vec![!0u64; self.blocks];
        let mut mv = vec![0u64; self.blocks];
        let last_high = 1u64 << ((m - 1) % 64);
        let mut score = m as i64;
        for c in text {
            let eqs = self.peq.get(c).unwrap_or(&zero);
            // The top row of the matrix grows by one per column.
            let mut hin: i64 = 1;
            for b in 0..self.blocks {
                let (p, n) = (pv[b], mv[b]);
                let hin_neg = u64::from(hin < 0);
                let xv = eqs[b] | n;
                let eq = eqs[b] | hin_neg;
                let xh = ((eq & p).wrapping_add(p) ^ p) | eq;
                let mut ph = n | !(xh | p);
                let mut mh = p & xh;
                let high = if b + 1 == self.blocks {
                    last_high
                } else {
                    1 << 63
                };
                let hout = if ph & high != 0 {
                    1
                } else if mh & high != 0 {
                    -1
                } else {
                    0
                };
                ph <<= 1;
                mh <<= 1;
                mh |= hin_neg;
                if hin > 0 {
                    ph |= 1;
                }
                pv[b] = mh | !(xv | ph);
                mv[b] = ph & xv;
                hin = hout;
            }
            score += hin;
        }
        score as usize
    }
}
