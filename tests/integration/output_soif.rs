//! SOIF writing and strict reading (soif.md).

use gather::soif::{self, Part, SoifErrorKind, SoifObject};
use proptest::prelude::*;

const EXAMPLE: &[u8] = "@FILE { http://127.0.0.1:8080/cityworld/\n\
Title{32}:\tCityWorld - Hotels und Pensionen\n\
DB.region{23}:\tFischland\nRügen\nUsedom\n\
}\n"
.as_bytes();

fn cityworld() -> SoifObject {
    SoifObject {
        template: "FILE".into(),
        url: "http://127.0.0.1:8080/cityworld/".into(),
        attributes: vec![
            ("Title".into(), b"CityWorld - Hotels und Pensionen".to_vec()),
            (
                "DB.region".into(),
                "Fischland\nRügen\nUsedom".as_bytes().to_vec(),
            ),
        ],
    }
}

fn written(obj: &SoifObject) -> Vec<u8> {
    let mut out = Vec::new();
    soif::write(obj, &mut out).expect("valid object");
    out
}

fn fault(input: &[u8]) -> soif::SoifError {
    match soif::parse(input) {
        Ok(objects) => panic!("accepted malformed SOIF as {objects:?}"),
        Err(e) => e,
    }
}

#[test]
fn writes_the_spec_example_byte_exact() {
    assert_eq!(written(&cityworld()), EXAMPLE);
}

#[test]
fn parses_the_spec_example() {
    assert_eq!(soif::parse(EXAMPLE).unwrap(), vec![cityworld()]);
}

#[test]
fn size_counts_bytes_not_characters() {
    let obj = SoifObject {
        template: "FILE".into(),
        url: "http://x/".into(),
        attributes: vec![("DB.ort".into(), "Göhren".as_bytes().to_vec())],
    };
    let out = written(&obj);
    assert_eq!(out, "@FILE { http://x/\nDB.ort{7}:\tGöhren\n}\n".as_bytes());
}

#[test]
fn values_with_newlines_and_braces_round_trip() {
    let obj = SoifObject {
        template: "FILE".into(),
        url: "http://x/a?b=c".into(),
        attributes: vec![
            (
                "Full-Text".into(),
                b"line one\n}\n@FILE { http://y/\nName{3}:\tabc".to_vec(),
            ),
            ("Empty".into(), Vec::new()),
            ("Trailing".into(), b"ends with newline\n".to_vec()),
        ],
    };
    let out = written(&obj);
    assert_eq!(soif::parse(&out).unwrap(), vec![obj]);
}

#[test]
fn several_objects_back_to_back() {
    let mut second = cityworld();
    second.url = "http://127.0.0.1:8080/other".into();
    let mut stream = written(&cityworld());
    stream.extend(written(&second));
    assert_eq!(soif::parse(&stream).unwrap(), vec![cityworld(), second]);
    assert_eq!(soif::parse(b"").unwrap(), vec![]);
}

#[test]
fn url_white_space_is_percent_encoded() {
    let obj = SoifObject {
        template: "FILE".into(),
        url: "http://x/Hotel Liste\t2.html".into(),
        attributes: vec![],
    };
    assert_eq!(
        written(&obj),
        b"@FILE { http://x/Hotel%20Liste%092.html\n}\n"
    );
}

#[test]
fn write_rejects_invalid_names() {
    for bad in ["", "two words", "a{b", "b}", "tab\there"] {
        let obj = SoifObject {
            template: "FILE".into(),
            url: "http://x/".into(),
            attributes: vec![(bad.into(), b"v".to_vec())],
        };
        let mut out = Vec::new();
        let err = soif::write(&obj, &mut out).expect_err(bad);
        assert!(err.to_string().contains("attribute name"), "{err}");
        assert!(out.is_empty(), "nothing written for an invalid object");
    }
    let obj = SoifObject {
        template: "F ILE".into(),
        url: "http://x/".into(),
        attributes: vec![],
    };
    assert!(soif::write(&obj, &mut Vec::new()).is_err());
}

#[test]
fn fault_missing_tab() {
    let e = fault(b"@FILE { http://x/\nTitle{3}:abc\n}\n");
    assert_eq!((e.span.offset, e.span.line, e.span.column), (27, 2, 10));
    assert!(
        matches!(&e.kind, SoifErrorKind::ExpectedTab { attribute, found: Some(b'a') } if attribute == "Title"),
        "{e}"
    );
}

#[test]
fn fault_two_tabs_make_the_size_wrong() {
    let e = fault(b"@FILE { http://x/\nTitle{3}:\t\tabc\n}\n");
    assert_eq!(e.span.offset, 31);
    assert!(
        matches!(
            e.kind,
            SoifErrorKind::ExpectedNewlineAfterValue {
                size: 3,
                found: Some(b'c'),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn fault_size_too_short() {
    // "Rügen" is 6 bytes; a size counting characters (5) is wrong.
    let input = "@FILE { http://x/\nDB.region{5}:\tRügen\n}\n".as_bytes();
    let e = fault(input);
    assert_eq!((e.span.offset, e.span.line, e.span.column), (37, 2, 19));
    assert!(
        matches!(
            e.kind,
            SoifErrorKind::ExpectedNewlineAfterValue { size: 5, .. }
        ),
        "{e}"
    );
}

#[test]
fn fault_size_too_large() {
    let e = fault(b"@FILE { http://x/\nTitle{99}:\tabc\n}\n");
    assert_eq!((e.span.offset, e.span.len), (24, 2));
    assert!(
        matches!(
            e.kind,
            SoifErrorKind::SizeBeyondInput {
                size: 99,
                left: 6,
                ..
            }
        ),
        "{e}"
    );
    let e = fault(b"@FILE { http://x/\nTitle{99999999999999999999999}:\tabc\n}\n");
    assert_eq!(e.span.offset, 24);
    assert!(matches!(e.kind, SoifErrorKind::SizeTooLarge { .. }), "{e}");
}

/// Found by fuzzing (`soif`): `{032}` was read as 32, so a stream that
/// `write` never produces parsed, and did not write back the same bytes.
#[test]
fn fault_size_with_a_leading_zero() {
    let e = fault(b"@FILE { http://x/\nTitle{03}:\tabc\n}\n");
    assert_eq!((e.span.offset, e.span.len), (24, 2));
    assert!(
        matches!(e.kind, SoifErrorKind::SizeLeadingZero { ref size, .. } if size == "03"),
        "{e}"
    );
    let e = fault(b"@FILE { http://x/\nTitle{00}:\t\n}\n");
    assert_eq!(e.span.offset, 24);
    // An empty value's size is 0.
    let objects = soif::parse(b"@FILE { http://x/\nTitle{0}:\t\n}\n").unwrap();
    assert_eq!(objects[0].get("Title"), Some(&b""[..]));
}

#[test]
fn fault_missing_size() {
    let e = fault(b"@FILE { http://x/\nTitle{}:\tabc\n}\n");
    assert_eq!(e.span.offset, 24);
    assert!(
        matches!(
            e.kind,
            SoifErrorKind::MissingSize {
                found: Some(b'}'),
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn fault_bad_attribute_name() {
    let e = fault(b"@FILE { http://x/\nThe Title{3}:\tabc\n}\n");
    assert_eq!(e.span.offset, 21);
    assert_eq!(
        e.kind,
        SoifErrorKind::BadByteInName {
            part: Part::AttributeName,
            found: b' ',
            stop: b'{'
        }
    );
    let e = fault(b"@FILE { http://x/\n{3}:\tabc\n}\n");
    assert_eq!(e.span.offset, 18);
    assert_eq!(
        e.kind,
        SoifErrorKind::Empty {
            part: Part::AttributeName
        }
    );
    let e = fault("@FILE { http://x/\nTi\u{a0}tle{3}:\tabc\n}\n".as_bytes());
    assert_eq!(e.span.offset, 18);
    assert!(
        matches!(
            e.kind,
            SoifErrorKind::WhiteSpaceIn {
                part: Part::AttributeName,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn fault_missing_closing_brace() {
    let e = fault(b"@FILE { http://x/\nTitle{3}:\tabc\n");
    assert_eq!(e.span.offset, 32);
    assert_eq!(e.kind, SoifErrorKind::EndBeforeClose);
    let e = fault(b"@FILE { http://x/\nTitle{3}:\tabc\n}");
    assert_eq!(e.span.offset, 33);
    assert_eq!(
        e.kind,
        SoifErrorKind::ExpectedNewlineAfterObject { found: None }
    );
}

#[test]
fn fault_trailing_garbage() {
    let mut input = EXAMPLE.to_vec();
    input.extend_from_slice(b"\nhello");
    let e = fault(&input);
    assert_eq!(e.span.offset, EXAMPLE.len());
    assert_eq!(e.kind, SoifErrorKind::ExpectedObject { found: Some(b'\n') });
}

#[test]
fn fault_bad_object_header() {
    let e = fault(b"FILE { http://x/\n}\n");
    assert_eq!(e.span.offset, 0);
    assert!(matches!(e.kind, SoifErrorKind::ExpectedObject { .. }));
    let e = fault(b"@FILE {http://x/\n}\n");
    assert_eq!(e.span.offset, 7);
    assert_eq!(
        e.kind,
        SoifErrorKind::ExpectedOpenBrace { found: Some(b'h') }
    );
    let e = fault(b"@FILE { http://x/ y\n}\n");
    assert_eq!(e.span.offset, 17);
    assert_eq!(e.kind, SoifErrorKind::WhiteSpaceInUrl { found: b' ' });
    let e = fault(b"@FILE { \n}\n");
    assert_eq!(e.kind, SoifErrorKind::Empty { part: Part::Url });
    let e = fault(b"@FILE { http://x/\r\n}\n");
    assert_eq!(e.span.offset, 17);
    assert_eq!(e.kind, SoifErrorKind::WhiteSpaceInUrl { found: b'\r' });
}

#[test]
fn fault_value_not_utf8() {
    let e = fault(b"@FILE { http://x/\nTitle{3}:\ta\xffc\n}\n");
    assert_eq!((e.span.offset, e.span.line, e.span.column), (29, 2, 12));
    assert!(
        matches!(&e.kind, SoifErrorKind::ValueNotUtf8 { attribute } if attribute == "Title"),
        "{e}"
    );
}

#[test]
fn faults_show_the_line_with_a_caret_or_the_byte_offset() {
    let e = fault(b"@FILE { http://x/\nTitle{3}:\t\tabc\n}\n");
    assert_eq!(
        e.to_string(),
        "byte 31 (line 2, column 14): expected a newline after the 3 bytes of the value of \
         attribute \"Title\" (is the size right?), found 'c'\n  2 | Title{3}:\t\tabc\n    |          \t\t  ^"
    );
    // Invalid UTF-8 shows as U+FFFD, the caret under it.
    let e = fault(b"@FILE { http://x/\nTitle{3}:\ta\xffc\n}\n");
    assert!(
        e.to_string()
            .ends_with("\n  2 | Title{3}:\ta\u{fffd}c\n    |          \t ^"),
        "{e}"
    );
    // A binary line is not shown; the byte offset says where.
    let e = fault(b"@FILE { http://x/\nTitle{2}:\ta\x00c\n}\n");
    assert!(e.excerpt.is_none());
    assert!(
        e.to_string().starts_with("byte 30 (line 2, column 13): "),
        "{e}"
    );
    assert!(e.to_string().ends_with("(a binary line)"), "{e}");
}

fn name_strategy() -> impl Strategy<Value = String> {
    "[A-Za-z0-9._:@-]{1,12}"
}

fn object_strategy() -> impl Strategy<Value = SoifObject> {
    (
        name_strategy(),
        "[a-z]{1,5}://[^\\s]{0,20}",
        proptest::collection::vec((name_strategy(), any::<String>()), 0..6),
    )
        .prop_map(|(template, url, attrs)| SoifObject {
            template,
            url,
            attributes: attrs
                .into_iter()
                .map(|(n, v)| (n, v.into_bytes()))
                .collect(),
        })
}

proptest! {
    #[test]
    fn round_trip(objects in proptest::collection::vec(object_strategy(), 0..4)) {
        let mut out = Vec::new();
        for o in &objects {
            soif::write(o, &mut out).unwrap();
        }
        prop_assert_eq!(soif::parse(&out).unwrap(), objects);
    }

    #[test]
    fn parse_never_panics_and_faults_are_inside_the_input(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Err(e) = soif::parse(&bytes) {
            prop_assert!(e.span.end() <= bytes.len());
            let _ = e.to_string();
        }
    }

    #[test]
    fn mutated_valid_soif_never_panics(pos in 0usize..80, byte in any::<u8>()) {
        let mut input = EXAMPLE.to_vec();
        let at = pos % input.len();
        input[at] = byte;
        if let Err(e) = soif::parse(&input) {
            prop_assert!(e.span.end() <= input.len());
            let _ = e.to_string();
        }
    }
}
