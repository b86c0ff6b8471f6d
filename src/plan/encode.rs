//! Encoding a form data set as a browser does (HTML, "form submission").

use encoding_rs::Encoding;
use sha2::{Digest, Sha256};
use url::Url;

use crate::fetch::{Method, Request};
use crate::form::Enctype;

/// Line breaks in names and values become CRLF, as in a browser's form data set.
fn normalize_newlines(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['\r', '\n']) {
        return s.into();
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push_str("\r\n");
            }
            '\n' => out.push_str("\r\n"),
            c => out.push(c),
        }
    }
    out.into()
}

/// The bytes of a string in the form's encoding; characters the encoding
/// lacks become `&#NNNN;` (encoding_rs does what browsers do).
fn encode_text(s: &str, encoding: &'static Encoding) -> Vec<u8> {
    let s = normalize_newlines(s);
    encoding.encode(&s).0.into_owned()
}

/// `name=value&…` in the given encoding.
pub fn urlencoded(pairs: &[(String, String)], encoding: &'static Encoding) -> String {
    let mut out = String::new();
    for (i, (name, value)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        // The urlencoded byte serializer of the URL standard: alphanumerics
        // and `*-._` stay, space becomes `+`, every other byte `%XX`.
        out.extend(form_urlencoded::byte_serialize(&encode_text(
            name, encoding,
        )));
        out.push('=');
        out.extend(form_urlencoded::byte_serialize(&encode_text(
            value, encoding,
        )));
    }
    out
}

/// A multipart body with a boundary derived from the content, so that the
/// same query gives the same bytes in every run.
fn multipart(pairs: &[(String, String)], encoding: &'static Encoding) -> (Vec<u8>, String) {
    let parts: Vec<(Vec<u8>, Vec<u8>)> = pairs
        .iter()
        .map(|(n, v)| {
            let name = normalize_newlines(n)
                .replace('"', "%22")
                .replace('\r', "%0D")
                .replace('\n', "%0A");
            (
                encoding.encode(&name).0.into_owned(),
                encode_text(v, encoding),
            )
        })
        .collect();
    let mut hasher = Sha256::new();
    for (n, v) in &parts {
        hasher.update(n);
        hasher.update([0]);
        hasher.update(v);
        hasher.update([0]);
    }
    let digest = crate::digest::hex(&hasher.finalize());
    let mut boundary = format!("----gather{}", &digest[..24]);
    let mut salt = 0u32;
    while parts
        .iter()
        .any(|(n, v)| contains(n, boundary.as_bytes()) || contains(v, boundary.as_bytes()))
    {
        salt += 1;
        boundary = format!("----gather{}{salt}", &digest[..24]);
    }
    let mut body = Vec::new();
    for (name, value) in &parts {
        body.extend_from_slice(b"--");
        body.extend_from_slice(boundary.as_bytes());
        body.extend_from_slice(b"\r\nContent-Disposition: form-data; name=\"");
        body.extend_from_slice(name);
        body.extend_from_slice(b"\"\r\n\r\n");
        body.extend_from_slice(value);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"--");
    body.extend_from_slice(boundary.as_bytes());
    body.extend_from_slice(b"--\r\n");
    (body, format!("multipart/form-data; boundary={boundary}"))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The request a browser sends for this form data set: GET replaces the
/// action's query string (and drops its fragment); POST sends the body in
/// the form's enctype.
pub fn request(
    action: &Url,
    method: Method,
    enctype: Enctype,
    encoding: &'static Encoding,
    pairs: &[(String, String)],
) -> Request {
    let mut url = action.clone();
    url.set_fragment(None);
    match method {
        Method::Get => {
            url.set_query(Some(&urlencoded(pairs, encoding)));
            Request::get(url)
        }
        Method::Post => {
            let (body, content_type) = match enctype {
                Enctype::UrlEncoded => (
                    urlencoded(pairs, encoding).into_bytes(),
                    "application/x-www-form-urlencoded".to_string(),
                ),
                Enctype::Multipart => multipart(pairs, encoding),
                Enctype::TextPlain => {
                    let mut body = Vec::new();
                    for (n, v) in pairs {
                        body.extend(encode_text(n, encoding));
                        body.push(b'=');
                        body.extend(encode_text(v, encoding));
                        body.extend_from_slice(b"\r\n");
                    }
                    (body, format!("text/plain; charset={}", encoding.name()))
                }
            };
            Request {
                method: Method::Post,
                url,
                body: Some(body),
                content_type: Some(content_type),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{UTF_8, WINDOWS_1252};

    fn p(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn urlencoded_as_a_browser_in_the_forms_charset() {
        let pairs = p(&[("region", "Rügen"), ("q", "a b&c=d/é*~"), ("ort", "")]);
        assert_eq!(
            urlencoded(&pairs, WINDOWS_1252),
            "region=R%FCgen&q=a+b%26c%3Dd%2F%E9*%7E&ort="
        );
        assert_eq!(urlencoded(&pairs[..1], UTF_8), "region=R%C3%BCgen");
        // Characters the charset lacks become numeric character references.
        assert_eq!(
            urlencoded(&p(&[("s", "Łódź")]), WINDOWS_1252),
            "s=%26%23321%3B%F3d%26%23378%3B"
        );
        assert_eq!(urlencoded(&p(&[("t", "a\nb")]), UTF_8), "t=a%0D%0Ab");
    }

    #[test]
    fn get_replaces_the_query_post_carries_a_body() {
        let action = Url::parse("http://h.test/cgi-bin/q.pl?old=1#top").unwrap();
        let pairs = p(&[("region", "Rügen"), ("preis", "bis 50")]);
        let r = request(
            &action,
            Method::Get,
            Enctype::Multipart,
            WINDOWS_1252,
            &pairs,
        );
        assert_eq!(
            r.url.as_str(),
            "http://h.test/cgi-bin/q.pl?region=R%FCgen&preis=bis+50"
        );
        assert_eq!(r.body, None);
        let r = request(
            &action,
            Method::Post,
            Enctype::UrlEncoded,
            WINDOWS_1252,
            &pairs,
        );
        assert_eq!(r.url.as_str(), "http://h.test/cgi-bin/q.pl?old=1");
        assert_eq!(r.body.as_deref(), Some(&b"region=R%FCgen&preis=bis+50"[..]));
        assert_eq!(
            r.content_type.as_deref(),
            Some("application/x-www-form-urlencoded")
        );
    }

    #[test]
    fn multipart_is_stable_and_well_formed() {
        let action = Url::parse("http://h.test/up").unwrap();
        let pairs = p(&[("a\"b", "x\ny"), ("c", "ü")]);
        let r1 = request(&action, Method::Post, Enctype::Multipart, UTF_8, &pairs);
        let r2 = request(&action, Method::Post, Enctype::Multipart, UTF_8, &pairs);
        assert_eq!(r1, r2);
        let ct = r1.content_type.unwrap();
        let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
        let body = String::from_utf8(r1.body.unwrap()).unwrap();
        assert_eq!(
            body,
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a%22b\"\r\n\r\nx\r\ny\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"c\"\r\n\r\nü\r\n--{boundary}--\r\n")
        );
    }
}
