//! The provider's database: a SQLite file with the tables `region` and `hotel`,
//! generated deterministically from a seed, and the queries the site's CGI
//! scripts run against it.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use anyhow::Context;
use rand::distributions::WeightedIndex;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;
use rusqlite::{params, Connection};

use super::data::{Kind, Region, Town, COMMON_NAMES, KINDS, REGIONS, STREETS};

/// Writes the provider's database to `path` (replacing a file that is there):
/// `region(id, region)` and `hotel(id, name, ort, region_id, preis, strasse,
/// plz, telefon)` with `hotels` hotels spread over the real holiday regions and
/// towns of Mecklenburg-Vorpommern. The same `seed` always gives the same rows.
///
/// Names repeat across towns ("Pension Möwe" exists in several places) but not
/// within one town. Prices are whole DM per night, in the range of the house's
/// kind (a pension is cheaper than a strand hotel).
pub fn generate_database(path: &Path, hotels: usize, seed: u64) -> anyhow::Result<()> {
    for stale in [path.to_path_buf(), path.with_extension("sqlite-journal")] {
        if stale.exists() {
            std::fs::remove_file(&stale)
                .with_context(|| format!("cannot replace {}", stale.display()))?;
        }
    }
    let mut conn = Connection::open(path)
        .with_context(|| format!("cannot create the provider database {}", path.display()))?;
    conn.execute_batch(
        "CREATE TABLE region (id INTEGER PRIMARY KEY, region TEXT NOT NULL UNIQUE);
         CREATE TABLE hotel (
             id INTEGER PRIMARY KEY,
             name TEXT NOT NULL,
             ort TEXT NOT NULL,
             region_id INTEGER NOT NULL REFERENCES region(id),
             preis INTEGER NOT NULL,
             strasse TEXT NOT NULL,
             plz TEXT NOT NULL,
             telefon TEXT NOT NULL
         );
         CREATE INDEX hotel_region ON hotel(region_id, ort, name);",
    )?;
    let tx = conn.transaction()?;
    for (i, region) in REGIONS.iter().enumerate() {
        tx.execute(
            "INSERT INTO region (id, region) VALUES (?1, ?2)",
            params![i as i64 + 1, region.name],
        )?;
    }
    let towns: Vec<(usize, &Town)> = REGIONS
        .iter()
        .enumerate()
        .flat_map(|(r, region)| region.towns.iter().map(move |t| (r, t)))
        .collect();
    let town_pick = WeightedIndex::new(towns.iter().map(|(_, t)| t.weight))?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut taken: HashSet<(usize, String)> = HashSet::new();
    {
        let mut insert = tx.prepare(
            "INSERT INTO hotel (id, name, ort, region_id, preis, strasse, plz, telefon)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for id in 1..=hotels {
            let town_index = town_pick.sample(&mut rng);
            let (r, town) = towns[town_index];
            let region = &REGIONS[r];
            let (name, kind) = unique_name(&mut rng, region, town, |name| {
                !taken.contains(&(town_index, name.to_string()))
            });
            taken.insert((town_index, name.clone()));
            let (lo, hi) = kind.price;
            let preis = rng.gen_range(lo / 5..=hi / 5) * 5;
            let strasse = format!(
                "{} {}",
                STREETS.choose(&mut rng).copied().unwrap_or("Hauptstraße"),
                rng.gen_range(1..=120)
            );
            let digits = 10usize.saturating_sub(town.vorwahl.len()).clamp(4, 6);
            let first = rng.gen_range(2..=9u32);
            let rest: String = (1..digits)
                .map(|_| char::from(b'0' + rng.gen_range(0..=9u8)))
                .collect();
            let telefon = format!("{}/{first}{rest}", town.vorwahl);
            insert.execute(params![
                id as i64,
                name,
                town.name,
                r as i64 + 1,
                preis,
                strasse,
                town.plz,
                telefon
            ])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// A hotel name not yet used in the town: a kind of house and a word, common or
/// local to the region ("Pension Möwe", "Strandhotel Fischland") or the town
/// itself ("Hotel Wismar"). When the town has run out of names a number follows.
fn unique_name(
    rng: &mut ChaCha8Rng,
    region: &Region,
    town: &Town,
    free: impl Fn(&str) -> bool,
) -> (String, &'static Kind) {
    let kinds: Vec<&'static Kind> = KINDS
        .iter()
        .filter(|k| region.coastal || !k.coastal_only)
        .collect();
    let kind_pick = WeightedIndex::new(kinds.iter().map(|k| k.weight)).ok();
    let mut candidate = (String::from("Hotel"), &KINDS[0]);
    for _ in 0..40 {
        let kind = match &kind_pick {
            Some(pick) => kinds[pick.sample(rng)],
            None => &KINDS[0],
        };
        let roll = rng.gen_range(0..10);
        let word = if roll < 6 {
            COMMON_NAMES.choose(rng).copied()
        } else if roll < 9 {
            region.local_names.choose(rng).copied()
        } else {
            Some(town.name)
        }
        .unwrap_or("Seeblick");
        candidate = (format!("{} {word}", kind.word), kind);
        if free(&candidate.0) {
            return candidate;
        }
    }
    let (base, kind) = candidate;
    let mut n = 2;
    loop {
        let name = format!("{base} {n}");
        if free(&name) {
            return (name, kind);
        }
        n += 1;
    }
}

/// One hotel row as the result pages show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hotel {
    pub id: i64,
    pub name: String,
    pub ort: String,
    pub preis: i64,
    pub strasse: String,
    pub plz: String,
    pub telefon: String,
}

/// A price category of the form's `preis` select.
pub(crate) struct PriceCategory {
    /// The option's internal value.
    pub value: &'static str,
    /// What the visitor reads.
    pub label: &'static str,
    /// DM per night, both bounds inclusive; `None` for all prices.
    pub range: Option<(i64, i64)>,
}

/// The options of the `preis` select, the first ("alle") selected.
pub(crate) const PRICE_CATEGORIES: &[PriceCategory] = &[
    PriceCategory {
        value: "alle",
        label: "alle Preise",
        range: None,
    },
    PriceCategory {
        value: "bis50",
        label: "bis 50 DM",
        range: Some((0, 50)),
    },
    PriceCategory {
        value: "50bis100",
        label: "50 bis 100 DM",
        range: Some((51, 100)),
    },
    PriceCategory {
        value: "ueber100",
        label: "über 100 DM",
        range: Some((101, i64::MAX)),
    },
];

/// The category a `preis` value names.
pub(crate) fn price_category(value: &str) -> Option<&'static PriceCategory> {
    PRICE_CATEGORIES.iter().find(|c| c.value == value)
}

/// What a visitor asked for on the form.
#[derive(Debug, Clone, Default)]
pub(crate) struct Search {
    /// The region as sent; empty means all regions.
    pub region: String,
    /// A price category value; empty or unknown means all prices.
    pub preis: String,
    /// The beginning of a town's name (case-insensitive); empty means all towns.
    pub ort: String,
}

/// The answer to a search: the region as the database spells it (when the
/// search named a known one) and the matching hotels, ordered by town and name.
pub(crate) struct Found {
    pub region: Option<String>,
    pub hotels: Vec<Hotel>,
}

/// Runs a search the way the guide's CGI scripts do.
pub(crate) fn search(conn: &Connection, search: &Search) -> rusqlite::Result<Found> {
    let region: Option<(i64, String)> = if search.region.is_empty() {
        None
    } else {
        let mut stmt = conn.prepare("SELECT id, region FROM region WHERE region = ?1")?;
        let mut rows = stmt.query_map([&search.region], |r| Ok((r.get(0)?, r.get(1)?)))?;
        match rows.next().transpose()? {
            Some(found) => Some(found),
            None => {
                return Ok(Found {
                    region: None,
                    hotels: Vec::new(),
                })
            }
        }
    };
    let (lo, hi) = price_category(&search.preis)
        .and_then(|c| c.range)
        .unwrap_or((i64::MIN, i64::MAX));
    let mut stmt = conn.prepare(
        "SELECT id, name, ort, preis, strasse, plz, telefon FROM hotel
         WHERE (?1 IS NULL OR region_id = ?1) AND preis BETWEEN ?2 AND ?3",
    )?;
    let region_id = region.as_ref().map(|(id, _)| *id);
    let ort_prefix = search.ort.trim().to_lowercase();
    let mut hotels: Vec<Hotel> = stmt
        .query_map(params![region_id, lo, hi], |r| {
            Ok(Hotel {
                id: r.get(0)?,
                name: r.get(1)?,
                ort: r.get(2)?,
                preis: r.get(3)?,
                strasse: r.get(4)?,
                plz: r.get(5)?,
                telefon: r.get(6)?,
            })
        })?
        .filter(|h| match h {
            Ok(h) => h.ort.to_lowercase().starts_with(&ort_prefix),
            Err(_) => true,
        })
        .collect::<rusqlite::Result<_>>()?;
    hotels.sort_by_cached_key(|h| (sort_key(&h.ort), sort_key(&h.name), h.id));
    Ok(Found {
        region: region.map(|(_, name)| name),
        hotels,
    })
}

/// A key that sorts German words as a phone book does (Ü with U, ß as ss).
fn sort_key(word: &str) -> String {
    word.to_lowercase()
        .chars()
        .flat_map(|c| match c {
            'ä' => vec!['a'],
            'ö' => vec!['o'],
            'ü' => vec!['u'],
            'ß' => vec!['s', 's'],
            c => vec![c],
        })
        .collect()
}

/// The values a correct gatherer finds, read from the database with SQL:
/// for the form variants `region` (every region the form offers: each result
/// page names its region), `ort` (every town with a hotel) and `name` (every
/// hotel name); for the cooperative summarizer the configured
/// `table.attribute`s.
pub(crate) struct Expected {
    pub form: BTreeMap<String, BTreeSet<String>>,
    pub cooperative: BTreeMap<String, BTreeSet<String>>,
    /// The library catalogue's `titel`s (filled in by the site).
    pub catalogue: BTreeMap<String, BTreeSet<String>>,
    /// The press archive's article numbers, `nr` (filled in by the site).
    pub archive: BTreeMap<String, BTreeSet<String>>,
}

pub(crate) fn expected(path: &Path) -> anyhow::Result<Expected> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .with_context(|| format!("cannot open the provider database {}", path.display()))?;
    let distinct = |sql: &str| -> anyhow::Result<BTreeSet<String>> {
        let mut stmt = conn.prepare(sql)?;
        let values = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(values)
    };
    let regions = distinct("SELECT DISTINCT region FROM region")?;
    let towns = distinct("SELECT DISTINCT ort FROM hotel")?;
    let names = distinct("SELECT DISTINCT name FROM hotel")?;
    let form = BTreeMap::from([
        ("region".to_string(), regions.clone()),
        ("ort".to_string(), towns.clone()),
        ("name".to_string(), names.clone()),
    ]);
    let cooperative = BTreeMap::from([
        ("hotel.name".to_string(), names),
        ("hotel.ort".to_string(), towns),
        ("region.region".to_string(), regions),
    ]);
    Ok(Expected {
        form,
        cooperative,
        catalogue: BTreeMap::new(),
        archive: BTreeMap::new(),
    })
}

/// The regions of the database, in the order the form lists them.
pub(crate) fn regions(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT region FROM region ORDER BY id")?;
    let regions = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(regions)
}

/// The number of hotels of the region that has the most.
pub(crate) fn largest_region(conn: &Connection) -> rusqlite::Result<usize> {
    conn.query_row(
        "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM hotel GROUP BY region_id)",
        [],
        |r| r.get::<_, i64>(0),
    )
    .map(|n| usize::try_from(n).unwrap_or(0))
}

/// The number of hotels of the region and price category that has the most.
pub(crate) fn largest_region_and_price(conn: &Connection) -> rusqlite::Result<usize> {
    let mut largest = 0;
    for (lo, hi) in PRICE_CATEGORIES.iter().filter_map(|c| c.range) {
        let n: i64 = conn.query_row(
            "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM hotel
               WHERE preis BETWEEN ?1 AND ?2 GROUP BY region_id)",
            params![lo, hi],
            |r| r.get(0),
        )?;
        largest = largest.max(usize::try_from(n).unwrap_or(0));
    }
    Ok(largest)
}
