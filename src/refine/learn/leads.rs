//! The values' leading words: where the first word of the gathered values
//! is a word of its own (a car's make, a thing for sale), found first in
//! nearly every value that holds it, the values fall into parts, one per
//! leading word, and a search for a leading word brings its part. A word
//! found in the parts of several leading words reaches parts no answer
//! showed yet; a word found in one part only is likely to stay in it.

use std::collections::{BTreeMap, BTreeSet};

/// The share of the values holding the leading words in which they lead,
/// above which the values are taken to fall into parts by their first
/// word.
pub const LEAD_SHARE: f64 = 0.9;

/// The fewest values gathered, and leading words seen, before the values
/// are judged to fall into parts.
const FEWEST_VALUES: u64 = 10;
const FEWEST_LEADS: usize = 2;

/// The part a value belongs to: its leading word, or (a value whose first
/// word is no word worth a query) a part of its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Led(String),
    Alone(u64),
}

/// The leading words of the gathered values and how every word spreads
/// over the parts they make.
#[derive(Debug, Default)]
pub struct Leads {
    /// Word (lower case) → values it leads.
    leads: BTreeMap<String, u64>,
    /// Word (lower case) → the parts of the values holding it → values.
    spread: BTreeMap<String, BTreeMap<Part, u64>>,
    /// Values without a leading word so far (their parts' numbers).
    unled: u64,
    /// Words (lower case) whose query found nothing: they stand where the
    /// search does not look, and so do the parts they lead.
    barren: BTreeSet<String>,
    /// Word (lower case) → the sum of its places among the words of the
    /// values holding it (0: it leads).
    places: BTreeMap<String, u64>,
}

/// The places after the leading word that are told apart: 1 (right after
/// it), 2, and 3 or later.
const PLACES: usize = 3;

impl Leads {
    /// Counts a value: `lead` is its first word when that is a word worth
    /// a query (lower case), `words` its distinct words (lower case).
    pub fn add(&mut self, lead: Option<&str>, words: &[String]) {
        let part = match lead {
            Some(lead) => {
                *self.leads.entry(lead.to_string()).or_default() += 1;
                Part::Led(lead.to_string())
            }
            None => {
                self.unled += 1;
                Part::Alone(self.unled)
            }
        };
        for (place, word) in words.iter().enumerate() {
            *self.places.entry(word.clone()).or_default() += place as u64;
            *self
                .spread
                .entry(word.clone())
                .or_default()
                .entry(part.clone())
                .or_default() += 1;
        }
    }

    /// Whether the values fall into parts by their first word: at least
    /// [`FEWEST_LEADS`] leading words, the words that lead some value
    /// lead at least [`LEAD_SHARE`] of the values that hold them (titles
    /// that start with a make; not titles whose words stand anywhere), and
    /// some other word is found in two parts (until one is, nothing tells
    /// which words reach beyond their part).
    pub fn partitioned(&self, frequency: &BTreeMap<String, u64>, values: u64) -> bool {
        let led: u64 = self.leads.values().sum();
        let held: u64 = self.leads.keys().filter_map(|w| frequency.get(w)).sum();
        let spans = |word: &str| {
            let led = self.parts(word).filter(|(p, _)| matches!(p, Part::Led(_)));
            !self.leads.contains_key(word) && !self.barren.contains(word) && led.count() >= 2
        };
        values >= FEWEST_VALUES
            && self.leads.len() >= FEWEST_LEADS
            && led as f64 >= LEAD_SHARE * held as f64
            && self.spread.keys().any(|word| spans(word))
    }

    /// Tells that a word's query found nothing.
    pub fn barren(&mut self, word: &str) {
        self.barren.insert(word.to_string());
    }

    /// The parts of a word's values the search looks at.
    fn parts(&self, word: &str) -> impl Iterator<Item = (&Part, &u64)> {
        self.spread
            .get(word)
            .into_iter()
            .flatten()
            .filter(|(part, _)| !matches!(part, Part::Led(lead) if self.barren.contains(lead)))
    }

    /// Whether a word leads at least [`LEAD_SHARE`] of the `frequency`
    /// values that hold it.
    pub fn leading(&self, word: &str, frequency: u64) -> bool {
        let led = self.leads.get(word).copied().unwrap_or(0);
        led > 0 && led as f64 >= LEAD_SHARE * frequency as f64
    }

    #[cfg(test)]
    fn unseen(&self, word: &str) -> f64 {
        self.unseen_by(word, &self.crossing())
    }

    /// The rows a word is expected to bring from parts no answer showed
    /// yet (Good–Turing: as many as the parts in which one gathered value
    /// holds it); a word found in several values of one part and nowhere
    /// else is expected to stay in it (a car's model under its make); a
    /// word found once, as likely to cross as the words found more often
    /// at its place ([`Self::crossing`]).
    fn unseen_by(&self, word: &str, crossing: &[f64; PLACES]) -> f64 {
        let counts: Vec<u64> = self.parts(word).map(|(_, &n)| n).collect();
        match counts.as_slice() {
            [n] if *n > 1 => 0.0,
            // Found once: as likely to reach another part as the words
            // found more often at its place did.
            [_] => self.place(word).map_or(1.0, |place| crossing[place]),
            _ => counts.iter().filter(|&&n| n == 1).count() as f64,
        }
    }

    /// Per word: the rows it is expected to bring from parts no answer
    /// showed yet ([`Self::unseen_by`]), the place rates computed once.
    pub fn unseen_all(&self) -> impl Fn(&str) -> f64 + '_ {
        let crossing = self.crossing();
        move |word| self.unseen_by(word, &crossing)
    }

    /// A word's place after the leading word, from its mean place among
    /// the words of its values ([`PLACES`]; `None`: it leads).
    fn place(&self, word: &str) -> Option<usize> {
        let sum = *self.places.get(word)?;
        let values: u64 = self.spread.get(word)?.values().sum();
        let mean = (sum as f64 / values.max(1) as f64).round() as usize;
        (mean > 0).then(|| mean.min(PLACES) - 1)
    }

    /// Per place after the leading word: the share of the words found in
    /// two values or more there that are found in two parts or more
    /// (Laplace's rule: one more crossing and one more not): a car's
    /// model, right after its make, keeps to the make; a word of its body
    /// or trim, further on, crosses makes.
    fn crossing(&self) -> [f64; PLACES] {
        let mut tally = [(0u64, 0u64); PLACES];
        for word in self.spread.keys() {
            let counts: Vec<u64> = self.parts(word).map(|(_, &n)| n).collect();
            if counts.iter().sum::<u64>() < 2 || self.barren.contains(word) {
                continue;
            }
            if let Some(place) = self.place(word) {
                tally[place].0 += u64::from(counts.len() >= 2);
                tally[place].1 += 1;
            }
        }
        tally.map(|(crossed, all)| (crossed + 1) as f64 / (all + 2) as f64)
    }

    /// The share of the values holding a word whose part is not known
    /// whole: its leading word's answer (`whole`) did not show every row,
    /// or it has none.
    pub fn open_share(&self, word: &str, whole: impl Fn(&str) -> bool) -> f64 {
        let (mut open, mut all) = (0, 0);
        for (part, &n) in self.parts(word) {
            all += n;
            if !matches!(part, Part::Led(lead) if whole(lead)) {
                open += n;
            }
        }
        if all == 0 {
            1.0
        } else {
            open as f64 / all as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leads_of(values: &[&str]) -> (Leads, BTreeMap<String, u64>) {
        let mut leads = Leads::default();
        let mut frequency = BTreeMap::new();
        for value in values {
            let (spelt, lead) = super::super::value_words(value);
            let keys: Vec<String> = spelt.into_iter().map(|(key, _)| key).collect();
            for k in &keys {
                *frequency.entry(k.clone()).or_default() += 1;
            }
            leads.add(lead.as_deref(), &keys);
        }
        (leads, frequency)
    }

    const CARS: [&str; 12] = [
        "ford pinto",
        "ford custom",
        "ford torino",
        "ford pinto wagon",
        "chevrolet malibu",
        "chevrolet custom",
        "chevrolet malibu wagon",
        "plymouth fury",
        "plymouth duster",
        "plymouth fury",
        "dodge dart",
        "vw rabbit",
    ];

    #[test]
    fn values_that_start_with_a_word_of_their_own_fall_into_parts() {
        let (leads, frequency) = leads_of(&CARS);
        assert!(leads.partitioned(&frequency, CARS.len() as u64));
        assert!(leads.leading("ford", 4) && leads.leading("dodge", 1));
        assert!(!leads.leading("pinto", 2) && !leads.leading("rabbit", 1));
        // Titles whose words stand anywhere do not.
        let mixed = [
            "harbour storm night",
            "storm harbour",
            "night harbour storm",
            "storm night",
            "harbour night",
            "night storm",
            "storm harbour night",
            "harbour storm",
            "night harbour",
            "storm night harbour",
        ];
        let (leads, frequency) = leads_of(&mixed);
        assert!(!leads.partitioned(&frequency, mixed.len() as u64));
        // Nor do parts no word is found across: nothing tells yet which
        // words reach beyond their part.
        let apart = [
            "ford pinto",
            "ford custom",
            "ford torino",
            "ford pinto wagon",
            "ford maverick",
            "dodge dart",
            "dodge colt",
            "dodge aspen",
            "dodge coronet",
            "dodge dart swinger",
            "dodge custom",
        ];
        let (leads, frequency) = leads_of(&apart[..10]);
        assert!(!leads.partitioned(&frequency, 10));
        // Custom under dodge as well: the parts are seen to be crossed.
        let (leads, frequency) = leads_of(&apart);
        assert!(leads.partitioned(&frequency, 11));
        // Unless custom stands where the search does not look.
        let mut leads = leads;
        leads.barren("custom");
        assert!(!leads.partitioned(&frequency, 11));
    }

    #[test]
    fn a_word_in_several_parts_is_expected_to_reach_parts_not_seen() {
        let (leads, _) = leads_of(&CARS);
        // Custom: once under ford, once under chevrolet.
        assert_eq!(leads.unseen("custom"), 2.0);
        // Wagon: once under ford, once under chevrolet.
        assert_eq!(leads.unseen("wagon"), 2.0);
        // Pinto and fury: two values in one part each, expected to stay
        // in it.
        assert_eq!(leads.unseen("pinto"), 0.0);
        assert_eq!(leads.unseen("fury"), 0.0);
        // Found once, a word is as likely to cross parts as the words
        // found more often at its place: right after the make, malibu,
        // pinto and fury keep to theirs, custom does not (2 of 6 with
        // Laplace's rule); further on, wagon crosses (2 of 3).
        assert_eq!(leads.unseen("torino"), 2.0 / 6.0);
        assert_eq!(leads.unseen_all()("torino"), 2.0 / 6.0);
        let (leads, _) = leads_of(&[CARS.as_slice(), &["ford ltd landau"]].concat());
        assert_eq!(leads.unseen("landau"), 2.0 / 3.0);
        // Its part known whole (ford's answer showed every row), a word
        // has only what lies elsewhere open.
        let whole = |lead: &str| lead == "ford";
        assert_eq!(leads.open_share("pinto", whole), 0.0);
        assert_eq!(leads.open_share("custom", whole), 0.5);
        // A value whose first word is none worth a query is a part alone.
        assert_eq!(leads.open_share("rabbit", whole), 1.0);
    }
}
