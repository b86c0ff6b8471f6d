//! Records: the values of one row of a result page that belong together —
//! a hotel with its town, price and id — where the index fragments keep
//! every attribute as a separate set.
//!
//! Which rules make records (the rules of one source, in document order):
//!
//! - Every rule whose path has a multi-valued step (`[*]`, `[a-b]`, `[n,m]`,
//!   `[v:*]`; before its fork, if it ends in one) is over the rows of its
//!   *first* multi-valued step: the elements of the top-level list of its
//!   value. Its [`RowKey`](crate::hel::RowKey) is its path up to and
//!   including that step — same axes, labels and indexes after the
//!   `DB.Result` prefix is applied, and the same `WHERE` conditions for the
//!   variables used there, whatever the variables are called.
//! - Rules with the same row key form a **record group**; the group makes
//!   records when it has two rules or more, or when one of its rules ends in
//!   a fork. Row k of every rule of the group makes record k of the page.
//! - A rule without a fork gives its record one field named after its
//!   attribute; a rule ending in a fork `( … # … )` gives one field per
//!   branch, named `attribute.0`, `attribute.1`, … A field holds the row's
//!   strings flattened in document order (nulls and empty strings dropped,
//!   each normalized as values are, see [`crate::fragment::normalize`]): a
//!   string for one value, a list for several, no field for none. A name
//!   that is already a field of the record (an attribute called `hotel.0`
//!   next to a fork rule `hotel`) keeps its first value.
//! - A rule that is alone in its group without a fork, or has no
//!   multi-valued step, makes no records. Every rule's values stay
//!   attribute values as well.
//! - A row none of whose fields has a value makes no record.
//!
//! So `tr[j:*].td[1].b.txt WHERE tr[j].td[0].small.input.getAttr(name) =
//! 'hotel_id'` and `tr[k:*].td[2].txt WHERE tr[k].td[0].small.input.getAttr(name)
//! = 'hotel_id'` give one record per hotel row with both fields, while a rule
//! over the same table with another condition (the town rows) is a group of
//! its own.

use std::collections::HashMap;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;

use crate::fragment::normalize;
use crate::hel::{Nsl, Rule};

/// The value of one field: one string, or several.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Field {
    One(String),
    Many(Vec<String>),
}

impl Field {
    /// The field's strings.
    pub fn values(&self) -> &[String] {
        match self {
            Field::One(s) => std::slice::from_ref(s),
            Field::Many(v) => v,
        }
    }
}

/// A record's fields in the order of the rules; serialised as a JSON object
/// in that order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, Field)>);

impl Fields {
    /// The field called `name`.
    pub fn get(&self, name: &str) -> Option<&Field> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, f)| f)
    }

    /// The fields as a JSON object, in their order (the form the store keeps
    /// and compares).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string())
    }

    /// Reads fields written by [`Fields::to_json`], keeping their order.
    pub fn from_json(json: &str) -> Result<Fields, serde_json::Error> {
        serde_json::from_str(json)
    }
}

impl serde::Serialize for Fields {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, field) in &self.0 {
            map.serialize_entry(name, field)?;
        }
        map.end()
    }
}

impl<'de> serde::Deserialize<'de> for Fields {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Fields;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of fields")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Field>()? {
                    out.push(entry);
                }
                Ok(Fields(out))
            }
        }
        deserializer.deserialize_map(InOrder)
    }
}

/// One record found on a result page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The URL of the result page.
    pub page: String,
    /// The row's position among the rows of its group on the page (0-based;
    /// rows without a value count too).
    pub ordinal: u64,
    pub fields: Fields,
}

/// One rule of a record group: its position among the source's rules, and
/// the names of the fields it gives.
#[derive(Debug, Clone)]
struct Member {
    rule: usize,
    names: Vec<String>,
}

/// The record groups of one source's rules (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct RecordRules {
    groups: Vec<Vec<Member>>,
}

impl RecordRules {
    /// The record groups of `rules` (attribute, rule), in the order of each
    /// group's first rule.
    pub fn new(rules: &[(String, Rule)]) -> RecordRules {
        let mut groups: Vec<Vec<Member>> = Vec::new();
        let mut by_key = HashMap::new();
        for (i, (attribute, rule)) in rules.iter().enumerate() {
            let Some(key) = rule.row_key() else {
                continue;
            };
            let names = match rule.fork_width() {
                None => vec![attribute.clone()],
                Some(width) => (0..width).map(|b| format!("{attribute}.{b}")).collect(),
            };
            let group = *by_key.entry(key).or_insert_with(|| {
                groups.push(Vec::new());
                groups.len() - 1
            });
            groups[group].push(Member { rule: i, names });
        }
        groups.retain(|members| {
            members.len() > 1
                || members
                    .iter()
                    .any(|m| rules[m.rule].1.fork_width().is_some())
        });
        RecordRules { groups }
    }

    /// Whether no rule makes records.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The field names of each group's records, groups in order (what
    /// `gather plan` shows).
    pub fn fields(&self) -> Vec<Vec<String>> {
        self.groups
            .iter()
            .map(|g| g.iter().flat_map(|m| m.names.iter().cloned()).collect())
            .collect()
    }

    /// The records of one page: `values[i]` is the value `rules[i]` (the
    /// rules given to [`RecordRules::new`]) had on the page at `page`.
    pub fn records(&self, rules: &[(String, Rule)], values: &[Nsl], page: &str) -> Vec<Record> {
        let mut out = Vec::new();
        for group in &self.groups {
            let rows: Vec<Vec<Vec<Vec<String>>>> = group
                .iter()
                .map(|m| match (rules.get(m.rule), values.get(m.rule)) {
                    (Some((_, rule)), Some(value)) => rule.row_fields(value),
                    _ => Vec::new(),
                })
                .collect();
            let count = rows.iter().map(Vec::len).max().unwrap_or(0);
            for k in 0..count {
                let mut fields: Vec<(String, Field)> = Vec::new();
                for (member, member_rows) in group.iter().zip(&rows) {
                    let Some(row) = member_rows.get(k) else {
                        continue;
                    };
                    for (name, strings) in member.names.iter().zip(row) {
                        if fields.iter().any(|(n, _)| n == name) {
                            continue;
                        }
                        let mut values: Vec<String> = strings
                            .iter()
                            .map(|s| normalize(s))
                            .filter(|s| !s.is_empty())
                            .collect();
                        let field = match values.len() {
                            0 => continue,
                            1 => Field::One(values.remove(0)),
                            _ => Field::Many(values),
                        };
                        fields.push((name.clone(), field));
                    }
                }
                if !fields.is_empty() {
                    out.push(Record {
                        page: page.to_string(),
                        ordinal: k as u64,
                        fields: Fields(fields),
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Page;

    fn rules(list: &[(&str, &str)]) -> Vec<(String, Rule)> {
        list.iter()
            .map(|(a, r)| (a.to_string(), Rule::parse(r).unwrap()))
            .collect()
    }

    const PAGE: &str = "<table>\
        <tr><td></td><td><font color=red>Binz</font></td></tr>\
        <tr><td><input name=id value=7></td><td><b>Haus  Meer</b></td><td>85 DM</td></tr>\
        <tr><td><input name=id value=9></td><td><b>Pension \"Möwe\", Binz</b></td><td></td></tr>\
        </table>";

    fn records(list: &[(&str, &str)]) -> Vec<Record> {
        let rules = rules(list);
        let page = Page::parse(PAGE);
        let values: Vec<Nsl> = rules.iter().map(|(_, r)| r.eval(&page)).collect();
        RecordRules::new(&rules).records(&rules, &values, "http://h/r")
    }

    fn one(s: &str) -> Field {
        Field::One(s.to_string())
    }

    #[test]
    fn rules_over_the_same_rows_make_records() {
        let cond = "WHERE html.body.table.tr[X].td[0].input.getAttr(name) = 'id'";
        let got = records(&[
            (
                "name",
                &format!("html.body.table.tr[i:*].td[1].b.txt {}", cond.replace('X', "i")),
            ),
            (
                "ort",
                "html.body.table.tr[j:*].td[1].font.txt WHERE html.body.table.tr[j].td[1].font.txt != ''",
            ),
            (
                "preis",
                &format!(
                    "html.body.table.tr[k:*].td[2].txt, match/[0-9]+/ {}",
                    cond.replace('X', "k")
                ),
            ),
            (
                "id",
                &format!(
                    "html.body.table.tr[k:*].td[0].input.getAttr(value) {}",
                    cond.replace('X', "k")
                ),
            ),
        ]);
        assert_eq!(
            got,
            vec![
                Record {
                    page: "http://h/r".into(),
                    ordinal: 0,
                    fields: Fields(vec![
                        ("name".into(), one("Haus Meer")),
                        ("preis".into(), one("85")),
                        ("id".into(), one("7")),
                    ]),
                },
                Record {
                    page: "http://h/r".into(),
                    ordinal: 1,
                    fields: Fields(vec![
                        ("name".into(), one("Pension \"Möwe\", Binz")),
                        ("id".into(), one("9")),
                    ]),
                },
            ]
        );
    }

    #[test]
    fn a_fork_makes_records_alone() {
        let got = records(&[("h", "html.body.table.tr[1-](.td[1].b.txt # .td[*].txt)")]);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].fields.get("h.0"), Some(&one("Haus Meer")));
        assert_eq!(
            got[0].fields.get("h.1"),
            Some(&Field::Many(vec!["Haus Meer".into(), "85 DM".into()]))
        );
        assert_eq!(got[1].ordinal, 1);
    }

    #[test]
    fn groups_name_their_fields() {
        let rules = rules(&[
            ("a", "html.body.table.tr[*].td[1].txt"),
            ("h", "html.body.table.tr[1-](.td[1].b.txt # .td[2].txt)"),
            ("b", "html.body.table.tr[*].td[2].txt"),
            ("c", "html.body.ul.li[*].txt"),
        ]);
        assert_eq!(
            RecordRules::new(&rules).fields(),
            vec![
                vec!["a".to_string(), "b".to_string()],
                vec!["h.0".to_string(), "h.1".to_string()]
            ]
        );
    }

    #[test]
    fn a_lone_rule_or_a_single_value_makes_none() {
        assert!(records(&[("a", "html.body.table.tr[*].td[1].txt")]).is_empty());
        assert!(records(&[
            ("a", "html.body.table.tr[1].td[1].txt"),
            ("b", "html.body.table.tr[1].td[2].txt"),
        ])
        .is_empty());
    }

    #[test]
    fn fields_keep_their_order_through_json() {
        let fields = Fields(vec![
            ("z".into(), one("1")),
            ("a".into(), Field::Many(vec!["x".into(), "y".into()])),
        ]);
        let json = fields.to_json();
        assert_eq!(json, r#"{"z":"1","a":["x","y"]}"#);
        assert_eq!(Fields::from_json(&json).unwrap(), fields);
    }
}
