//! The ceiling of a keyword search whose answers are capped: how many rows
//! any sequence of word queries could reach, found by the greedy choice
//! with the whole database known (each query the one that reaches the most
//! rows not yet reached). A learner that knows only what it gathered is
//! measured against it.

use std::collections::{BinaryHeap, HashMap};

/// One greedy query: its words, the rows it reached first, the rows
/// reached so far.
#[derive(Debug, Clone)]
pub(super) struct Step {
    pub words: String,
    pub new: usize,
    pub total: usize,
}

/// The first `queries` greedy queries.
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
) -> Vec<Step> {
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
        curve.push(Step {
            words: candidates[i].join(" "),
            new: now,
            total,
        });
    }
    curve
}

/// Prints the first `n` queries of a gathering (the gatherer database
/// `db`, the new values of `attribute` each brought) beside the greedy
/// ceiling's `steps`: the words, the database's rows that hold them all
/// (`rows`, each a row's words), the new rows; then both summed up by
/// kind of query, by the rows a query brought and by the words' rows in
/// the database.
pub(super) fn trace(
    db: &std::path::Path,
    attribute: &str,
    rows: &[Vec<String>],
    steps: &[Step],
    n: usize,
) -> Result<(), String> {
    let sent = queries_sent(db, attribute)?;
    let in_database = |words: &str| {
        let words: Vec<String> = words.split_whitespace().map(str::to_lowercase).collect();
        rows.iter()
            .filter(|row| words.iter().all(|w| row.contains(w)))
            .count()
    };
    println!("  query | knowing the database: words (rows) +new | gathering: words (rows) +new");
    let ceiling: Vec<(String, usize)> = steps.iter().map(|s| (s.words.clone(), s.new)).collect();
    for i in 0..n.min(steps.len().max(sent.len())) {
        let side = |list: &[(String, usize)]| {
            list.get(i).map_or(String::new(), |(w, new)| {
                format!("{w} ({}) +{new}", in_database(w))
            })
        };
        println!("  {:>5} | {:<40} | {}", i + 1, side(&ceiling), side(&sent));
    }
    for (who, list) in [("knowing the database", &ceiling), ("gathering", &sent)] {
        let list = &list[..n.min(list.len())];
        let mut by_kind: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
        for (words, new) in list {
            let rows = in_database(words);
            let band = match rows {
                0 => "0",
                1..=9 => "1-9",
                10..=49 => "10-49",
                50..=199 => "50-199",
                _ => "200+",
            };
            let brought = match new {
                0 => "0",
                1..=4 => "1-4",
                5..=19 => "5-19",
                _ => "20+",
            };
            let words = words.split_whitespace().count();
            for key in [
                format!("{words} word(s)"),
                format!("rows in the database {band}"),
                format!("new rows {brought}"),
            ] {
                let entry = by_kind.entry(key).or_default();
                entry.0 += 1;
                entry.1 += new;
            }
        }
        println!("  {who}, first {} queries:", list.len());
        for (key, (queries, new)) in by_kind {
            println!("    {key}: {queries} queries, {new} new rows");
        }
    }
    Ok(())
}

/// The queries stored in the gatherer database `db`, in the order they
/// were sent: each one's words (its description where it has no values)
/// and the new values of `attribute` it brought.
pub(super) fn queries_sent(
    db: &std::path::Path,
    attribute: &str,
) -> Result<Vec<(String, usize)>, String> {
    let conn = rusqlite::Connection::open(db).map_err(|e| e.to_string())?;
    let mut stmt = conn
        .prepare(
            "SELECT q.query_values, q.description, count(v.id) FROM queries q
             LEFT JOIN attribute_values v ON v.query_key = q.key AND v.attribute = ?1
             GROUP BY q.id ORDER BY q.ordinal, q.id",
        )
        .map_err(|e| e.to_string())?;
    let sent = stmt
        .query_map([attribute], |r| {
            let values: Option<String> = r.get(0)?;
            let description: String = r.get(1)?;
            let new: i64 = r.get(2)?;
            Ok((values, description, new))
        })
        .map_err(|e| e.to_string())?
        .map(|row| {
            let (values, description, new) = row.map_err(|e| e.to_string())?;
            let words = values
                .and_then(|v| serde_json::from_str::<Vec<(String, String)>>(&v).ok())
                .map(|v| v.into_iter().map(|(_, w)| w).collect::<Vec<_>>().join(" "))
                .unwrap_or(description);
            Ok((words, usize::try_from(new).unwrap_or(0)))
        })
        .collect();
    sent
}
