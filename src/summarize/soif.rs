//! Harvest's Summary Object Interchange Format, byte-exact (soif.md).
//!
//! (`→` stands for the TAB byte.)
//!
//! ```text
//! @FILE { http://127.0.0.1:8080/cityworld/
//! Title{32}:→CityWorld - Hotels und Pensionen
//! DB.region{23}:→Fischland
//! Rügen
//! Usedom
//! }
//! ```
//!
//! A stream is zero or more objects, back to back (no blank line between
//! them). [`parse`] accepts exactly what [`write()`] produces:
//!
//! - `@`, the template type (not empty, no white space, no `{` `}`), ` { `,
//!   the URL (not empty, no white space), `\n`;
//! - attribute lines `NAME{SIZE}:` TAB, SIZE bytes of UTF-8 value, `\n`
//!   (names: not empty, no white space, no `{` `}`; SIZE: decimal digits,
//!   no leading zero);
//! - `}` `\n`.
//!
//! Anything else is rejected with the byte offset of the fault.

use std::fmt::Write as _;
use std::io::Write;

/// One SOIF object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoifObject {
    /// The template type (`FILE` for everything gather writes).
    pub template: String,
    pub url: String,
    /// Attribute names with their values (UTF-8 bytes), in output order.
    pub attributes: Vec<(String, Vec<u8>)>,
}

impl SoifObject {
    /// The value of the first attribute called `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.attributes
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// A fault in a SOIF stream: where (byte offset from the start) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("byte {offset}: {message}")]
pub struct SoifError {
    pub offset: usize,
    pub message: String,
}

/// Why an object cannot be written as SOIF.
#[derive(Debug, thiserror::Error)]
pub enum SoifWriteError {
    #[error(
        "invalid SOIF template type {0:?}: must be non-empty, without white space, '{{' or '}}'"
    )]
    Template(String),
    #[error(
        "invalid SOIF attribute name {0:?}: must be non-empty, without white space, '{{' or '}}'"
    )]
    Name(String),
    #[error("SOIF object has an empty URL")]
    EmptyUrl,
    #[error("SOIF attribute {name:?}: value is not UTF-8 (byte {offset})")]
    NotUtf8 { name: String, offset: usize },
    #[error("writing SOIF: {0}")]
    Io(#[from] std::io::Error),
}

/// Whether `name` may be a template type or an attribute name.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c == '{' || c == '}')
}

/// The URL as it goes into an object's first line: every white-space
/// character percent-encoded (its UTF-8 bytes as `%XX`), the rest unchanged.
fn encode_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        if c.is_whitespace() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                // Writing to a String cannot fail.
                let _ = write!(out, "%{b:02X}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Writes one object. The URL is percent-encoded where it holds white space;
/// names and values are checked first, so nothing is written for an object
/// that is not valid.
pub fn write(obj: &SoifObject, out: &mut impl Write) -> Result<(), SoifWriteError> {
    if !is_valid_name(&obj.template) {
        return Err(SoifWriteError::Template(obj.template.clone()));
    }
    if obj.url.is_empty() {
        return Err(SoifWriteError::EmptyUrl);
    }
    for (name, value) in &obj.attributes {
        if !is_valid_name(name) {
            return Err(SoifWriteError::Name(name.clone()));
        }
        if let Err(e) = std::str::from_utf8(value) {
            return Err(SoifWriteError::NotUtf8 {
                name: name.clone(),
                offset: e.valid_up_to(),
            });
        }
    }
    let mut buf = Vec::new();
    buf.push(b'@');
    buf.extend_from_slice(obj.template.as_bytes());
    buf.extend_from_slice(b" { ");
    buf.extend_from_slice(encode_url(&obj.url).as_bytes());
    buf.push(b'\n');
    for (name, value) in &obj.attributes {
        buf.extend_from_slice(format!("{name}{{{}}}:\t", value.len()).as_bytes());
        buf.extend_from_slice(value);
        buf.push(b'\n');
    }
    buf.extend_from_slice(b"}\n");
    out.write_all(&buf)?;
    Ok(())
}

/// Parses a stream of SOIF objects, strictly (see the module documentation).
pub fn parse(bytes: &[u8]) -> Result<Vec<SoifObject>, SoifError> {
    let mut p = Parser { bytes, pos: 0 };
    let mut objects = Vec::new();
    while p.pos < bytes.len() {
        objects.push(p.object()?);
    }
    Ok(objects)
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn fail<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, SoifError> {
        Err(SoifError {
            offset,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of input".to_string(),
            Some(b) if b.is_ascii_graphic() || b == b' ' => format!("{:?}", b as char),
            Some(b) => format!("byte 0x{b:02X}"),
        }
    }

    fn expect(&mut self, literal: &[u8], what: &str) -> Result<(), SoifError> {
        for &b in literal {
            if self.peek() != Some(b) {
                return self.fail(
                    self.pos,
                    format!("expected {what}, found {}", self.describe()),
                );
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn utf8(&self, start: usize, end: usize, what: &str) -> Result<String, SoifError> {
        match std::str::from_utf8(&self.bytes[start..end]) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => self.fail(start + e.valid_up_to(), format!("{what} is not UTF-8")),
        }
    }

    /// A name (template type or attribute name) running up to `stop`.
    fn name(&mut self, stop: u8, what: &str) -> Result<String, SoifError> {
        let start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail(self.pos, format!("input ends inside the {what}")),
                Some(b) if b == stop => break,
                Some(b'{' | b'}') | Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => {
                    return self.fail(
                        self.pos,
                        format!(
                            "invalid {what}: {} is not allowed in it (expected {:?} after it)",
                            self.describe(),
                            stop as char
                        ),
                    );
                }
                Some(_) => self.pos += 1,
            }
        }
        if self.pos == start {
            return self.fail(start, format!("empty {what}"));
        }
        let name = self.utf8(start, self.pos, what)?;
        if !is_valid_name(&name) {
            return self.fail(
                start,
                format!("invalid {what} {name:?}: contains white space"),
            );
        }
        Ok(name)
    }

    fn object(&mut self) -> Result<SoifObject, SoifError> {
        if self.peek() != Some(b'@') {
            return self.fail(
                self.pos,
                format!("expected '@' starting an object, found {}", self.describe()),
            );
        }
        self.pos += 1;
        let template = self.name(b' ', "template type")?;
        self.expect(b" { ", "\" { \" after the template type")?;
        let url_start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail(self.pos, "input ends inside the URL line"),
                Some(b'\n') => break,
                Some(b) if b.is_ascii_whitespace() => {
                    return self.fail(
                        self.pos,
                        format!("white space ({}) in the URL", self.describe()),
                    )
                }
                Some(_) => self.pos += 1,
            }
        }
        if self.pos == url_start {
            return self.fail(url_start, "empty URL");
        }
        let url = self.utf8(url_start, self.pos, "URL")?;
        if url.chars().any(char::is_whitespace) {
            return self.fail(url_start, format!("white space in the URL {url:?}"));
        }
        self.pos += 1; // '\n'
        let mut attributes = Vec::new();
        loop {
            match self.peek() {
                None => return self.fail(self.pos, "input ends before the object's closing '}'"),
                Some(b'}') => {
                    self.pos += 1;
                    self.expect(b"\n", "a newline after the object's closing '}'")?;
                    return Ok(SoifObject {
                        template,
                        url,
                        attributes,
                    });
                }
                Some(_) => attributes.push(self.attribute()?),
            }
        }
    }

    fn attribute(&mut self) -> Result<(String, Vec<u8>), SoifError> {
        let name = self.name(b'{', "attribute name")?;
        self.pos += 1; // '{'
        let size_start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == size_start {
            return self.fail(
                self.pos,
                format!(
                    "attribute {name:?}: expected the value size (digits), found {}",
                    self.describe()
                ),
            );
        }
        let digits = &self.bytes[size_start..self.pos];
        if digits.len() > 1 && digits[0] == b'0' {
            return self.fail(
                size_start,
                format!("attribute {name:?}: the value size has a leading zero"),
            );
        }
        // Digits are ASCII, so this is valid UTF-8.
        let size_text = String::from_utf8_lossy(digits);
        let size: usize = match size_text.parse() {
            Ok(n) => n,
            Err(_) => {
                return self.fail(
                    size_start,
                    format!("attribute {name:?}: size {size_text} is too large"),
                )
            }
        };
        self.expect(b"}", &format!("'}}' after the size of attribute {name:?}"))?;
        self.expect(
            b":",
            &format!("':' after '{{{size}}}' of attribute {name:?}"),
        )?;
        self.expect(b"\t", &format!("one TAB after ':' of attribute {name:?}"))?;
        let value_start = self.pos;
        let left = self.bytes.len() - value_start;
        if size > left {
            return self.fail(
                size_start,
                format!("attribute {name:?}: size {size} is larger than the {left} bytes left in the input"),
            );
        }
        self.pos += size;
        let value = &self.bytes[value_start..self.pos];
        if let Err(e) = std::str::from_utf8(value) {
            return self.fail(
                value_start + e.valid_up_to(),
                format!("attribute {name:?}: value is not UTF-8"),
            );
        }
        self.expect(
            b"\n",
            &format!(
                "a newline after the {size} bytes of the value of attribute {name:?} (is the size right?)"
            ),
        )?;
        Ok((name, value.to_vec()))
    }
}
