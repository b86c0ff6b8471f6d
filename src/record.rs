//! Records: the values of one row of a result page that belong together —
//! a hotel with its town, price and id — where the index fragments keep
//! every attribute as a separate set.
//!
//! Records follow the page, not the wording of the rules. On every result
//! page the rules are evaluated, and every value keeps the element its
//! rule's *first* multi-valued step bound (`[*]`, `[a-b]`, `[n,m]`,
//! `[v:*]`; before a fork, if the rule ends in one): the `tr` of
//! `tr[j:*].td[1].txt`, the `div` of `div[v:*]`, the `td` of `->td[j:*]`.
//!
//! - **Rows.** Values bound to the same element make one record. Rules
//!   whose elements are siblings of one parent (the rows of one table, the
//!   items of one list) form a record group, whatever their `WHERE`
//!   conditions: `tr[j:*].td[1].b.txt WHERE tr[j].td[0]…` and
//!   `tr[k:*].td[2].txt WHERE tr[k].td[0]…` give one record per hotel row.
//! - **Cells.** Where rules bind different children of one element, each
//!   rule one child — the cells of a table row, read by `->td[j:*] WHERE
//!   ->td[j].getAttr(class) = 'title'` and the same with `'company'` — the
//!   element (the row) is the record's, and a rule binding one child per
//!   sibling of such rows (a category cell in a row of its own) reads rows
//!   too.
//! - **Page fields.** A rule without a multi-valued step (a region heading,
//!   a page title) has one value per page: it is a field of every record on
//!   the page.
//! - **Header rows.** In a group, a rule that never reads a row together
//!   with another rule and does not end in a fork (the town rule of the
//!   hotel guide, whose coloured rows hold the town alone) reads *header
//!   rows*: its value is a field of the records of the rows below it, up to
//!   its next header row. Where no rule of a group shares a row with
//!   another, the rule of the group's first row (in document order) is the
//!   header and the others make the records. `header_rows: no` in a spec
//!   (`DB.HeaderRows` = `no`) switches this off: then such rules make no
//!   records and are no fields of others.
//! - **Which rows make records.** A group makes records from the rows read
//!   by a rule that shares a row with another rule of the group, or that
//!   ends in a fork (a rule `tr[1-](.td[1].b.txt # .td[2].txt)` makes
//!   records alone). A rule alone in its group without a fork makes none,
//!   and neither does a row none of whose own fields has a value. Every
//!   rule's values stay attribute values as well.
//! - **Fields.** A rule without a fork gives its record one field named
//!   after its attribute; a rule ending in a fork gives one field per
//!   branch, named `attribute.0`, `attribute.1`, … A field holds the row's
//!   strings flattened in document order (nulls and empty strings dropped,
//!   each normalized as values are, see [`crate::fragment::normalize`]): a
//!   string for one value, a list for several, no field for none. Fields
//!   come in the order of the rules; a name that is already a field of the
//!   record (an attribute called `hotel.0` next to a fork rule `hotel`)
//!   keeps its first value.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;

use crate::fragment::normalize;
use crate::hel::{Nsl, RowNodes, Rule};
use crate::page::{NodeId, Page};

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

    /// The record's identity across gatherings (`gather refresh`): the
    /// first field named `id` (or ending in `_id`, `-id` or `.id`), else
    /// the first field whose first value is a link (`http://`, `https://`
    /// or a path from `/`), else the first field; as `name=value` with
    /// several values joined by a line break. A record whose key stays
    /// while another field changes is the same record, changed.
    pub fn key(&self) -> String {
        let is_id = |name: &str| {
            let name = name.to_ascii_lowercase();
            name == "id" || [".id", "_id", "-id"].iter().any(|end| name.ends_with(end))
        };
        let is_link = |field: &Field| {
            field.values().first().is_some_and(|v| {
                v.starts_with("http://") || v.starts_with("https://") || v.starts_with('/')
            })
        };
        let chosen = self
            .0
            .iter()
            .find(|(name, _)| is_id(name))
            .or_else(|| self.0.iter().find(|(_, field)| is_link(field)))
            .or_else(|| self.0.first());
        match chosen {
            Some((name, field)) => format!("{name}={}", field.values().join("\n")),
            None => String::new(),
        }
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

/// How one rule takes part in records.
#[derive(Debug, Clone)]
struct Member {
    /// The names of the fields it gives: its attribute, or one per branch
    /// of the fork it ends in.
    names: Vec<String>,
    /// Whether its path has a multi-valued step (its values lie in rows);
    /// without one, its value is a field of every record of the page.
    rows: bool,
    fork: bool,
}

/// How a source's rules make records (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct RecordRules {
    members: Vec<Member>,
    header_rows: bool,
}

/// A field of a record being built: the rule and fork branch it comes from
/// (the order of the fields), its name and value.
type Part = (usize, usize, String, Field);

/// One value's row: the rule, the element its row lies in, its fields.
struct Cell<'a> {
    rule: usize,
    element: NodeId,
    fields: Vec<Vec<&'a str>>,
}

impl RecordRules {
    /// How the rules `rules` (attribute, rule) make records, with header
    /// rows.
    pub fn new(rules: &[(String, Rule)]) -> RecordRules {
        let members = rules
            .iter()
            .map(|(attribute, rule)| Member {
                names: match rule.fork_width() {
                    None => vec![attribute.clone()],
                    Some(width) => (0..width).map(|b| format!("{attribute}.{b}")).collect(),
                },
                rows: rule.row_key().is_some(),
                fork: rule.fork_width().is_some(),
            })
            .collect();
        RecordRules {
            members,
            header_rows: true,
        }
    }

    /// The same, with header rows on or off (`DB.HeaderRows`).
    pub fn with_header_rows(mut self, on: bool) -> RecordRules {
        self.header_rows = on;
        self
    }

    /// Whether no page can give records: fewer than two rules read rows,
    /// and none of them ends in a fork.
    pub fn is_empty(&self) -> bool {
        let rows = self.members.iter().filter(|m| m.rows);
        rows.clone().count() < 2 && !rows.clone().any(|m| m.fork)
    }

    /// What `gather plan` shows: the fields records may take from rows,
    /// and those every record of a page has (rules without a multi-valued
    /// step); both empty when no page can give records.
    pub fn fields(&self) -> (Vec<String>, Vec<String>) {
        if self.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let names = |rows: bool| {
            self.members
                .iter()
                .filter(|m| m.rows == rows)
                .flat_map(|m| m.names.iter().cloned())
                .collect()
        };
        (names(true), names(false))
    }

    /// The records of one page: `values[i]` is the value `rules[i]` (the
    /// rules given to [`RecordRules::new`]) had on `page`, the page at
    /// `url`, and `rows[i]` the nodes its rows came from
    /// ([`Rule::evaluate_rows`]).
    pub fn records(
        &self,
        rules: &[(String, Rule)],
        values: &[Nsl],
        rows: &[RowNodes],
        page: &Page,
        url: &str,
    ) -> Vec<Record> {
        if self.is_empty() {
            return Vec::new();
        }
        let mut page_fields: Vec<Part> = Vec::new();
        let mut cells: Vec<Cell<'_>> = Vec::new();
        for (i, member) in self.members.iter().enumerate() {
            let (Some((_, rule)), Some(value)) = (rules.get(i), values.get(i)) else {
                continue;
            };
            if member.rows {
                let nodes = rows.get(i).map_or(&[][..], |r| &r.0[..]);
                for (fields, node) in rule.row_fields(value).into_iter().zip(nodes) {
                    if let Some(element) = *node {
                        cells.push(Cell {
                            rule: i,
                            element,
                            fields,
                        });
                    }
                }
            } else {
                let branches: Vec<Vec<String>> = match (member.fork, value) {
                    (true, Nsl::List(branches)) => branches.iter().map(Nsl::flatten).collect(),
                    (true, _) => Vec::new(),
                    (false, value) => vec![value.flatten()],
                };
                page_fields.extend(parts(i, &member.names, &branches));
            }
        }
        lift_cells(page, &mut cells);

        // Groups: the parent of the rows, then the rows in document order.
        let mut groups: BTreeMap<NodeId, BTreeMap<NodeId, Vec<usize>>> = BTreeMap::new();
        for (c, cell) in cells.iter().enumerate() {
            if let Some(parent) = page.parent(cell.element) {
                groups
                    .entry(parent)
                    .or_default()
                    .entry(cell.element)
                    .or_default()
                    .push(c);
            }
        }
        let mut out = Vec::new();
        for group in groups.values() {
            self.group_records(group, &cells, &page_fields, url, &mut out);
        }
        out
    }

    /// The records of `page` (at `url`): the rules evaluated on it, then
    /// [`RecordRules::records`].
    pub fn page_records(&self, rules: &[(String, Rule)], page: &Page, url: &str) -> Vec<Record> {
        let (values, rows): (Vec<Nsl>, Vec<RowNodes>) = rules
            .iter()
            .map(|(_, r)| {
                let (evaluation, rows) = r.evaluate_rows(page);
                (evaluation.value, rows)
            })
            .unzip();
        self.records(rules, &values, &rows, page, url)
    }

    /// The records of one group of rows (element → its cells).
    fn group_records(
        &self,
        group: &BTreeMap<NodeId, Vec<usize>>,
        cells: &[Cell<'_>],
        page_fields: &[Part],
        url: &str,
        out: &mut Vec<Record>,
    ) {
        let mut all = BTreeSet::new();
        let mut sharing = BTreeSet::new();
        for row in group.values() {
            let rules: BTreeSet<usize> = row.iter().map(|&c| cells[c].rule).collect();
            if rules.len() > 1 {
                sharing.extend(rules.iter().copied());
            }
            all.extend(rules);
        }
        let makes_records = |r: &usize| sharing.contains(r) || self.members[*r].fork;
        let mut heads: BTreeSet<usize> = BTreeSet::new();
        let mut makers: BTreeSet<usize> = all.iter().copied().filter(makes_records).collect();
        if self.header_rows {
            heads = all.iter().copied().filter(|r| !makes_records(r)).collect();
            if makers.is_empty() && all.len() > 1 {
                // No rule shares a row: the first row's rule heads the others.
                let first = group
                    .values()
                    .next()
                    .and_then(|row| row.first())
                    .map(|&c| cells[c].rule);
                heads = first.into_iter().collect();
                makers = all.difference(&heads).copied().collect();
            }
        }
        if makers.is_empty() {
            return;
        }
        let mut headers: BTreeMap<usize, Vec<Part>> = BTreeMap::new();
        for (ordinal, row) in group.values().enumerate() {
            if row.iter().all(|&c| heads.contains(&cells[c].rule)) {
                for &c in row {
                    let cell = &cells[c];
                    let names = &self.members[cell.rule].names;
                    headers.insert(cell.rule, parts(cell.rule, names, &cell.fields));
                }
                continue;
            }
            let mut fields: Vec<Part> = Vec::new();
            for &c in row {
                let cell = &cells[c];
                if makers.contains(&cell.rule) {
                    let names = &self.members[cell.rule].names;
                    fields.extend(parts(cell.rule, names, &cell.fields));
                }
            }
            if fields.is_empty() {
                continue;
            }
            fields.extend(headers.values().flatten().cloned());
            fields.extend(page_fields.iter().cloned());
            fields.sort_by_key(|(rule, branch, _, _)| (*rule, *branch));
            let mut named: Vec<(String, Field)> = Vec::with_capacity(fields.len());
            for (_, _, name, field) in fields {
                if !named.iter().any(|(n, _)| *n == name) {
                    named.push((name, field));
                }
            }
            out.push(Record {
                page: url.to_string(),
                ordinal: ordinal as u64,
                fields: Fields(named),
            });
        }
    }
}

/// The fields of rule `rule` from its strings per field name.
fn parts(rule: usize, names: &[String], strings: &[Vec<impl AsRef<str>>]) -> Vec<Part> {
    let mut out = Vec::new();
    for (branch, (name, strings)) in names.iter().zip(strings).enumerate() {
        let mut values: Vec<String> = strings
            .iter()
            .map(|s| normalize(s.as_ref()))
            .filter(|s| !s.is_empty())
            .collect();
        let field = match values.len() {
            0 => continue,
            1 => Field::One(values.remove(0)),
            _ => Field::Many(values),
        };
        out.push((rule, branch, name.clone(), field));
    }
    out
}

/// Moves the cells of rules that read the cells of rows to their rows (see
/// the module's doc): an element is a row of cells when two rules or more
/// bind its children, each rule one, and not all the same child.
fn lift_cells(page: &Page, cells: &mut [Cell<'_>]) {
    let mut under: HashMap<NodeId, Vec<(usize, NodeId)>> = HashMap::new();
    for cell in cells.iter() {
        if let Some(parent) = page.parent(cell.element) {
            under
                .entry(parent)
                .or_default()
                .push((cell.rule, cell.element));
        }
    }
    let mut rows_of_cells = HashSet::new();
    let mut lifted = HashSet::new();
    for (&parent, bound) in &under {
        let rules: BTreeSet<usize> = bound.iter().map(|(r, _)| *r).collect();
        let elements: HashSet<NodeId> = bound.iter().map(|(_, e)| *e).collect();
        if rules.len() > 1 && rules.len() == bound.len() && elements.len() > 1 {
            rows_of_cells.insert(parent);
            lifted.extend(rules);
        }
    }
    if lifted.is_empty() {
        return;
    }
    // A rule that binds one child of each of its elements, all siblings of
    // rows of cells (a category cell in a row of its own), reads rows too.
    let tables: HashSet<NodeId> = rows_of_cells
        .iter()
        .filter_map(|&row| page.parent(row))
        .collect();
    let mut per_rule: HashMap<usize, Vec<NodeId>> = HashMap::new();
    for cell in cells.iter().filter(|c| !lifted.contains(&c.rule)) {
        per_rule.entry(cell.rule).or_default().push(cell.element);
    }
    for (rule, elements) in per_rule {
        let parents: Vec<Option<NodeId>> = elements.iter().map(|&e| page.parent(e)).collect();
        let distinct: HashSet<Option<NodeId>> = parents.iter().copied().collect();
        let beside_rows = parents.iter().all(|p| {
            p.and_then(|p| page.parent(p))
                .is_some_and(|t| tables.contains(&t))
        });
        if beside_rows && distinct.len() == parents.len() {
            lifted.insert(rule);
        }
    }
    for cell in cells.iter_mut().filter(|c| lifted.contains(&c.rule)) {
        if let Some(row) = page.parent(cell.element) {
            cell.element = row;
        }
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

    fn records_on(html: &str, list: &[(&str, &str)], header_rows: bool) -> Vec<Record> {
        let rules = rules(list);
        RecordRules::new(&rules)
            .with_header_rows(header_rows)
            .page_records(&rules, &Page::parse(html), "http://h/r")
    }

    fn records(list: &[(&str, &str)]) -> Vec<Record> {
        records_on(PAGE, list, true)
    }

    /// Each record's fields as (name, text) pairs, lists joined with `|`.
    fn plain(records: &[Record]) -> Vec<Vec<(String, String)>> {
        records
            .iter()
            .map(|r| {
                r.fields
                    .0
                    .iter()
                    .map(|(n, f)| (n.clone(), f.values().join("|")))
                    .collect()
            })
            .collect()
    }

    fn expect(rows: &[&[(&str, &str)]]) -> Vec<Vec<(String, String)>> {
        rows.iter()
            .map(|r| {
                r.iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect()
            })
            .collect()
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
                    ordinal: 1,
                    fields: Fields(vec![
                        ("name".into(), one("Haus Meer")),
                        ("ort".into(), one("Binz")),
                        ("preis".into(), one("85")),
                        ("id".into(), one("7")),
                    ]),
                },
                Record {
                    page: "http://h/r".into(),
                    ordinal: 2,
                    fields: Fields(vec![
                        ("name".into(), one("Pension \"Möwe\", Binz")),
                        ("ort".into(), one("Binz")),
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
    fn fields_are_the_rules_that_read_rows_and_the_page() {
        let rules = rules(&[
            ("a", "html.body.table.tr[*].td[1].txt"),
            ("h", "html.body.table.tr[1-](.td[1].b.txt # .td[2].txt)"),
            ("t", "html.head.title.txt"),
            ("c", "html.body.ul.li[*].txt"),
        ]);
        assert_eq!(
            RecordRules::new(&rules).fields(),
            (
                vec!["a".into(), "h.0".into(), "h.1".into(), "c".into()],
                vec!["t".into()]
            )
        );
        let lone = self::rules(&[("a", "html.body.table.tr[*].td[1].txt")]);
        assert!(RecordRules::new(&lone).is_empty());
    }

    /// A job board whose rules read each column with its own condition;
    /// the second job has no company cell, the third no location.
    const JOBS: &str = "<h1>Stellen in Berlin</h1><table>\
        <tr><th>Titel</th><th>Firma</th><th>Ort</th></tr>\
        <tr><td class=cat colspan=3>IT</td></tr>\
        <tr><td class=title>Koch</td><td class=company>Kantine</td><td class=location>Mitte</td></tr>\
        <tr><td class=title>Maler</td><td class=other>-</td><td class=location>Pankow</td></tr>\
        <tr><td class=cat colspan=3>Pflege</td></tr>\
        <tr><td class=title>Pfleger</td><td class=company>Charité</td><td class=location></td></tr>\
        </table>";

    fn column(attribute: &'static str) -> (&'static str, String) {
        (
            attribute,
            format!("html.body->td[j:*].txt WHERE html.body->td[j].getAttr(class) = '{attribute}'"),
        )
    }

    #[test]
    fn rules_over_the_cells_of_rows_make_a_record_per_row() {
        let list = [
            column("title"),
            column("company"),
            column("location"),
            ("region", "html.body.h1.txt".to_string()),
        ];
        let list: Vec<(&str, &str)> = list.iter().map(|(a, r)| (*a, r.as_str())).collect();
        let got = records_on(JOBS, &list, true);
        assert_eq!(
            plain(&got),
            expect(&[
                &[
                    ("title", "Koch"),
                    ("company", "Kantine"),
                    ("location", "Mitte"),
                    ("region", "Stellen in Berlin")
                ],
                &[
                    ("title", "Maler"),
                    ("location", "Pankow"),
                    ("region", "Stellen in Berlin")
                ],
                &[
                    ("title", "Pfleger"),
                    ("company", "Charité"),
                    ("region", "Stellen in Berlin")
                ],
            ])
        );
        // The category rows head the jobs below them.
        let mut list = list;
        let cat = "html.body->td[c:*].txt WHERE html.body->td[c].getAttr(class) = 'cat'";
        list.insert(0, ("cat", cat));
        let got = records_on(JOBS, &list, true);
        let cats: Vec<(String, String)> = plain(&got)
            .into_iter()
            .map(|r| (r[0].1.clone(), r[1].1.clone()))
            .collect();
        assert_eq!(
            cats,
            [("IT", "Koch"), ("IT", "Maler"), ("Pflege", "Pfleger")]
                .map(|(c, t)| (c.to_string(), t.to_string()))
        );
        // Without header rows, the jobs alone.
        let got = records_on(JOBS, &list, false);
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|r| r.fields.get("cat").is_none()));
    }

    #[test]
    fn a_header_row_heads_the_rows_below_it_until_the_next() {
        let html = "<table>\
            <tr><td><font color=red>Binz</font></td></tr>\
            <tr><td><b>A</b></td></tr><tr><td><b>B</b></td></tr>\
            <tr><td><font color=red>Sellin</font></td></tr>\
            <tr><td><b>C</b></td></tr>\
            </table>";
        let list = [
            ("name", "html.body.table.tr[j:*].td[0].b.txt WHERE html.body.table.tr[j].td[0].b.txt != ''"),
            ("town", "html.body.table.tr[i:*].td[0].txt WHERE html.body.table.tr[i].td[0].font.getAttr(color) = 'red'"),
        ];
        assert_eq!(
            plain(&records_on(html, &list, true)),
            expect(&[
                &[("name", "A"), ("town", "Binz")],
                &[("name", "B"), ("town", "Binz")],
                &[("name", "C"), ("town", "Sellin")],
            ])
        );
        // Switched off, neither rule shares a row: no records.
        assert!(records_on(html, &list, false).is_empty());
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
