//! YAML text as a spec: it loads or gives an error; a spec that loads turns
//! into metadata entries (and their problems), is read as metadata, and
//! writes itself as YAML that loads back equal.
#![no_main]

use gather::metadata::Metadata;
use gather::spec::Spec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(spec) = Spec::from_yaml(text, "fuzz.yaml") else {
        return;
    };
    let (entries, _errors) = spec.entries_with_errors("fuzz.yaml");
    let _ = Metadata::from_entries(&entries);
    let _ = spec.credentials("fuzz.yaml");
    let yaml = spec.to_yaml();
    let back = Spec::from_yaml(&yaml, "written.yaml")
        .unwrap_or_else(|e| panic!("the written spec does not load: {e}\n{yaml}"));
    assert_eq!(back, spec, "{yaml}");
    let _ = Spec::from_entries(&spec.url, &entries);
});
