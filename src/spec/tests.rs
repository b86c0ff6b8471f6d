use super::*;
use crate::metadata::{Metadata, ResultKind};

const HOTELS: &str = r#"
url: http://cityworld.test/hotels/form.html
query_element: region
domains:
  ort: /[A-Z]%/
  preis: [bis 50 DM, "über 50, unter 100 DM"]
results:
  - attribute: region
    values: [Fischland, Rügen, Usedom]
  - prefix: html.body->table[1].
  - attribute: ort
    rule: |
      tr[j:*].td[1].txt
        where tr[j].td[1].font.getAttr(color) = '#FF8000'
navigation: no
max_queries: 100
"#;

#[test]
fn a_spec_becomes_metadata_entries() {
    let spec = Spec::from_yaml(HOTELS, "hotels.yaml").unwrap();
    let entries = spec.entries("hotels.yaml").unwrap();
    let md = Metadata::parse(&entries).unwrap();
    assert_eq!(md.query_elements, ["region"]);
    assert_eq!(md.domains["ort"].len(), 26);
    assert_eq!(
        md.domains["preis"].get(1).as_deref(),
        Some("über 50, unter 100 DM")
    );
    assert_eq!(md.navigation, Some(false));
    assert_eq!(md.max_queries, Some(100));
    match &md.results[1].kind {
        ResultKind::Rule(_) => {
            assert!(md.rule_texts["ort"].starts_with("html.body->table[1].tr[j:*]"))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&md.results[0].kind, ResultKind::Values(v) if v.len() == 3));
}

#[test]
fn spec_errors_name_the_key_or_line() {
    let e = Spec::from_yaml("url: x\nquery_elemnts: a\n", "s.yaml").unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("query_elemnts") && msg.contains("line 2"),
        "{msg}"
    );
    let spec = Spec::from_yaml(
        "url: x\nresults:\n  - attribute: a\n  - prefix: p\n    rule: r\n",
        "s.yaml",
    )
    .unwrap();
    let errors = spec.entries("s.yaml").unwrap_err();
    assert_eq!(errors.len(), 2);
    assert!(
        errors[0].to_string().contains("key results[0]"),
        "{}",
        errors[0]
    );
    let spec = Spec::from_yaml(
        "url: x\nmax_queries: 5\nresults:\n  - attribute: a\n    rule: td.b\n",
        "s.yaml",
    )
    .unwrap();
    let (_, problems) = Metadata::from_entries(&spec.entries("s.yaml").unwrap());
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0]
            .to_string()
            .starts_with("s.yaml key results[0].rule"),
        "{}",
        problems[0]
    );
}

#[test]
fn entries_to_spec_and_back_give_the_same_metadata() {
    let spec = Spec::from_yaml(HOTELS, "hotels.yaml").unwrap();
    let entries = spec.entries("hotels.yaml").unwrap();
    let again = Spec::from_entries(&spec.url, &entries);
    let yaml = again.to_yaml();
    let reread = Spec::from_yaml(&yaml, "generated").unwrap();
    assert_eq!(reread, again, "{yaml}");
    let a = Metadata::parse(&entries).unwrap();
    let b = Metadata::parse(&reread.entries("generated").unwrap()).unwrap();
    assert_eq!(format!("{:?}", a.domains), format!("{:?}", b.domains));
    assert_eq!(a.query_elements, b.query_elements);
    assert_eq!(format!("{:?}", a.results), format!("{:?}", b.results));
}

#[test]
fn credentials_from_the_spec_and_its_variable() {
    let spec = Spec::from_yaml(
        "url: x\nauth: [\"h:1=u:p\"]\nauth_env: GATHER_SPEC_TEST_UNSET_VAR\n",
        "s",
    )
    .unwrap();
    assert!(spec
        .credentials("s")
        .unwrap_err()
        .to_string()
        .contains("GATHER_SPEC_TEST_UNSET_VAR"));
    let spec = Spec::from_yaml("url: x\nauth: [\"h:1=u:p\"]\n", "s").unwrap();
    assert_eq!(spec.credentials("s").unwrap(), ["h:1=u:p"]);
}

#[test]
fn every_key_of_the_wrong_type_is_named_with_what_it_should_hold() {
    let text = "url: http://x/\nmax_queries: many\nmax_pages: [1]\nnavigation: 3\ncolour: blue\n";
    let Err(SpecError::Keys { errors, .. }) = Spec::from_yaml(text, "bad.yaml") else {
        panic!("several keys are wrong");
    };
    let keys: Vec<(String, String)> = errors
        .iter()
        .map(|e| match e {
            SpecError::Key { key, message, .. } => (key.clone(), message.clone()),
            other => panic!("{other}"),
        })
        .collect();
    let named: Vec<&str> = keys.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(named, ["max_queries", "max_pages", "navigation", "colour"]);
    assert!(
        keys[0].1.contains("expected a whole number"),
        "{}",
        keys[0].1
    );
    assert!(keys[2].1.contains("expected yes or no"), "{}", keys[2].1);
    assert!(
        keys[3].1.contains("unknown field `colour`"),
        "{}",
        keys[3].1
    );
    // One wrong key is YAML's own error, with its line.
    let one = Spec::from_yaml("url: http://x/\nmax_pages: lots\n", "bad.yaml").unwrap_err();
    let msg = one.to_string();
    assert!(msg.contains("max_pages") && msg.contains("line 2"), "{msg}");
}

#[test]
fn read_for_checking_wrong_keys_are_left_out_and_listed_first() {
    let text = "url: http://x/\nmax_queries: many\nmax_pages: 7\nresults:\n  - attribute: a\n    rule: html.body.txt\n";
    let spec = Spec::from_yaml_listing(text, "bad.yaml").unwrap();
    assert_eq!(spec.max_pages, Some(7));
    assert_eq!(spec.max_queries, None);
    assert_eq!(spec.wrong_keys.len(), 1);
    assert_eq!(spec.wrong_keys[0].0, "max_queries");
    assert!(
        spec.wrong_keys[0].1.ends_with("(line 2)"),
        "{:?}",
        spec.wrong_keys
    );
    let (entries, errors) = spec.entries_with_errors("bad.yaml");
    assert!(entries.iter().any(|e| e.name == "DB.Result.a"));
    assert!(matches!(&errors[..], [SpecError::Key { key, .. }] if key == "max_queries"));
    // What is left must still be a spec: without a usable url it fails as
    // from_yaml does.
    assert!(Spec::from_yaml_listing("url: [1]\nmax_pages: 7\n", "bad.yaml").is_err());
    assert!(Spec::from_yaml_listing("- a\n", "bad.yaml").is_err());
    // A good spec has no wrong keys.
    let good = Spec::from_yaml_listing("url: http://x/\n", "s").unwrap();
    assert!(good.wrong_keys.is_empty());
}

#[test]
fn boilerplate_names_a_method_and_nothing_else() {
    let spec = Spec::from_yaml(&format!("{HOTELS}boilerplate: sst\n"), "h.yaml").unwrap();
    assert_eq!(spec.boilerplate, Some(crate::boilerplate::Method::Sst));
    assert!(serde_norway::to_string(&spec)
        .unwrap()
        .contains("boilerplate: sst"));
    let err = Spec::from_yaml(&format!("{HOTELS}boilerplate: magic\n"), "h.yaml").unwrap_err();
    assert!(err.to_string().contains("ntpc, lev, sst or none"), "{err}");
    assert_eq!(Spec::from_yaml(HOTELS, "h.yaml").unwrap().boilerplate, None);
}
