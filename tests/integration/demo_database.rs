//! The provider's database the demo site is generated from: deterministic for
//! a seed, and shaped like a real hotel guide of Mecklenburg-Vorpommern.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use gather::demo::generate_database;
use rusqlite::Connection;

type Row = (i64, String, String, i64, i64, String, String, String);

fn dump(path: &Path) -> (Vec<(i64, String)>, Vec<Row>) {
    let conn = Connection::open(path).expect("open");
    let mut regions = conn
        .prepare("SELECT id, region FROM region ORDER BY id")
        .expect("prepare");
    let regions = regions
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect();
    let mut hotels = conn
        .prepare(
            "SELECT id, name, ort, region_id, preis, strasse, plz, telefon FROM hotel ORDER BY id",
        )
        .expect("prepare");
    let hotels = hotels
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
            ))
        })
        .expect("query")
        .map(|r| r.expect("row"))
        .collect();
    (regions, hotels)
}

#[test]
fn the_same_seed_gives_the_same_database() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, c) = (
        dir.path().join("a.sqlite"),
        dir.path().join("b.sqlite"),
        dir.path().join("c.sqlite"),
    );
    generate_database(&a, 500, 7).expect("generate a");
    generate_database(&b, 500, 7).expect("generate b");
    generate_database(&c, 500, 8).expect("generate c");
    let (first, second, other) = (dump(&a), dump(&b), dump(&c));
    assert_eq!(first.1.len(), 500);
    assert_eq!(first, second);
    assert_eq!(first.0, other.0, "the regions do not depend on the seed");
    assert_ne!(first.1, other.1, "another seed gives other hotels");
    // Generating again over an existing file replaces it.
    generate_database(&a, 30, 7).expect("regenerate");
    assert_eq!(dump(&a).1.len(), 30);
}

#[test]
fn the_guide_looks_like_mecklenburg_vorpommern() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cityworld.sqlite");
    generate_database(&path, 3000, 1999).expect("generate");
    let (regions, hotels) = dump(&path);
    let region_names: BTreeSet<&str> = regions.iter().map(|(_, r)| r.as_str()).collect();
    for region in [
        "Fischland-Darß-Zingst",
        "Rügen",
        "Usedom",
        "Mecklenburgische Seenplatte",
        "Rostock und Umgebung",
        "Westmecklenburg",
        "Vorpommern",
    ] {
        assert!(region_names.contains(region), "{region}");
    }
    let towns: BTreeSet<&str> = hotels.iter().map(|h| h.2.as_str()).collect();
    for town in [
        "Binz",
        "Sellin",
        "Göhren",
        "Heringsdorf",
        "Ahlbeck",
        "Zinnowitz",
        "Warnemünde",
        "Kühlungsborn",
        "Waren (Müritz)",
        "Röbel/Müritz",
        "Wismar",
        "Boltenhagen",
        "Stralsund",
        "Greifswald",
        "Ahrenshoop",
        "Wustrow",
        "Zingst",
        "Prerow",
    ] {
        assert!(towns.contains(town), "{town} has hotels");
    }
    // Every region has hotels; a town lies in one region and has one postcode.
    let mut region_of: BTreeMap<&str, BTreeSet<i64>> = BTreeMap::new();
    let mut plz_of: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for h in &hotels {
        region_of.entry(&h.2).or_default().insert(h.3);
        plz_of.entry(&h.2).or_default().insert(&h.6);
    }
    assert!(region_of.values().all(|r| r.len() == 1));
    assert!(plz_of
        .values()
        .all(|p| p.len() == 1 && p.iter().all(|p| p.len() == 5)));
    let used_regions: BTreeSet<i64> = hotels.iter().map(|h| h.3).collect();
    assert_eq!(used_regions.len(), regions.len());
    // Names repeat across towns, never within one.
    let mut per_town: BTreeSet<(&str, &str)> = BTreeSet::new();
    let mut towns_of_name: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for h in &hotels {
        assert!(per_town.insert((&h.1, &h.2)), "{} twice in {}", h.1, h.2);
        towns_of_name.entry(&h.1).or_default().insert(&h.2);
    }
    assert!(towns_of_name.values().filter(|t| t.len() > 1).count() > 50);
    for name in ["Hotel Seeblick", "Pension Möwe", "Gasthof Zur Linde"] {
        assert!(towns_of_name.contains_key(name), "{name}");
    }
    assert!(hotels.iter().any(|h| h.1.contains('ß')));
    assert!(hotels.iter().any(|h| h.1.contains(['ä', 'ö', 'ü'])));
    // Prices are whole DM in steps of 5 and fill every category of the form.
    assert!(hotels
        .iter()
        .all(|h| h.4 % 5 == 0 && (30..=260).contains(&h.4)));
    for (lo, hi) in [(0, 50), (51, 100), (101, i64::MAX)] {
        let n = hotels.iter().filter(|h| (lo..=hi).contains(&h.4)).count();
        assert!(n > 100, "{n} hotels between {lo} and {hi} DM");
    }
    let phone = regex::Regex::new(r"^0\d{3,5}/[2-9]\d{3,5}$").expect("regex");
    assert!(hotels.iter().all(|h| phone.is_match(&h.7)), "phone numbers");
    assert!(hotels.iter().all(|h| h
        .5
        .rsplit_once(' ')
        .is_some_and(|(_, n)| n.parse::<u32>().is_ok())));
}

#[test]
fn an_empty_guide_still_has_its_regions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("empty.sqlite");
    generate_database(&path, 0, 1).expect("generate");
    let (regions, hotels) = dump(&path);
    assert!(regions.len() >= 7);
    assert!(hotels.is_empty());
}

#[test]
fn a_missing_directory_is_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nicht-da").join("cityworld.sqlite");
    let error = generate_database(&path, 10, 1).expect_err("no directory");
    assert!(
        format!("{error:#}").contains("nicht-da"),
        "the error names the path: {error:#}"
    );
}
