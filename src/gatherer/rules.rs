//! A source's rules as the database keeps them, and their reading of the
//! kept result pages again when they changed ([`reextract`]).

use super::extraction::extract_kept;
use crate::fragment::IndexFragment;
use crate::hel::Rule;
use crate::record::{Record, RecordRules};
use crate::store::{SourceId, Store, StoreError};

/// A source's rules as the store keeps them: attribute, rule as written,
/// `DB.Result` prefix, in document order (the order of the records'
/// fields, whichever process reads them back); then `{"header_rows":
/// false}` when `DB.HeaderRows` is NO.
pub fn rules_json(rules: &[(String, Rule)], header_rows: bool) -> String {
    let mut list: Vec<serde_json::Value> = rules
        .iter()
        .map(|(attribute, rule)| {
            serde_json::json!({
                "attribute": attribute,
                "rule": rule.source(),
                "prefix": rule.prefix(),
            })
        })
        .collect();
    if !header_rows {
        list.push(serde_json::json!({ "header_rows": false }));
    }
    serde_json::Value::Array(list).to_string()
}

/// Whether two texts of [`rules_json`] hold different rules, in whatever
/// order (a database from before kept them by attribute).
pub(super) fn rules_differ(a: &str, b: &str) -> bool {
    let sorted = |json: &str| {
        let mut list: Vec<String> = serde_json::from_str::<Vec<serde_json::Value>>(json)
            .map(|l| l.iter().map(ToString::to_string).collect())
            .unwrap_or_else(|_| vec![json.to_string()]);
        list.sort();
        list
    };
    sorted(a) != sorted(b)
}

/// Whether the rules [`rules_json`] wrote let header rows head records
/// (`DB.HeaderRows`); yes when the text says nothing.
pub fn header_rows_from_json(json: &str) -> bool {
    let list: Vec<serde_json::Value> = serde_json::from_str(json).unwrap_or_default();
    !list.iter().any(|v| v["header_rows"] == false)
}

/// The rules [`rules_json`] wrote.
pub fn rules_from_json(json: &str) -> Result<Vec<(String, Rule)>, String> {
    let list: Vec<serde_json::Value> =
        serde_json::from_str(json).map_err(|e| format!("stored rules: {e}"))?;
    list.iter()
        .filter(|v| v.get("header_rows").is_none())
        .map(|v| {
            let attribute = v["attribute"]
                .as_str()
                .ok_or("stored rules: no attribute")?;
            let text = v["rule"].as_str().ok_or("stored rules: no rule")?;
            let rule = Rule::parse_with_prefix(text, v["prefix"].as_str())
                .map_err(|e| format!("stored rule for {attribute}: {e}"))?;
            Ok((attribute.to_string(), rule))
        })
        .collect()
}

/// Applies `rules` to the kept result pages of the source's done queries,
/// in place of the values and records its queries had found: no request is
/// sent.
/// `header_rows`: whether rows one rule reads alone head records
/// (`DB.HeaderRows`). Returns the pages read and the values the source's
/// queries now have.
pub fn reextract(
    store: &mut Store,
    source: SourceId,
    rules: &[(String, Rule)],
    header_rows: bool,
) -> Result<(u64, u64), StoreError> {
    let pages = store.kept_pages(source)?;
    let record_rules = RecordRules::new(rules).with_header_rows(header_rows);
    // Each query's pages, as they were fetched one after the other.
    let by_query: Vec<(String, IndexFragment, Vec<Record>)> = pages
        .chunk_by(|a, b| a.query == b.query)
        .map(|answer| {
            let (fragment, records) = extract_kept(rules, &record_rules, answer);
            (answer[0].query.clone(), fragment, records)
        })
        .collect();
    let values = store.replace_query_values(source, &by_query)?;
    store.set_rules(source, &rules_json(rules, header_rows))?;
    Ok((pages.len() as u64, values))
}
