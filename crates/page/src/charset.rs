//! Character sets: turning the bytes of a page into text the way a browser does.
//!
//! The order of precedence is the HTML standard's: a byte order mark, then the
//! `charset` of the HTTP `Content-Type` header, then a `<meta charset>` or
//! `<meta http-equiv="Content-Type">` in the first 1024 bytes, then, for a
//! page that declares nothing, the encoding its bytes look like, guessed as
//! Firefox guesses it (the `chardetng` detector over the whole body, UTF-8
//! allowed): a UTF-8 page served without a charset reads as UTF-8, not as
//! windows-1252 mojibake (`Search→`, not `Searchâ†’`), and a legacy page
//! without one still reads in its own encoding (windows-1252, Shift_JIS,
//! windows-1251, …). Plain ASCII comes out as windows-1252, as in browsers,
//! which reads it the same.

use encoding_rs::{Encoding, UTF_8};

/// The text of a document and the encoding it was read with.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    pub encoding: &'static Encoding,
    /// True when some bytes were not valid in that encoding and were replaced
    /// by U+FFFD.
    pub had_errors: bool,
}

/// The encoding named by a `Content-Type` value (`text/html; charset=…`).
fn from_content_type(content_type: &str) -> Option<&'static Encoding> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        Encoding::for_label(value.as_bytes())
    })
}

/// The encoding a `<meta>` element in the first 1024 bytes declares.
fn from_meta_prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut at = 0;
    while let Some(pos) = find(&lower[at..], b"<meta") {
        let start = at + pos + 5;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(cs) = find(tag, b"charset") {
            let rest = &tag[cs + 7..];
            let rest = trim_start(rest);
            if let Some(rest) = rest.strip_prefix(b"=") {
                let rest = trim_start(rest);
                let rest = rest
                    .strip_prefix(b"\"")
                    .or_else(|| rest.strip_prefix(b"'"))
                    .unwrap_or(rest);
                let len = rest
                    .iter()
                    .position(|&b| matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                    .unwrap_or(rest.len());
                if let Some(enc) = Encoding::for_label(&rest[..len]) {
                    // A page cannot declare itself UTF-16 in its own bytes.
                    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
                        return Some(UTF_8);
                    }
                    return Some(enc);
                }
            }
        }
        at = end.min(lower.len());
        if at >= lower.len() {
            break;
        }
    }
    None
}

/// The encoding the bytes of an undeclared page look like (see the module docs).
fn detect(bytes: &[u8]) -> &'static Encoding {
    // Valid UTF-8 with some non-ASCII is what chardetng answers UTF-8 for
    // (its UTF-8 candidate is dropped only on a malformed sequence, and
    // wins when allowed): checked first, as that costs a fraction of a
    // percent of running its candidates over the page.
    if !bytes.is_ascii() && std::str::from_utf8(bytes).is_ok() {
        return UTF_8;
    }
    chardetng_guess(bytes)
}

/// chardetng's guess over all its candidates, UTF-8 allowed.
fn chardetng_guess(bytes: &[u8]) -> &'static Encoding {
    let mut detector = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
    detector.feed(bytes, true);
    detector.guess(None, chardetng::Utf8Detection::Allow)
}

/// Decodes a document: BOM, then the HTTP header's charset, then the meta
/// prescan, then the encoding detected from the bytes.
pub fn decode(bytes: &[u8], content_type: Option<&str>) -> Decoded {
    let declared = content_type
        .and_then(from_content_type)
        .or_else(|| from_meta_prescan(bytes))
        .unwrap_or_else(|| detect(bytes));
    // `decode` sniffs a BOM first and lets it override the declared encoding.
    let (text, encoding, had_errors) = declared.decode(bytes);
    Decoded {
        text: text.into_owned(),
        encoding,
        had_errors,
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::WINDOWS_1252;

    #[test]
    fn header_wins_over_meta() {
        let page = b"<meta charset=utf-8><p>\xfc</p>";
        let d = decode(page, Some("text/html; charset=ISO-8859-1"));
        assert_eq!(d.encoding, WINDOWS_1252);
        assert!(d.text.contains('ü'));
    }

    #[test]
    fn meta_charset_and_http_equiv() {
        assert_eq!(
            from_meta_prescan(b"<html><head><META CHARSET=\"UTF-8\">"),
            Some(UTF_8)
        );
        assert_eq!(
            from_meta_prescan(
                b"<meta http-equiv='Content-Type' content='text/html; charset=iso-8859-1'>"
            ),
            Some(WINDOWS_1252)
        );
        assert_eq!(from_meta_prescan(b"<meta name=x content=y>"), None);
    }

    #[test]
    fn bom_overrides_everything() {
        let d = decode(
            b"\xef\xbb\xbf<p>\xc3\xbc</p>",
            Some("text/html; charset=latin1"),
        );
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.text, "<p>ü</p>");
    }

    #[test]
    fn broken_utf8_is_reported_not_lost() {
        let d = decode(b"<p>\xc3</p>", Some("text/html; charset=utf-8"));
        assert!(d.had_errors);
        assert_eq!(d.text, "<p>\u{fffd}</p>");
    }

    #[test]
    fn undeclared_legacy_page_is_detected_as_windows_1252() {
        let d = decode(b"<p>Die Gr\xfc\xdfe aus M\xfcnchen und K\xf6ln</p>", None);
        assert_eq!(d.encoding, WINDOWS_1252);
        assert_eq!(d.text, "<p>Die Grüße aus München und Köln</p>");
    }

    #[test]
    fn undeclared_utf8_page_is_detected_as_utf8() {
        let page = "<p>Search→ Grüße aus Köln, «déjà vu»</p>";
        let d = decode(page.as_bytes(), Some("text/html"));
        assert_eq!(d.encoding, UTF_8);
        assert_eq!(d.text, page);
        assert!(!d.had_errors);
    }

    #[test]
    fn undeclared_cyrillic_page_is_detected() {
        let (bytes, _, _) = encoding_rs::WINDOWS_1251
            .encode("<p>Привет, как дела? Это страница без кодировки.</p>");
        let d = decode(&bytes, None);
        assert_eq!(d.encoding, encoding_rs::WINDOWS_1251);
        assert!(d.text.contains("Привет"));
    }

    #[test]
    fn the_utf8_shortcut_gives_what_chardetng_gives() {
        let pages: [&[u8]; 6] = [
            "<p>Привет, как дела?</p>".as_bytes(),
            "<p>日本語のページ \u{1b}$B</p>".as_bytes(),
            "\u{1b}$B<p>déjà</p>".as_bytes(),
            "<p>a → b</p>".as_bytes(),
            b"<p>plain ascii</p>",
            b"<p>caf\xe9 \xe2\x86\x92</p>",
        ];
        for bytes in pages {
            assert_eq!(detect(bytes), chardetng_guess(bytes), "{bytes:?}");
        }
        assert_eq!(detect("<p>→</p>".as_bytes()), UTF_8);
    }
}
