//! The example specs in `specs/` read and check (their pages are not fetched).

use gather::metadata::{Metadata, ResultKind};
use gather::spec::Spec;

fn metadata(file: &str) -> Metadata {
    let path = crate::support::repo_path("specs").join(file);
    let spec = Spec::load(&path).unwrap();
    let entries = spec.entries(file).unwrap();
    Metadata::parse(&entries).unwrap_or_else(|p| panic!("{file}: {p:#?}"))
}

#[test]
fn hotels_spec_is_the_seeds_second_variant() {
    let md = metadata("hotels.yaml");
    assert_eq!(md.query_elements, ["region"]);
    assert_eq!(md.navigation, Some(false));
    let rules: Vec<String> = md
        .results
        .iter()
        .map(|r| match &r.kind {
            ResultKind::Rule(_) => format!("{}={}", r.attribute, md.rule_texts[&r.attribute]),
            ResultKind::Values(v) => panic!("{}: {v:?}", r.attribute),
        })
        .collect();
    assert!(rules[0].starts_with("region=html.body->A[i]"), "{rules:?}");
    assert!(
        rules[1].starts_with("ort=html.body->table[1].tr[j:*]"),
        "{rules:?}"
    );
    assert!(
        rules[2].starts_with("name=html.body->table[1].tr[k:*]"),
        "{rules:?}"
    );
}

#[test]
fn listed_and_towns_specs_check() {
    let md = metadata("hotels-listed.yaml");
    assert!(matches!(&md.results[0].kind, ResultKind::Values(v) if v.len() == 3));
    let md = metadata("towns.yaml");
    assert_eq!(md.domains["name"].len(), 676);
    assert_eq!(md.domains["name"].get(27).as_deref(), Some("Bb%"));
    assert_eq!(md.query_elements, ["name", "land"]);
    assert_eq!(md.max_pages, Some(20));
    assert!(md.navigation_url.is_some());
}

#[test]
fn a_spec_parses_from_text_as_it_loads_from_its_file() {
    let path = crate::support::repo_path("specs").join("hotels.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let parsed = Spec::from_yaml(&text, "hotels.yaml").unwrap();
    assert_eq!(parsed, Spec::load(&path).unwrap());
    let e = Spec::from_yaml("url: [", "broken.yaml").unwrap_err();
    assert!(e.to_string().starts_with("spec broken.yaml: "), "{e}");
}
