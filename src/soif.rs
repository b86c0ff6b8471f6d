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

use std::fmt::{self, Write as _};
use std::io::Write;

use crate::span::{Excerpt, Span};

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

/// A fault in a SOIF stream: what, and where (`span.offset` is the byte
/// offset from the start of the stream).
///
/// `Display` writes the byte offset, line and column, what is wrong, then
/// the offending line (decoded as UTF-8, an invalid sequence shown as `�`)
/// with a caret under the fault — unless the line is binary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct SoifError {
    pub kind: SoifErrorKind,
    pub span: Span,
    /// The offending line, for display; `None` when it is binary.
    pub excerpt: Option<Box<Excerpt>>,
}

/// A part of a SOIF object, as faults name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    TemplateType,
    AttributeName,
    Url,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Part::TemplateType => "template type",
            Part::AttributeName => "attribute name",
            Part::Url => "URL",
        })
    }
}

/// What can be wrong in a SOIF stream. `found` is the byte at the fault,
/// `None` at the end of the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SoifErrorKind {
    /// Something other than `@` where an object starts.
    ExpectedObject { found: Option<u8> },
    /// Not ` { ` after the template type.
    ExpectedOpenBrace { found: Option<u8> },
    /// The input ends inside a template type, an attribute name or the URL line.
    EndInside { part: Part },
    /// The input ends before the object's closing `}`.
    EndBeforeClose,
    /// An empty template type, attribute name or URL.
    Empty { part: Part },
    /// A byte not allowed in a template type or attribute name (white
    /// space, `{`, `}`) before the `stop` that ends it.
    BadByteInName { part: Part, found: u8, stop: u8 },
    /// White space in a template type, attribute name or URL (a non-ASCII
    /// white-space character).
    WhiteSpaceIn { part: Part, text: String },
    /// An ASCII white-space byte in the URL.
    WhiteSpaceInUrl { found: u8 },
    /// A template type, attribute name or URL that is not UTF-8.
    NotUtf8 { part: Part },
    /// No digits where an attribute's size goes.
    MissingSize {
        attribute: String,
        found: Option<u8>,
    },
    /// A size that does not fit in memory.
    SizeTooLarge { attribute: String, size: String },
    /// A size written with a leading zero (`{07}`): what gather writes has
    /// none, so a reader and a writer agree byte for byte.
    SizeLeadingZero { attribute: String, size: String },
    /// A size larger than the bytes left in the input.
    SizeBeyondInput {
        attribute: String,
        size: usize,
        left: usize,
    },
    /// Not `}` after the size.
    ExpectedSizeClose {
        attribute: String,
        found: Option<u8>,
    },
    /// Not `:` after `{SIZE}`.
    ExpectedColon {
        attribute: String,
        size: usize,
        found: Option<u8>,
    },
    /// Not one TAB after `:`.
    ExpectedTab {
        attribute: String,
        found: Option<u8>,
    },
    /// A value that is not UTF-8.
    ValueNotUtf8 { attribute: String },
    /// Not a newline after SIZE bytes of value: the size is likely wrong.
    ExpectedNewlineAfterValue {
        attribute: String,
        size: usize,
        found: Option<u8>,
    },
    /// Not a newline after the object's closing `}`.
    ExpectedNewlineAfterObject { found: Option<u8> },
}

/// A byte as faults show it.
fn show(b: Option<u8>) -> String {
    match b {
        None => "end of input".to_string(),
        Some(b) if b.is_ascii_graphic() || b == b' ' => format!("{:?}", b as char),
        Some(b) => format!("byte 0x{b:02X}"),
    }
}

impl fmt::Display for SoifErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use SoifErrorKind as K;
        match self {
            K::ExpectedObject { found } => {
                write!(f, "expected '@' starting an object, found {}", show(*found))
            }
            K::ExpectedOpenBrace { found } => write!(
                f,
                "expected \" {{ \" after the template type, found {}",
                show(*found)
            ),
            K::EndInside { part: Part::Url } => f.write_str("input ends inside the URL line"),
            K::EndInside { part } => write!(f, "input ends inside the {part}"),
            K::EndBeforeClose => f.write_str("input ends before the object's closing '}'"),
            K::Empty { part } => write!(f, "empty {part}"),
            K::BadByteInName { part, found, stop } => write!(
                f,
                "invalid {part}: {} is not allowed in it (expected {:?} after it)",
                show(Some(*found)),
                *stop as char
            ),
            K::WhiteSpaceIn { part, text } => {
                write!(f, "invalid {part} {text:?}: contains white space")
            }
            K::WhiteSpaceInUrl { found } => {
                write!(f, "white space ({}) in the URL", show(Some(*found)))
            }
            K::NotUtf8 { part } => write!(f, "{part} is not UTF-8"),
            K::MissingSize { attribute, found } => write!(
                f,
                "attribute {attribute:?}: expected the value size (digits), found {}",
                show(*found)
            ),
            K::SizeTooLarge { attribute, size } => {
                write!(f, "attribute {attribute:?}: size {size} is too large")
            }
            K::SizeLeadingZero { attribute, size } => {
                write!(f, "attribute {attribute:?}: the value size {size} has a leading zero")
            }
            K::SizeBeyondInput {
                attribute,
                size,
                left,
            } => write!(
                f,
                "attribute {attribute:?}: size {size} is larger than the {left} bytes left in the input"
            ),
            K::ExpectedSizeClose { attribute, found } => write!(
                f,
                "expected '}}' after the size of attribute {attribute:?}, found {}",
                show(*found)
            ),
            K::ExpectedColon {
                attribute,
                size,
                found,
            } => write!(
                f,
                "expected ':' after '{{{size}}}' of attribute {attribute:?}, found {}",
                show(*found)
            ),
            K::ExpectedTab { attribute, found } => write!(
                f,
                "expected one TAB after ':' of attribute {attribute:?}, found {}",
                show(*found)
            ),
            K::ValueNotUtf8 { attribute } => {
                write!(f, "attribute {attribute:?}: value is not UTF-8")
            }
            K::ExpectedNewlineAfterValue {
                attribute,
                size,
                found,
            } => write!(
                f,
                "expected a newline after the {size} bytes of the value of attribute {attribute:?} (is the size right?), found {}",
                show(*found)
            ),
            K::ExpectedNewlineAfterObject { found } => write!(
                f,
                "expected a newline after the object's closing '}}', found {}",
                show(*found)
            ),
        }
    }
}

impl fmt::Display for SoifError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "byte {} (line {}, column {}): {}",
            self.span.offset, self.span.line, self.span.column, self.kind
        )?;
        match &self.excerpt {
            Some(e) => write!(f, "{e}"),
            None => write!(f, " (a binary line)"),
        }
    }
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
/// Whether `name` can be a SOIF attribute name (or template type): not
/// empty, no white space, no control character, no `{` or `}`.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && !name.chars().any(forbidden_in_name)
}

fn forbidden_in_name(c: char) -> bool {
    c.is_whitespace() || c.is_control() || c == '{' || c == '}'
}

/// `name` made a valid attribute name: every character SOIF forbids in a
/// name becomes `_` (an empty name is `_`).
pub fn escape_name(name: &str) -> String {
    if name.is_empty() {
        return "_".into();
    }
    name.chars()
        .map(|c| if forbidden_in_name(c) { '_' } else { c })
        .collect()
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
    /// A fault of `kind` at the `len` bytes from `offset`.
    fn fail_at<T>(&self, offset: usize, len: usize, kind: SoifErrorKind) -> Result<T, SoifError> {
        let span = Span::in_bytes(self.bytes, offset, len);
        Err(SoifError {
            kind,
            excerpt: Excerpt::from_bytes(self.bytes, &span).map(Box::new),
            span,
        })
    }

    /// A fault of `kind` at the byte at `offset`.
    fn fail<T>(&self, offset: usize, kind: SoifErrorKind) -> Result<T, SoifError> {
        self.fail_at(offset, 1, kind)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// Reads `literal`; else a fault of the kind `kind` makes of the byte found.
    fn expect(
        &mut self,
        literal: &[u8],
        kind: impl Fn(Option<u8>) -> SoifErrorKind,
    ) -> Result<(), SoifError> {
        for &b in literal {
            if self.peek() != Some(b) {
                return self.fail(self.pos, kind(self.peek()));
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn utf8(&self, start: usize, end: usize, part: Part) -> Result<String, SoifError> {
        match std::str::from_utf8(&self.bytes[start..end]) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => self.fail(start + e.valid_up_to(), SoifErrorKind::NotUtf8 { part }),
        }
    }

    /// A name (template type or attribute name) running up to `stop`.
    fn name(&mut self, stop: u8, part: Part) -> Result<String, SoifError> {
        let start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail(self.pos, SoifErrorKind::EndInside { part }),
                Some(b) if b == stop => break,
                Some(found @ (b'{' | b'}' | b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C)) => {
                    return self.fail(self.pos, SoifErrorKind::BadByteInName { part, found, stop });
                }
                Some(_) => self.pos += 1,
            }
        }
        if self.pos == start {
            return self.fail_at(start, 0, SoifErrorKind::Empty { part });
        }
        let name = self.utf8(start, self.pos, part)?;
        if !is_valid_name(&name) {
            return self.fail_at(
                start,
                name.len(),
                SoifErrorKind::WhiteSpaceIn { part, text: name },
            );
        }
        Ok(name)
    }

    fn object(&mut self) -> Result<SoifObject, SoifError> {
        if self.peek() != Some(b'@') {
            return self.fail(
                self.pos,
                SoifErrorKind::ExpectedObject { found: self.peek() },
            );
        }
        self.pos += 1;
        let template = self.name(b' ', Part::TemplateType)?;
        self.expect(b" { ", |found| SoifErrorKind::ExpectedOpenBrace { found })?;
        let url_start = self.pos;
        loop {
            match self.peek() {
                None => return self.fail(self.pos, SoifErrorKind::EndInside { part: Part::Url }),
                Some(b'\n') => break,
                Some(found) if found.is_ascii_whitespace() => {
                    return self.fail(self.pos, SoifErrorKind::WhiteSpaceInUrl { found })
                }
                Some(_) => self.pos += 1,
            }
        }
        if self.pos == url_start {
            return self.fail_at(url_start, 0, SoifErrorKind::Empty { part: Part::Url });
        }
        let url = self.utf8(url_start, self.pos, Part::Url)?;
        if url.chars().any(char::is_whitespace) {
            return self.fail_at(
                url_start,
                url.len(),
                SoifErrorKind::WhiteSpaceIn {
                    part: Part::Url,
                    text: url,
                },
            );
        }
        self.pos += 1; // '\n'
        let mut attributes = Vec::new();
        loop {
            match self.peek() {
                None => return self.fail(self.pos, SoifErrorKind::EndBeforeClose),
                Some(b'}') => {
                    self.pos += 1;
                    self.expect(b"\n", |found| SoifErrorKind::ExpectedNewlineAfterObject {
                        found,
                    })?;
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
        let name = self.name(b'{', Part::AttributeName)?;
        self.pos += 1; // '{'
        let size_start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        if self.pos == size_start {
            return self.fail(
                self.pos,
                SoifErrorKind::MissingSize {
                    attribute: name,
                    found: self.peek(),
                },
            );
        }
        let digits = &self.bytes[size_start..self.pos];
        // Digits are ASCII, so this is valid UTF-8.
        let size_text = String::from_utf8_lossy(digits).into_owned();
        if digits.len() > 1 && digits[0] == b'0' {
            return self.fail_at(
                size_start,
                digits.len(),
                SoifErrorKind::SizeLeadingZero {
                    attribute: name,
                    size: size_text,
                },
            );
        }
        let size: usize = match size_text.parse() {
            Ok(n) => n,
            Err(_) => {
                return self.fail_at(
                    size_start,
                    digits.len(),
                    SoifErrorKind::SizeTooLarge {
                        attribute: name,
                        size: size_text,
                    },
                )
            }
        };
        let size_len = digits.len();
        self.expect(b"}", |found| SoifErrorKind::ExpectedSizeClose {
            attribute: name.clone(),
            found,
        })?;
        self.expect(b":", |found| SoifErrorKind::ExpectedColon {
            attribute: name.clone(),
            size,
            found,
        })?;
        self.expect(b"\t", |found| SoifErrorKind::ExpectedTab {
            attribute: name.clone(),
            found,
        })?;
        let value_start = self.pos;
        let left = self.bytes.len() - value_start;
        if size > left {
            return self.fail_at(
                size_start,
                size_len,
                SoifErrorKind::SizeBeyondInput {
                    attribute: name,
                    size,
                    left,
                },
            );
        }
        self.pos += size;
        let value = &self.bytes[value_start..self.pos];
        if let Err(e) = std::str::from_utf8(value) {
            return self.fail(
                value_start + e.valid_up_to(),
                SoifErrorKind::ValueNotUtf8 { attribute: name },
            );
        }
        self.expect(b"\n", |found| SoifErrorKind::ExpectedNewlineAfterValue {
            attribute: name.clone(),
            size,
            found,
        })?;
        Ok((name, value.to_vec()))
    }
}
