//! The slots' values without their template words, and their names: from
//! the probes, the form's choices, the page (a column header, a term, a
//! label) or the template words cut off.

use std::collections::BTreeSet;

use super::probe::means_any;
use super::{Input, Sent};
use crate::form::{ElementKind, Form};
use crate::hel::Rule;
use crate::induce::{Induction, Slot};
use crate::page::{Page, PCDATA};

/// Whether a slot, one value per answer, is the answer's summary: on
/// every answer to a text field's value its value holds that value (the
/// query's words) but is more than it ("41 openings for “analyst”"). Such
/// a line is new on every answer, and would make every query look as if
/// it found something.
pub(super) fn echoes_query(slot: &Slot, sent: &[&Sent], inputs: &[Input]) -> bool {
    if over_rows(slot) {
        return false;
    }
    let mut seen = false;
    for (values, s) in slot.values.iter().zip(sent) {
        let texts: Vec<String> = s
            .values
            .iter()
            .filter(|(k, _)| inputs.iter().any(|i| i.text && i.name == *k))
            .map(|(_, v)| v.to_lowercase())
            .filter(|v| !v.is_empty())
            .collect();
        if texts.is_empty() {
            continue;
        }
        for v in values {
            let lower = v.to_lowercase();
            if texts
                .iter()
                .any(|t| lower == *t || !lower.contains(t.as_str()))
            {
                return false;
            }
            seen = true;
        }
    }
    seen
}

/// Whether a slot, one value per answer, is the total each answer states
/// ("2 quotations found (1–2 of 2)", "Jobs 1-20 of 100"), as
/// [`crate::listing::Listing`] reads it on the page: the answer's summary,
/// a counter of the query, not a value of the data.
pub(super) fn states_total(slot: &Slot, pages: &[Page], sent: &[&Sent]) -> bool {
    if over_rows(slot) {
        return false;
    }
    let mut seen = false;
    for ((values, page), s) in slot.values.iter().zip(pages).zip(sent) {
        let (Some(first), Some((_, answer))) = (values.first(), &s.answer) else {
            continue;
        };
        let Some(total) = crate::listing::Listing::read(page, &answer.url).total else {
            return false;
        };
        let stated = crate::fragment::normalize(&total.text);
        if stated.is_empty() || !crate::fragment::normalize(first).contains(&stated) {
            return false;
        }
        seen = true;
    }
    seen
}

/// Names the slots that show a probe's value (module docs, point 5).
pub(super) fn name_by_probes(induction: &mut Induction, form: &Form, sent: &[&Sent]) {
    let mut elements: Vec<&String> = Vec::new();
    for s in sent {
        for (k, _) in &s.values {
            if !elements.contains(&k) {
                elements.push(k);
            }
        }
    }
    for element in elements {
        let Some(e) = form.element(element) else {
            continue;
        };
        let default = e.default_values().into_iter().next().unwrap_or_default();
        let shown: Vec<Vec<String>> = sent
            .iter()
            .map(|s| {
                let value = s
                    .values
                    .iter()
                    .find(|(k, _)| k == element)
                    .map_or(default.clone(), |(_, v)| v.clone());
                let mut texts = vec![value.clone()];
                if let Some(label) = label_of(form, element, &value) {
                    texts.push(label);
                }
                texts
            })
            .collect();
        induction.name_by_values(element, &shown);
    }
}

/// The visible label of an element's choice.
fn label_of(form: &Form, element: &str, value: &str) -> Option<String> {
    let e = form.element(element)?;
    let choices = match &e.kind {
        ElementKind::Select { options, .. } => options,
        ElementKind::Radio { choices } | ElementKind::Checkbox { choices } => choices,
        _ => return None,
    };
    choices
        .iter()
        .find(|c| c.value == value)
        .map(|c| c.label.clone())
}

/// The slot with its template words cut off (module docs, point 4), and
/// the words cut off in front.
pub(super) fn without_template_words(slot: &Slot, pages: &[Page]) -> (Slot, Option<String>) {
    let values: Vec<&String> = slot.values.iter().flatten().collect();
    let distinct: BTreeSet<&String> = values.iter().copied().collect();
    let Some((prefix, suffix)) = common_words(&values) else {
        return (slot.clone(), None);
    };
    // A label ("Preis:") splits template from data wherever it stands.
    let labelled = prefix.trim_end().ends_with(':');
    // Every row of the probes' answers starting with the same words is no
    // evidence: the probes' rows are a sample of the data, and a sample
    // may share a value ("USA, 1970: 6 cylinders" on every row of a
    // search for Chevrolets). Cut, the rows the gathering reads beyond
    // the sample lose their value ("Japan, …" matches nothing); kept
    // whole, the value loses nothing.
    if over_rows(slot) && !labelled {
        return (slot.clone(), None);
    }
    // One value an answer (a heading): the same words in front on answers
    // to different queries are template. Two values that happen to share
    // their first word are no evidence; a label, three values or two
    // words in front are.
    if distinct.len() < 3 && !labelled && prefix.split_whitespace().count() < 2 {
        return (slot.clone(), None);
    }
    // The label is evidence for the front only: the words every sampled
    // row ends with stay (a row's end is as much a sample as its front).
    let suffix = if over_rows(slot) { "" } else { suffix.as_str() };
    let pattern =
        format!("^{}(.+?){}$", regex::escape(&prefix), regex::escape(suffix)).replace('/', "\\x2F");
    // The refinement follows the property, before any condition.
    let (path, conditions) = match slot.rule.find(" WHERE ") {
        Some(at) => slot.rule.split_at(at),
        None => (slot.rule.as_str(), ""),
    };
    let rule = format!("{path}, match/{pattern}/{conditions}");
    let Ok(parsed) = Rule::parse(&rule) else {
        return (slot.clone(), None);
    };
    let cut: Vec<Vec<String>> = pages.iter().map(|p| parsed.eval(p).flatten()).collect();
    if cut.iter().map(Vec::len).sum::<usize>() != values.len() {
        return (slot.clone(), None);
    }
    let cut_slot = Slot {
        rule,
        values: cut,
        ..slot.clone()
    };
    (cut_slot, Some(prefix.trim().to_string()))
}

/// Whether a slot's rule reads the rows of an answer (a `[*]` rule), not
/// one value per answer.
fn over_rows(slot: &Slot) -> bool {
    slot.rule.contains("[*]") || slot.rule.contains(":*]")
}

/// The words every value starts with (up to a space) and the words of
/// two or more every value ends with (from a space); `None` when there
/// are no words in front.
pub(super) fn common_words(values: &[&String]) -> Option<(String, String)> {
    let first = values.first()?;
    let mut prefix: &str = first;
    let mut suffix: &str = first;
    for v in values {
        while !v.starts_with(prefix) {
            prefix = &prefix[..prefix.char_indices().last()?.0];
        }
        while !v.ends_with(suffix) {
            let second = suffix
                .char_indices()
                .nth(1)
                .map_or(suffix.len(), |(i, _)| i);
            suffix = &suffix[second..];
        }
    }
    // Cut back to whole words: the prefix ends with a space.
    let prefix = match prefix.rfind(' ') {
        Some(i) => &prefix[..=i],
        None => "",
    };
    let suffix = match suffix.find(' ') {
        Some(i) => &suffix[i..],
        None => "",
    };
    let suffix = if suffix.split_whitespace().count() >= 2 {
        suffix
    } else {
        ""
    };
    let longest = values.iter().map(|v| v.len()).min().unwrap_or(0);
    if prefix.trim().is_empty() || prefix.len() + suffix.len() >= longest {
        return None;
    }
    Some((prefix.to_string(), suffix.to_string()))
}

/// The form field whose choices (values or labels) hold every value of the slot.
pub(super) fn name_by_choices(form: &Form, slot: &Slot) -> Option<String> {
    let values: BTreeSet<&String> = slot.values.iter().flatten().collect();
    if values.is_empty() {
        return None;
    }
    form.elements.iter().find_map(|e| {
        let choices = match &e.kind {
            ElementKind::Select { options, .. } => options,
            ElementKind::Radio { choices } | ElementKind::Checkbox { choices } => choices,
            _ => return None,
        };
        let holds = values.iter().all(|v| {
            choices
                .iter()
                .any(|c| !means_any(c) && (c.label.trim() == v.as_str() || c.value == **v))
        });
        holds.then(|| e.name.clone())
    })
}

/// The name the page gives the slot's first value: the column header over
/// it, the definition-list term before it, or a label before it.
pub(super) fn name_on_page(pages: &[Page], slot: &Slot) -> Option<String> {
    let (p, value) = slot
        .values
        .iter()
        .enumerate()
        .find_map(|(p, vs)| vs.first().map(|v| (p, v)))?;
    let page = &pages[p];
    let node = page
        .node_ids()
        .find(|&n| page.label_of(n) == PCDATA && page.text_of(n).contains(value.as_str()))?;
    let mut node = crate::locate::widest_with_same_text(page, node, &page.text_of(node));
    if page.label_of(node) == PCDATA {
        node = page.parent(node)?;
    }
    let cell = std::iter::once(node)
        .chain(page.ancestors(node))
        .find(|&n| matches!(page.label_name(n), "td" | "th" | "dd"))?;
    let parent = page.parent(cell)?;
    let siblings: Vec<_> = page
        .children(parent)
        .filter(|&c| page.label_of(c) != PCDATA)
        .collect();
    let at = siblings.iter().position(|&c| c == cell)?;
    // A two-column table of facts: the cell before the value names it.
    if page.label_name(cell) == "td" && siblings.len() == 2 && at == 1 {
        let label = page.text_of(siblings[0]);
        if !label.is_empty() && label.chars().count() <= 40 {
            return Some(label);
        }
    }
    if page.label_name(cell) == "dd" {
        return siblings[..at]
            .iter()
            .rev()
            .find(|&&c| page.label_name(c) == "dt")
            .map(|&c| page.text_of(c));
    }
    // The header row: the first row of the table whose cells are `th`.
    let table = page
        .ancestors(cell)
        .find(|&n| page.label_name(n) == "table")?;
    let header = page.node_ids().skip_while(|&n| n != table).find(|&n| {
        page.label_name(n) == "tr" && page.children(n).any(|c| page.label_name(c) == "th")
    })?;
    let cells: Vec<_> = page
        .children(header)
        .filter(|&c| matches!(page.label_name(c), "td" | "th"))
        .collect();
    cells
        .get(at)
        .map(|&c| page.text_of(c))
        .filter(|t| !t.is_empty())
}

/// A name from the words in front of a value: a label before a colon, or
/// the last capitalised word of a phrase ("…im Landkreis"). A word alone,
/// or one that ends in a comma or a full stop ("USA, 1970"), is a value
/// of its own, not the name of what follows.
pub(super) fn name_of_words(words: &str) -> Option<String> {
    if let Some(label) = words.trim().strip_suffix(':') {
        return Some(label.trim().to_string());
    }
    let words: Vec<&str> = words.split_whitespace().collect();
    let [.., _, last] = words[..] else {
        return None;
    };
    (last.chars().next().is_some_and(char::is_uppercase) && last.chars().all(char::is_alphabetic))
        .then(|| last.to_string())
}

/// A page's words as an attribute name: lower case, umlauts spelled out,
/// words joined by `_`.
pub(super) fn attribute_name(text: &str) -> String {
    let mut out = String::new();
    for c in text.trim().to_lowercase().chars() {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            c if c.is_ascii_alphanumeric() => out.push(c),
            _ if !out.ends_with('_') && !out.is_empty() => out.push('_'),
            _ => {}
        }
    }
    out.trim_end_matches('_').to_string()
}

pub(super) fn unique(name: String, used: &[String]) -> String {
    if !used.contains(&name) {
        return name;
    }
    (2..)
        .map(|n| format!("{name}_{n}"))
        .find(|n| !used.contains(n))
        .unwrap_or(name)
}

/// A line that tells how the answer was made, not what it holds: a
/// timing ("Queries took 46.8 ms", "generated in 0.21 s").
static TIMING: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)\b(took|taken|generated|rendered|served|executed|time|zeit|dauer|in)\b[^0-9]{0,20}\d+(?:[.,]\d+)?\s*(ms|msec|milliseconds?|s|secs?|seconds?|sek|sekunden)\b",
    )
    .expect("a valid regex")
});

/// Whether a slot holds no value of the data: a timing line on any
/// answer, a pager's links, or (not a rule over rows) one value, the same on every one of
/// three answers or more.
pub(super) fn does_not_vary(slot: &Slot) -> bool {
    let all: Vec<&String> = slot.values.iter().flatten().collect();
    if all.iter().any(|v| TIMING.is_match(v)) {
        return true;
    }
    // A pager's link ("Next ›", "« Previous").
    if !all.is_empty()
        && all.iter().all(|v| {
            matches!(
                crate::links::pager_label(v),
                crate::links::Label::Next | crate::links::Label::Previous
            )
        })
    {
        return true;
    }
    !over_rows(slot)
        && slot.values.len() >= 3
        && slot.values.iter().all(|v| v.len() == 1)
        && all.windows(2).all(|w| w[0] == w[1])
}
