//! First characters a prefix domain does not try. A query element whose
//! domain is a pattern of `%` prefixes (`/[A-Z]%/`) reaches only the
//! values that start with one of its characters: a title that starts with
//! `#`, `É`, `¿` or a digit is in no answer. Such characters show in the
//! values gathered, at the start of a word (`Lieder für #Heimat`, `Briefe
//! aus Österreich`): each is queried as a prefix of its own (`#%`), or,
//! where that cannot be done, named as unreached.

use std::collections::BTreeSet;

/// The share of an attribute's values that must start with a tried
/// character for the attribute to be the one the prefixes select.
pub const FOLLOWS: f64 = 0.9;

/// Whether a prefix whose first character is one of `firsts` reaches a
/// value starting with `c` (the provider matches prefixes ignoring case).
pub fn tried(c: char, firsts: &[char]) -> bool {
    firsts.contains(&c)
        || one(c.to_uppercase()).is_some_and(|u| firsts.contains(&u))
        || one(c.to_lowercase()).is_some_and(|l| firsts.contains(&l))
}

/// The one character an iterator yields, if it yields exactly one.
fn one(mut chars: impl Iterator<Item = char>) -> Option<char> {
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// Whether the values are those the prefixes select: at least
/// [`FOLLOWS`] of them start with a character the prefixes try (a
/// year, a price, a count beside a title does not).
pub fn follows<'a>(values: impl IntoIterator<Item = &'a str>, firsts: &[char]) -> bool {
    let (mut all, mut starting) = (0usize, 0usize);
    for value in values {
        let Some(c) = value.trim_start().chars().next() else {
            continue;
        };
        all += 1;
        starting += usize::from(tried(c, firsts));
    }
    all > 0 && starting as f64 >= FOLLOWS * all as f64
}

/// The characters that start a word of one of the values and that no
/// prefix of `firsts` tries, upper-cased where the provider ignores case
/// (`é` → `É`); the pattern's own wildcards (`%`, `_`) are left out.
pub fn untried<'a>(values: impl IntoIterator<Item = &'a str>, firsts: &[char]) -> BTreeSet<char> {
    let mut out = BTreeSet::new();
    for value in values {
        for word in value.split_whitespace() {
            let Some(c) = word.chars().next() else {
                continue;
            };
            if c == '%' || c == '_' || c.is_control() || tried(c, firsts) {
                continue;
            }
            out.insert(one(c.to_uppercase()).unwrap_or(c));
        }
    }
    out
}

/// `#, É, ¿`: characters for people.
pub fn describe(chars: &BTreeSet<char>) -> String {
    chars
        .iter()
        .map(char::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn az() -> Vec<char> {
        ('A'..='Z').collect()
    }

    #[test]
    fn characters_that_start_words_and_no_prefix_tries_are_found_upper_cased() {
        let titles = [
            "Lieder für #Heimat",
            "Abend in évian",
            "Fragen ¿wieso?",
            "Sommer 1999",
            "alte Wege",
            "50% mehr",
        ];
        let found = untried(titles, &az());
        assert_eq!(
            found,
            BTreeSet::from(['#', 'É', '¿', '1', '5']),
            "{}",
            describe(&found)
        );
        // Digits in the pattern are tried.
        let mut with_digits = az();
        with_digits.extend('0'..='9');
        assert_eq!(
            untried(titles, &with_digits),
            BTreeSet::from(['#', 'É', '¿'])
        );
    }

    #[test]
    fn only_values_that_mostly_start_with_a_tried_character_follow_the_prefixes() {
        // A third of them starting with `#` is too many.
        assert!(!follows(["Abend", "Briefe", "#Heimat"], &az()));
        let mut titles: Vec<&str> = vec!["Abend"; 19];
        titles.push("#Heimat");
        assert!(follows(titles.iter().copied(), &az()));
        assert!(!follows(["1999", "2004", "1875"], &az()));
        assert!(!follows([" ", ""], &az()));
    }
}
