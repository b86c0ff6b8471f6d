//! The ceiling of a keyword search whose answers are capped: how many rows
//! any sequence of word queries could reach, found by the greedy choice
//! with the whole database known (each query the one that reaches the most
//! rows not yet reached). A learner that knows only what it gathered is
//! measured against it.

use std::collections::{BinaryHeap, HashMap};

/// The rows reached after each of the first `queries` greedy queries.
/// Candidates: every word, every pair of the `pairs_among` most frequent
/// words and every triple of the `triples_among` most frequent ones (a
/// pair of rarer words finds a row or two). `shown(words, matches)` orders
/// the matching rows as the provider lists them; the first `cap` are shown.
pub(super) fn greedy_ceiling(
    rows: &[Vec<String>],
    cap: usize,
    queries: usize,
    pairs_among: usize,
    triples_among: usize,
    shown: impl Fn(&[&str], &mut Vec<usize>),
) -> Vec<usize> {
    let mut postings: HashMap<&str, Vec<usize>> = HashMap::new();
    for (at, words) in rows.iter().enumerate() {
        for word in words {
            let list = postings.entry(word.as_str()).or_default();
            if list.last() != Some(&at) {
                list.push(at);
            }
        }
    }
    let mut by_frequency: Vec<&str> = postings.keys().copied().collect();
    by_frequency.sort_by(|a, b| postings[b].len().cmp(&postings[a].len()).then(a.cmp(b)));
    let mut candidates: Vec<Vec<&str>> = by_frequency.iter().map(|w| vec![*w]).collect();
    let top = |n: usize| &by_frequency[..n.min(by_frequency.len())];
    for (i, a) in top(pairs_among).iter().enumerate() {
        for b in &top(pairs_among)[i + 1..] {
            candidates.push(vec![a, b]);
        }
    }
    for (i, a) in top(triples_among).iter().enumerate() {
        for (j, b) in top(triples_among).iter().enumerate().skip(i + 1) {
            for c in &top(triples_among)[j + 1..] {
                candidates.push(vec![a, b, c]);
            }
        }
    }
    let answers: Vec<Vec<usize>> = candidates
        .iter()
        .map(|words| {
            let mut matches = postings[words[0]].clone();
            for w in &words[1..] {
                let other = &postings[w];
                matches.retain(|at| other.binary_search(at).is_ok());
            }
            shown(words, &mut matches);
            matches.truncate(cap);
            matches
        })
        .collect();
    let mut reached = vec![false; rows.len()];
    let mut heap: BinaryHeap<(usize, usize)> = answers
        .iter()
        .enumerate()
        .map(|(i, a)| (a.len(), i))
        .collect();
    let mut curve = Vec::new();
    let mut total = 0;
    while curve.len() < queries {
        let Some((gain, i)) = heap.pop() else { break };
        let now = answers[i].iter().filter(|&&r| !reached[r]).count();
        if now < gain {
            heap.push((now, i));
            continue;
        }
        for &r in &answers[i] {
            reached[r] = true;
        }
        total += now;
        curve.push(total);
    }
    curve
}
