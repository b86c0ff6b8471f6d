//! One result page read as a person reads it: its records and their
//! fields ([`records`]), its pager ([`pager`]) and the total it states
//! ([`total`]) — from the page alone, without comparing it with other
//! answers of its form.
//!
//! The records are also given as ordinary HEL rules ([`ListingRules`]): a
//! `DB.Result` prefix that leads to the records' parent, and one rule per
//! field, `tr[r:*].td[1].b.txt`, read together into records the way
//! [`crate::record`] reads a spec's rules. What [`Listing::records`] gives
//! *is* what those rules give on the page, so the rules can be kept in a
//! spec as they are. Two things records hold that the rules leave out: the
//! fields of the second sibling of a two-sibling record (HEL binds one
//! element per row), and a region's header rows when they have no text of
//! their own path.

pub mod pager;
pub mod records;
pub mod total;

use url::Url;

use crate::hel::Rule;
use crate::links::PageLinks;
use crate::page::{NodeId, Page, TABLE, TBODY, TFOOT, THEAD};
use crate::record::{Field, Fields, Record, RecordRules};

pub use pager::{Pager, PagerLink, PagerRole, PostbackPagerLink};
pub use records::{Column, Region, RegionKind};
pub use total::{Total, TotalKind};

/// What one page holds.
#[derive(Debug, Clone)]
pub struct Listing {
    /// The data regions and the navigation regions, the largest first.
    pub regions: Vec<Region>,
    pub pager: Pager,
    pub total: Option<Total>,
}

/// The rules of one region: a prefix and (attribute, rule) pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingRules {
    pub prefix: String,
    pub rules: Vec<(String, String)>,
    /// The first this many rules read the records' fields; the others
    /// read values of their own (the second sibling of two-sibling
    /// records).
    pub record_rules: usize,
}

impl ListingRules {
    /// The rules that read the records' fields, parsed with their prefix.
    pub fn record_parsed(&self) -> Vec<(String, Rule)> {
        let mut parsed = self.parsed();
        parsed.truncate(self.record_rules);
        parsed
    }

    /// The rules, parsed with their prefix.
    pub fn parsed(&self) -> Vec<(String, Rule)> {
        self.rules
            .iter()
            .filter_map(|(a, r)| {
                Rule::parse_with_prefix(r, Some(&self.prefix))
                    .ok()
                    .map(|rule| (a.clone(), rule))
            })
            .collect()
    }

    /// The rules as the `results:` list of a spec.
    pub fn to_yaml(&self) -> String {
        let mut out = format!("results:\n  - prefix: {}\n", self.prefix);
        for (attribute, rule) in &self.rules {
            out.push_str(&format!("  - attribute: {attribute}\n    rule: {rule}\n"));
        }
        out
    }
}

impl Listing {
    /// Reads a page at `url`.
    pub fn read(page: &Page, url: &Url) -> Listing {
        let regions = records::regions(page);
        let skip: Vec<NodeId> = regions
            .iter()
            .filter(|r| r.kind == RegionKind::Data)
            .flat_map(|r| r.records.iter().flatten().copied())
            .collect();
        let total = total::stated_total(page, &skip);
        let pager = Pager::of(&PageLinks::of(page, url))
            .with_postbacks(&crate::navigate::postback::links(page));
        Listing {
            regions,
            pager,
            total,
        }
    }

    /// The data regions, the largest first.
    pub fn data(&self) -> impl Iterator<Item = &Region> {
        self.regions.iter().filter(|r| r.kind == RegionKind::Data)
    }

    /// The main region: the largest data region.
    pub fn main(&self) -> Option<&Region> {
        self.data().next()
    }

    /// The rules of the main region, if it has any field a rule can read.
    pub fn rules(&self, page: &Page) -> Option<ListingRules> {
        rules_of(page, self.main()?)
    }

    /// The records of the main region, read by its rules.
    pub fn records(&self, page: &Page, url: &Url) -> Vec<Record> {
        let Some(rules) = self.rules(page) else {
            return Vec::new();
        };
        read_records(&rules.record_parsed(), page, url.as_str())
    }
}

/// The records a region's rules read on a page, as [`RecordRules`] reads
/// a spec's; a region of one field (a list of titles) has a record per
/// value of its one rule.
pub fn read_records(parsed: &[(String, Rule)], page: &Page, url: &str) -> Vec<Record> {
    if let [(attribute, rule)] = parsed {
        return rule
            .eval(page)
            .flatten()
            .iter()
            .map(|v| crate::fragment::normalize(v))
            .filter(|v| !v.is_empty())
            .enumerate()
            .map(|(i, value)| Record {
                page: url.to_string(),
                ordinal: i as u64,
                fields: Fields(vec![(attribute.clone(), Field::One(value))]),
            })
            .collect();
    }
    RecordRules::new(parsed).page_records(parsed, page, url)
}

/// The rules that read a region's records.
pub fn rules_of(page: &Page, region: &Region) -> Option<ListingRules> {
    let first = *region.records.first()?.first()?;
    let mut owner = region.parent;
    if matches!(page.label_of(owner), TBODY | THEAD | TFOOT) {
        if let Some(t) = page.parent(owner).filter(|&t| page.label_of(t) == TABLE) {
            owner = t;
        }
    }
    let prefix = format!("html{}.", crate::locate::steps(page, Page::ROOT, owner));
    let label = page.label_name(first).to_string();
    let condition = |var: &str, nodes: &[NodeId]| -> String {
        let classes: Vec<Option<&str>> =
            nodes.iter().map(|&n| page.attribute(n, "class")).collect();
        let Some(Some(class)) = classes.first().copied() else {
            return String::new();
        };
        let shared = classes.iter().all(|c| *c == Some(class));
        let siblings = page.child_matches(owner, page.label_of(first));
        let others = siblings.filter(|s| !nodes.contains(s)).count();
        match crate::locate::quote(class) {
            Some(lit) if shared && others > 0 => {
                format!(" WHERE {label}[{var}].getAttr(class) = {lit}")
            }
            _ => String::new(),
        }
    };
    let parts: Vec<NodeId> = region.records.iter().map(|r| r[0]).collect();
    // `tr[r:*].td[1].b.txt WHERE tr[r].td[1].b.txt =~ '.'`: each rule
    // reads the rows that have its text, as a spec's rules read theirs, so
    // that header rows stay apart; where other siblings lack the records'
    // class, the class tells them instead (HEL binds a variable by one
    // condition).
    let rule = |var: &str, path: &str, nodes: &[NodeId]| {
        let class = condition(var, nodes);
        if class.is_empty() {
            format!("{label}[{var}:*]{path}.txt WHERE {label}[{var}]{path}.txt =~ '.'")
        } else {
            format!("{label}[{var}:*]{path}.txt{class}")
        }
    };
    let mut rules: Vec<(String, String)> = region
        .columns
        .iter()
        .filter(|c| c.part == 0)
        .map(|c| (c.name.clone(), rule("r", &c.path, &parts)))
        .collect();
    if rules.is_empty() {
        return None;
    }
    // The header rows: the path of their first text.
    let headers: Vec<NodeId> = {
        let mut h: Vec<NodeId> = region.headers.iter().flatten().copied().collect();
        h.dedup();
        h
    };
    // The element that holds a header row's first text.
    let cell = |h: NodeId| {
        let t = page
            .after(h)
            .take_while(|&n| n < page.subtree_end(h))
            .find(|&n| page.pcdata(n).is_some_and(|t| !t.trim().is_empty()))?;
        Some(
            page.parent(t)
                .filter(|&p| p != h && page.children(p).count() == 1)
                .unwrap_or(t),
        )
    };
    if let Some(target) = headers.first().and_then(|&h| cell(h)) {
        let path = crate::locate::steps(page, headers[0], target);
        let name = if rules.iter().any(|(a, _)| a == "heading") {
            "heading_2".to_string()
        } else {
            "heading".to_string()
        };
        // Where every header's cell has one class (`<th class="group">`),
        // the class tells header rows from the table's column headings.
        let class = page.attribute(target, "class").filter(|&c| {
            headers
                .iter()
                .all(|&h| cell(h).is_some_and(|n| page.attribute(n, "class") == Some(c)))
        });
        let header_rule = match class.and_then(crate::locate::quote) {
            Some(lit) => {
                format!("{label}[h:*]{path}.txt WHERE {label}[h]{path}.getAttr(class) = {lit}")
            }
            None => rule("h", &path, &headers),
        };
        rules.push((name, header_rule));
    }
    let record_rules = rules.len();
    // The second sibling of two-sibling records (a title, then its
    // snippet): HEL binds one element per row, so its texts are values
    // of their own, not fields of the records, read where every element
    // of its kind under the parent is one.
    let seconds: Vec<NodeId> = region
        .records
        .iter()
        .filter_map(|r| r.get(1).copied())
        .collect();
    if let Some(&second) = seconds.first() {
        let label = page.label_name(second).to_string();
        let only_parts = page
            .child_matches(owner, page.label_of(second))
            .all(|s| seconds.contains(&s));
        for c in region.columns.iter().filter(|c| c.part == 1) {
            if only_parts && !rules.iter().any(|(a, _)| *a == c.name) {
                let path = &c.path;
                let rule = format!("{label}[s:*]{path}.txt WHERE {label}[s]{path}.txt =~ '.'");
                rules.push((c.name.clone(), rule));
            }
        }
    }
    Some(ListingRules {
        prefix,
        rules,
        record_rules,
    })
}

#[cfg(test)]
mod tests;
