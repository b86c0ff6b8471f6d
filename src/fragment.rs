//! Index fragments (seed §4.2 "Zusammenfassung"): attribute → distinct
//! values, and the normal form that decides when two values are the same.
//!
//! Every result page yields an index fragment. The fragments of one query are
//! merged, duplicate values removed; the store merges them across queries and
//! runs, keeping for every value the query that surfaced it first.
//!
//! Two values are the same value when they are equal after [`normalize`]
//! (Unicode NFC, white space collapsed, trimmed).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

/// A value as it is indexed: Unicode NFC, every run of white space (Unicode
/// `White_Space`, so also no-break spaces and line breaks) collapsed to one
/// space, leading and trailing white space removed.
pub fn normalize(value: &str) -> String {
    normalized(value).into_owned()
}

/// [`normalize`], borrowing `value` where it is in the normal form already
/// (as most values are: NFC, single spaces between words): adding a value
/// seen before then costs no copy.
fn normalized(value: &str) -> Cow<'_, str> {
    // Most values are NFC already (all ASCII ones are): the quick check
    // spares them the decomposition and recomposition.
    let nfc: Cow<'_, str> = match is_nfc_quick(value.chars()) {
        IsNormalized::Yes => value.into(),
        IsNormalized::No | IsNormalized::Maybe => value.nfc().collect::<String>().into(),
    };
    if spaced_once(&nfc) {
        return nfc;
    }
    let mut out = String::with_capacity(nfc.len());
    for word in nfc.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.into()
}

/// Whether the words of `text` are separated by single spaces, with no
/// white space before the first or after the last.
fn spaced_once(text: &str) -> bool {
    let mut after_space = true;
    for c in text.chars() {
        if c == ' ' {
            if after_space {
                return false;
            }
            after_space = true;
        } else if c.is_whitespace() {
            return false;
        } else {
            after_space = false;
        }
    }
    !after_space || text.is_empty()
}

/// The distinct values of one attribute, in the order they were first added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct AttributeValues {
    name: String,
    values: Vec<String>,
    seen: HashSet<String>,
}

/// An index fragment: attribute → distinct normalized values.
///
/// Attributes and values keep the order in which they were first added (the
/// order of the result pages and of the values on them); adding a value that is
/// already there (after [`normalize`]) does nothing, and so does adding a value
/// that is empty after normalisation. Attribute names are taken as they are
/// (trimmed); an empty attribute name is ignored. So its values are in the
/// normal form and never empty: the store takes them as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexFragment {
    attributes: Vec<AttributeValues>,
    by_name: HashMap<String, usize>,
}

impl IndexFragment {
    /// An empty fragment.
    pub fn new() -> IndexFragment {
        IndexFragment::default()
    }

    /// Adds one value of `attr`. Returns whether it was new.
    pub fn add(&mut self, attr: &str, value: &str) -> bool {
        self.add_normalized(attr, normalized(value))
    }

    /// Adds a value already in the normal form; it is copied only when it is
    /// new.
    fn add_normalized(&mut self, attr: &str, value: Cow<'_, str>) -> bool {
        let attr = attr.trim();
        if attr.is_empty() || value.is_empty() {
            return false;
        }
        let index = match self.by_name.get(attr) {
            Some(&i) => i,
            None => {
                self.attributes.push(AttributeValues {
                    name: attr.to_string(),
                    ..AttributeValues::default()
                });
                self.by_name
                    .insert(attr.to_string(), self.attributes.len() - 1);
                self.attributes.len() - 1
            }
        };
        let entry = &mut self.attributes[index];
        if entry.seen.contains(&*value) {
            return false;
        }
        let value = value.into_owned();
        entry.seen.insert(value.clone());
        entry.values.push(value);
        true
    }

    /// Adds every value of `other` that is not here yet, after the values
    /// already here. Returns how many were new.
    pub fn merge(&mut self, other: &IndexFragment) -> usize {
        let mut added = 0;
        // `other`'s values are in the normal form already.
        for (attr, values) in other.iter() {
            for value in values {
                if self.add_normalized(attr, Cow::Borrowed(value)) {
                    added += 1;
                }
            }
        }
        added
    }

    /// The attribute names, in first-occurrence order.
    pub fn attributes(&self) -> impl Iterator<Item = &str> {
        self.attributes.iter().map(|a| a.name.as_str())
    }

    /// Attribute names with their values, in first-occurrence order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.attributes
            .iter()
            .map(|a| (a.name.as_str(), a.values.as_slice()))
    }

    /// The values of `attr` (empty when the attribute has none).
    pub fn values(&self, attr: &str) -> &[String] {
        match self.by_name.get(attr.trim()) {
            Some(&i) => &self.attributes[i].values,
            None => &[],
        }
    }

    /// The number of (attribute, value) pairs.
    pub fn len(&self) -> usize {
        self.attributes.iter().map(|a| a.values.len()).sum()
    }

    /// Whether the fragment holds no value at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<A: AsRef<str>, V: AsRef<str>> FromIterator<(A, V)> for IndexFragment {
    /// A fragment of `(attribute, value)` pairs, added in order (see [`IndexFragment::add`]).
    fn from_iter<I: IntoIterator<Item = (A, V)>>(pairs: I) -> IndexFragment {
        let mut fragment = IndexFragment::new();
        for (attr, value) in pairs {
            fragment.add(attr.as_ref(), value.as_ref());
        }
        fragment
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_composes_and_collapses() {
        // "Ru" + combining diaeresis + "gen", with odd white space around.
        assert_eq!(normalize("  Ru\u{308}gen\u{a0}\t Nord \n"), "Rügen Nord");
        assert_eq!(normalize(" \n\t "), "");
    }

    #[test]
    fn normalize_composes_what_the_quick_check_cannot_pass() {
        // Already NFC, beyond ASCII: kept as it is.
        assert_eq!(normalize("Grüße aus Göhren"), "Grüße aus Göhren");
        // A combining mark (quick check "maybe"), a singleton (Angstrom
        // sign, "no") and Hangul jamo: all composed.
        assert_eq!(normalize("Cafe\u{301}"), "Café");
        assert_eq!(normalize("\u{212b}ngstr\u{f6}m"), "\u{c5}ngstr\u{f6}m");
        assert_eq!(normalize("\u{1100}\u{1161}"), "\u{ac00}");
    }

    #[test]
    fn a_value_in_the_normal_form_is_borrowed_and_any_other_is_not() {
        for same in ["Binz", "Hotel Arkona", "Grüße aus Göhren", "a b c", ""] {
            assert!(
                matches!(normalized(same), Cow::Borrowed(v) if v == same),
                "{same:?}"
            );
        }
        for (odd, normal) in [
            (" Binz", "Binz"),
            ("Binz ", "Binz"),
            ("Hotel  Arkona", "Hotel Arkona"),
            ("Hotel\tArkona", "Hotel Arkona"),
            ("Hotel\u{a0}Arkona", "Hotel Arkona"),
            ("Cafe\u{301}", "Café"),
            (" ", ""),
        ] {
            let got = normalized(odd);
            assert!(matches!(got, Cow::Owned(_)), "{odd:?}");
            assert_eq!(got, normal);
        }
    }

    #[test]
    fn add_deduplicates_normalized_values_in_first_order() {
        let mut f = IndexFragment::new();
        assert!(f.add("ort", "Binz"));
        assert!(f.add("ort", "Sellin"));
        assert!(!f.add("ort", " Binz "));
        assert!(f.add("region", "Ru\u{308}gen"));
        assert!(!f.add("region", "Rügen"));
        assert!(!f.add("region", "   "));
        assert!(!f.add(" ", "x"));
        assert_eq!(f.values("ort"), ["Binz", "Sellin"]);
        assert_eq!(f.values("region"), ["Rügen"]);
        assert_eq!(f.values("name"), [] as [String; 0]);
        assert_eq!(f.attributes().collect::<Vec<_>>(), ["ort", "region"]);
        assert_eq!(f.len(), 3);
    }

    #[test]
    fn merge_keeps_existing_order_and_counts_new_values() {
        let mut a = IndexFragment::new();
        a.add("ort", "Binz");
        let mut b = IndexFragment::new();
        b.add("name", "Hotel Arkona");
        b.add("ort", "Sellin");
        b.add("ort", "Binz");
        assert_eq!(a.merge(&b), 2);
        assert_eq!(a.values("ort"), ["Binz", "Sellin"]);
        assert_eq!(a.attributes().collect::<Vec<_>>(), ["ort", "name"]);
        assert_eq!(a.merge(&b), 0);
        assert!(!a.is_empty());
        assert!(IndexFragment::new().is_empty());
    }
}
