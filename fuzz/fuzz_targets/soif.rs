//! The first byte picks the input's shape. Even: the SOIF reader on the
//! rest, arbitrary bytes: objects or an error at an offset
//! inside the input; whatever parses, written back with `soif::write`, is
//! the same bytes and parses back equal. Odd: objects built from the rest,
//! written, parse back equal.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use gather::soif::{self, SoifObject};
use libfuzzer_sys::fuzz_target;

enum Input {
    Bytes(Vec<u8>),
    Objects(Objects),
}

type Objects = Vec<(String, String, Vec<(String, String)>)>;

fn input(data: &[u8]) -> Option<Input> {
    let (&mode, rest) = data.split_first()?;
    if mode % 2 == 0 {
        Some(Input::Bytes(rest.to_vec()))
    } else {
        Objects::arbitrary_take_rest(Unstructured::new(rest))
            .ok()
            .map(Input::Objects)
    }
}

fn write_all(objects: &[SoifObject]) -> Vec<u8> {
    let mut out = Vec::new();
    for o in objects {
        soif::write(o, &mut out).unwrap_or_else(|e| panic!("{o:?}: {e}"));
    }
    out
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = input(data) else {
        return;
    };
    match input {
        Input::Bytes(bytes) => match soif::parse(&bytes) {
            Ok(objects) => {
                let written = write_all(&objects);
                assert_eq!(written, bytes);
                assert_eq!(soif::parse(&written).unwrap(), objects);
            }
            Err(e) => assert!(e.span.offset <= bytes.len(), "{e:?}"),
        },
        Input::Objects(objects) => {
            let mut kept = Vec::new();
            for (template, url, attributes) in objects {
                let obj = SoifObject {
                    template,
                    url,
                    attributes: attributes
                        .into_iter()
                        .map(|(n, v)| (n, v.into_bytes()))
                        .collect(),
                };
                let mut out = Vec::new();
                if soif::write(&obj, &mut out).is_ok() {
                    let mut back = soif::parse(&out).unwrap_or_else(|e| panic!("{out:?}: {e}"));
                    assert_eq!(back.len(), 1);
                    let back = back.remove(0);
                    assert_eq!(back.template, obj.template);
                    assert_eq!(back.attributes, obj.attributes);
                    if !obj.url.chars().any(char::is_whitespace) {
                        assert_eq!(back.url, obj.url);
                    }
                    kept.push(back);
                } else {
                    assert!(out.is_empty(), "an invalid object was written in part");
                }
            }
            let stream = write_all(&kept);
            assert_eq!(soif::parse(&stream).unwrap(), kept);
        }
    }
});
