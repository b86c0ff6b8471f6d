//! Inputs chosen by what they return: the rows of every answer, each
//! input's verdict, and the template chosen (query elements, refinement
//! elements, a text field's domain).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::default::RowReader;
use super::plan_text::{answer, describe_values};
use super::{Answers, Chosen, Input, ProbeReport, Sent, Verdict, PROBE_DIGIT, WILDCARDS};
use crate::hel::Rule;
use crate::induce::{induce, Algorithm, InduceError, Induction};
use crate::page::Page;
use crate::spec::Values;

/// The distinct answers among those sent, and the rows of every answer
/// by the rule that reads the most rows on them; or why there are none.
pub(super) fn answers_rows(sent: &[Sent]) -> Result<Answers, InduceError> {
    let ok: Vec<usize> = (0..sent.len())
        .filter(|&i| (200..300).contains(&sent[i].status))
        .collect();
    let distinct = distinct_answers(sent, &ok);
    let no_rows = vec![BTreeSet::new(); sent.len()];
    if distinct.len() < 2 {
        return Ok(Answers {
            distinct,
            rows: no_rows,
            reason: "every probe got the same answer: no input changes what the form returns",
        });
    }
    let pages: Vec<Page> = distinct.iter().map(|&i| sent[i].page.clone()).collect();
    let first = induce(&pages, Algorithm::Approximate)?;
    let Some(row_rule) = row_rule(&first) else {
        // Nothing to compare with (one answer lists rows, the others are
        // empty): the records each answer lists as a page of its own.
        if let Some(rows) = listed_rows(sent) {
            return Ok(Answers {
                distinct,
                rows,
                reason: "",
            });
        }
        return Ok(Answers {
            distinct,
            rows: no_rows,
            reason: "no rule reads a list of rows on the answers",
        });
    };
    let rows = sent
        .iter()
        .map(|s| {
            if (200..300).contains(&s.status) {
                row_rule.eval(&s.page).flatten().into_iter().collect()
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    Ok(Answers {
        distinct,
        rows,
        reason: "",
    })
}

/// The rows of every answer by the rules of the answer that lists the
/// most records read alone ([`crate::listing`]), each row by its values;
/// `None` when no answer lists two records.
fn listed_rows(sent: &[Sent]) -> Option<Vec<BTreeSet<String>>> {
    let all: Vec<&Sent> = sent.iter().collect();
    let reader = listing_reader(&all)?;
    Some(sent.iter().map(|s| answer_rows(&reader, s)).collect())
}

/// The rows `reader` reads on an answer (none on a failed one).
fn answer_rows(reader: &RowReader, s: &Sent) -> BTreeSet<String> {
    match s.answer.as_ref().filter(|_| (200..300).contains(&s.status)) {
        Some((_, a)) => reader.rows(&s.page, a.url.as_str()),
        None => BTreeSet::new(),
    }
}

/// The reader of the records an answer lists read alone
/// ([`crate::listing`]) that lists the most records of the data: rows
/// every answer shows whatever was asked (the labels of the form's own
/// controls, a menu) are the template's, not the data's. `None` when no
/// answer lists two rows of the data.
fn listing_reader(answers: &[&Sent]) -> Option<RowReader> {
    let ok: Vec<&Sent> = answers
        .iter()
        .copied()
        .filter(|s| (200..300).contains(&s.status))
        .collect();
    let (reader, n) = ok
        .iter()
        .filter_map(|s| {
            let url = &s.answer.as_ref()?.1.url;
            let rules = crate::listing::Listing::read(&s.page, url).rules(&s.page)?;
            let reader = RowReader::new(rules).one_field_too();
            let rows: Vec<BTreeSet<String>> = ok.iter().map(|o| answer_rows(&reader, o)).collect();
            let mut everywhere = rows.first().cloned().unwrap_or_default();
            if rows.len() < 2 {
                everywhere.clear();
            }
            for r in &rows[1.min(rows.len())..] {
                everywhere.retain(|row| r.contains(row));
            }
            let n = rows
                .iter()
                .map(|r| r.difference(&everywhere).count())
                .max()
                .unwrap_or(0);
            Some((reader, n))
        })
        .max_by_key(|(_, n)| *n)?;
    (n >= 2).then_some(reader)
}

/// The records of the answers a source's rules are made from, as each
/// answer lists them read alone ([`crate::listing`]), when those rules
/// read records on every one of them: a person's reading of the result
/// list, which keeps a title whole where the query's words are
/// highlighted in it, and leaves the answers' summary and menus out.
pub(super) fn listed_records(training: &[&Sent]) -> Option<RowReader> {
    let reader = listing_reader(training)?;
    training
        .iter()
        .all(|s| !answer_rows(&reader, s).is_empty())
        .then_some(reader)
}

/// The answers (among `ok`) whose bodies differ, first of each.
fn distinct_answers(sent: &[Sent], ok: &[usize]) -> Vec<usize> {
    let mut seen: Vec<&[u8]> = Vec::new();
    let mut out = Vec::new();
    for &i in ok {
        if !seen.contains(&sent[i].body.as_slice()) {
            seen.push(&sent[i].body);
            out.push(i);
        }
    }
    out
}

/// The rule that reads the most rows: a rule over every row with the most
/// values, or `None`.
fn row_rule(induction: &Induction) -> Option<Rule> {
    induction
        .slots
        .iter()
        .filter(|s| s.rule.contains(":*]") || s.rule.contains("[*]"))
        .max_by_key(|s| {
            let distinct: BTreeSet<&String> = s.values.iter().flatten().collect();
            distinct.len()
        })
        .and_then(|s| Rule::parse(&s.rule).ok())
}

pub(super) fn judge(inputs: &[Input], sent: &[Sent], rows: &[BTreeSet<String>]) -> Vec<Verdict> {
    let default_rows = &rows[0];
    inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let mut sets: Vec<&BTreeSet<String>> = Vec::new();
            if !input.text {
                sets.push(default_rows);
            }
            for (s, r) in sent.iter().zip(rows) {
                if s.input == Some(i) {
                    sets.push(r);
                }
            }
            let non_empty: Vec<&BTreeSet<String>> =
                sets.iter().copied().filter(|r| !r.is_empty()).collect();
            let mut distinct: Vec<&BTreeSet<String>> = Vec::new();
            for r in &non_empty {
                if !distinct.contains(r) {
                    distinct.push(r);
                }
            }
            // Answers that only add rows to the default answer (a page
            // size) show more of the same; narrower ones (a filter) differ.
            let nested = distinct.len() >= 2
                && !input.text
                && !default_rows.is_empty()
                && distinct.iter().all(|a| default_rows.is_subset(a));
            let all: BTreeSet<&String> = non_empty.iter().flat_map(|r| r.iter()).collect();
            let informative = distinct.len() >= 2 && !nested;
            let why = if non_empty.is_empty() {
                format!("all {} answers were empty", sets.len())
            } else if distinct.len() < 2 {
                format!(
                    "its {} answers held the same rows ({} non-empty)",
                    sets.len(),
                    non_empty.len()
                )
            } else if nested {
                "its answers only showed more of the same rows".into()
            } else {
                format!(
                    "{} of its {} answers held different rows ({} rows in all)",
                    distinct.len(),
                    sets.len(),
                    all.len()
                )
            };
            Verdict {
                informative,
                variety: distinct.len(),
                rows: all.len(),
                why,
            }
        })
        .collect()
}

pub(super) fn choose(
    inputs: &[Input],
    verdicts: &[Verdict],
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Option<Chosen> {
    let informative = |i: &usize| verdicts[*i].informative;
    let selects: Vec<usize> = (0..inputs.len()).filter(|&i| !inputs[i].text).collect();
    let partition: Vec<usize> = selects
        .iter()
        .copied()
        .filter(informative)
        .filter(|&i| !inputs[i].any)
        .collect();
    let filters: Vec<usize> = selects
        .iter()
        .copied()
        .filter(|&i| inputs[i].any && inputs[i].choices.len() > 2)
        .collect();
    if !partition.is_empty() {
        let why = if partition.len() == 1 {
            "informative, and no choice of it means \"any\": its values partition the rows".into()
        } else {
            "informative, with no choice meaning \"any\": no one of them reaches the rows alone, so they are queried together".into()
        };
        let refine = filters
            .into_iter()
            .filter(|i| verdicts[*i].informative)
            .collect();
        return Some(Chosen {
            query: partition,
            refine,
            domains: Vec::new(),
            why,
            beside: Vec::new(),
        });
    }
    if let Some(t) = (0..inputs.len()).find(|&i| inputs[i].text && verdicts[i].rows > 0) {
        let (why, domain) = text_field(&inputs[t], t, sent, rows);
        let beside = beside_text(inputs, t, sent, rows);
        let mut query: Vec<usize> = beside.iter().map(|(s, _)| *s).collect();
        query.push(t);
        return Some(Chosen {
            query,
            refine: filters,
            domains: vec![(inputs[t].name.clone(), domain)],
            why,
            beside,
        });
    }
    let best = selects
        .iter()
        .copied()
        .filter(informative)
        .max_by_key(|&i| (verdicts[i].variety, verdicts[i].rows))?;
    Some(Chosen {
        query: vec![best],
        refine: filters.into_iter().filter(|&i| i != best).collect(),
        domains: Vec::new(),
        why: "its answers vary the most among the informative inputs".into(),
        beside: Vec::new(),
    })
}

/// A text field as the query element: a prefix with the wildcard whose
/// probes brought rows, else a keyword field seeded with the words that
/// brought rows and the form page's words (module docs, point 3).
fn text_field(
    input: &Input,
    t: usize,
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> (String, Values) {
    let rows_of = |value: &str| probe_rows(sent, rows, t, value);
    for w in WILDCARDS {
        let found: Vec<(String, usize)> = sent
            .iter()
            .filter(|s| s.input == Some(t) && s.values.len() == 1)
            .map(|s| s.values[0].1.clone())
            .filter(|p| p.chars().count() == 2 && p.ends_with(w))
            .map(|p| {
                let n = rows_of(&p);
                (p, n)
            })
            .collect();
        let letters = found.iter().any(|(p, n)| {
            *n > 0 && !p.starts_with(PROBE_DIGIT) && super::probe::brings_prefix(sent, rows, t, p)
        });
        if letters {
            let digits = rows_of(&format!("{PROBE_DIGIT}{w}")) > 0;
            let shown: Vec<String> = found.iter().map(|(p, n)| format!("{p} {n} rows")).collect();
            let escaped = if w == '*' {
                "\\*".to_string()
            } else {
                w.to_string()
            };
            let (class, queried) = if digits {
                ("A-Z0-9", "every letter and digit".to_string())
            } else {
                (
                    "A-Z",
                    format!("every letter ({PROBE_DIGIT}{w} brought no row, so the digits are left out)"),
                )
            };
            return (
                format!(
                    "a prefix search: {}; queried with {queried} followed by {w}",
                    shown.join(", ")
                ),
                Values::One(format!("/[{class}]{escaped}/")),
            );
        }
    }
    // The words sent that brought rows: the form page's, and the site's
    // pages' where those brought none.
    let mut working: Vec<&String> = input
        .probes
        .iter()
        .filter(|p| !p.ends_with(WILDCARDS) && rows_of(p) > 0)
        .collect();
    let of_page = working.len();
    for s in sent
        .iter()
        .filter(|s| s.input == Some(t) && s.values.len() == 1)
    {
        let w = &s.values[0].1;
        if !w.ends_with(WILDCARDS) && !working.contains(&w) && rows_of(w) > 0 {
            working.push(w);
        }
    }
    // The page's words that were not probed are left to the learner: it
    // ranks them with the words of the answers, by the rows they promise.
    let domain: Vec<String> = working.iter().map(|w| w.to_string()).collect();
    let shown = |words: &[&String]| {
        words
            .iter()
            .map(|w| format!("{w:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let words = match working.split_at(of_page) {
        (page, []) => format!("the words {} of the form page", shown(page)),
        ([], site) => format!(
            "no word of the form page; the words {} of the site's pages or of the rows found",
            shown(site)
        ),
        (page, site) => format!(
            "the words {} of the form page and {} of the site's pages or of the rows found",
            shown(page),
            shown(site)
        ),
    };
    (
        format!(
            "a keyword field: {words} brought rows, prefixes with % or * did not; queried with those, further words are learned from the answers"
        ),
        Values::List(domain),
    )
}

pub(super) fn names(inputs: &[Input], which: &[usize]) -> String {
    which
        .iter()
        .map(|&i| inputs[i].name.as_str())
        .collect::<Vec<_>>()
        .join(" × ")
}

/// Everything tried, for the error that says nothing was found.
pub(super) fn tried(inputs: &[Input], sent: &[Sent], rows: &[BTreeSet<String>]) -> String {
    let mut out = String::new();
    let listed: Vec<String> = inputs
        .iter()
        .map(|i| format!("{} ({})", i.name, i.kind))
        .collect();
    let _ = writeln!(out, "  inputs: {}", listed.join(", "));
    for (s, r) in sent.iter().zip(rows) {
        let report = ProbeReport {
            values: s.values.clone(),
            rows: r.len(),
            status: s.status,
        };
        let _ = writeln!(
            out,
            "  probe {}: {}",
            describe_values(&s.values),
            answer(&report)
        );
    }
    out.trim_end().to_string()
}

/// The selects that, with text field `t` filled, brought rows other than
/// the text field's probe alone ([`selects_beside_text`]), each with why.
fn beside_text(
    inputs: &[Input],
    t: usize,
    sent: &[Sent],
    rows: &[BTreeSet<String>],
) -> Vec<(usize, String)> {
    let text = &inputs[t].name;
    let mut out = Vec::new();
    for s in 0..inputs.len() {
        let filled: Vec<(&Sent, &BTreeSet<String>)> = sent
            .iter()
            .zip(rows)
            .filter(|(x, _)| x.input == Some(s) && x.values.iter().any(|(k, _)| k == text))
            .collect();
        let Some((probe, found)) = filled.first() else {
            continue;
        };
        let Some((_, value)) = probe.values.iter().find(|(k, _)| k == text) else {
            continue;
        };
        // Other rows than the field alone brought (none at all, too), and
        // not only more of them (a page size).
        let alone = probe_rows_set(sent, rows, t, value);
        if alone.is_some_and(|a| a != *found && !a.is_subset(found)) {
            out.push((
                s,
                format!(
                    "its answers were empty while {text} was; with {text}={value:?} its value {:?} brought {} rows, the field alone {}: its values partition the rows, queried together with {text}",
                    probe.values[0].1,
                    found.len(),
                    alone.map_or(0, BTreeSet::len)
                ),
            ));
        }
    }
    out
}

/// The rows of input `i`'s probe alone with `value`, when sent.
fn probe_rows_set<'a>(
    sent: &[Sent],
    rows: &'a [BTreeSet<String>],
    i: usize,
    value: &str,
) -> Option<&'a BTreeSet<String>> {
    sent.iter()
        .zip(rows)
        .find(|(s, _)| s.input == Some(i) && s.values.len() == 1 && s.values[0].1 == value)
        .map(|(_, r)| r)
}

/// Rows the probe of input `i` with `value` brought (0 when not sent).
pub(super) fn probe_rows(sent: &[Sent], rows: &[BTreeSet<String>], i: usize, value: &str) -> usize {
    sent.iter()
        .zip(rows)
        .find(|(s, _)| s.input == Some(i) && s.values.iter().any(|(_, v)| v == value))
        .map_or(0, |(_, r)| r.len())
}
