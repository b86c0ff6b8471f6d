//! Where a fault is in a text, and how it is shown: the offending line with
//! a caret under the fault.
//!
//! Every parser's error (HEL rules, metadata values, configuration files,
//! DBContent documents, simple regexes, SOIF streams) carries a [`Span`] and
//! shows it with an [`Excerpt`]:
//!
//! ```text
//! expected `]`, found `.`; did you mean `tr[i:*]`?
//!   html.body->table[1].tr[i:*.td[1].txt
//!                             ^
//! ```
//!
//! and, when the text has several lines, with the line's number:
//!
//! ```text
//!   3 | AND html.body.p[].txt = 'b'
//!     |                 ^
//! ```
//!
//! This module is a leaf: it uses nothing from the rest of the crate.

use std::fmt;

/// A stretch of a text: a byte range, and the line and column of its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Byte offset of the start, from the start of the text.
    pub offset: usize,
    /// Length in bytes; 0 for a point (the end of the text, a missing token).
    pub len: usize,
    /// 1-based line of the start.
    pub line: usize,
    /// 1-based column of the start, in characters (a tab counts one).
    pub column: usize,
}

impl Span {
    /// The `len` bytes at byte `offset` of `text`, clamped into the text and
    /// onto character boundaries.
    pub fn new(text: &str, offset: usize, len: usize) -> Span {
        let offset = floor_boundary(text, offset);
        let end = ceil_boundary(text, offset.saturating_add(len)).max(offset);
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |p| p + 1);
        Span {
            offset,
            len: end - offset,
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }

    /// The point at byte `offset` of `text` (length 0).
    pub fn point(text: &str, offset: usize) -> Span {
        Span::new(text, offset, 0)
    }

    /// The character at byte `offset` of `text`; a point at the end of the text.
    pub fn char_at(text: &str, offset: usize) -> Span {
        let offset = floor_boundary(text, offset);
        let len = text[offset..].chars().next().map_or(0, char::len_utf8);
        Span::new(text, offset, len)
    }

    /// The `len` bytes at byte `offset` of a byte stream, clamped into it.
    /// The column counts the characters of the line decoded as UTF-8, each
    /// invalid sequence one character (as a lossy decoding shows it).
    pub fn in_bytes(bytes: &[u8], offset: usize, len: usize) -> Span {
        let offset = offset.min(bytes.len());
        let end = offset.saturating_add(len).min(bytes.len());
        let line_start = line_start(bytes, offset);
        let line_end = line_end(bytes, offset);
        let column = units(&bytes[line_start..line_end])
            .take_while(|u| line_start + u.end <= offset)
            .count()
            + 1;
        Span {
            offset,
            len: end - offset,
            line: bytes[..offset].iter().filter(|&&b| b == b'\n').count() + 1,
            column,
        }
    }

    /// The byte offset just past the span.
    pub fn end(&self) -> usize {
        self.offset + self.len
    }
}

/// The line a span is on, ready to be shown with a caret under the span:
/// tabs before the span are kept so the caret lines up under tabbed text; a
/// long line is cut to a window around the span (`…` where it is cut).
///
/// `Display` writes two lines, each preceded by a newline, so that it
/// follows a message: `"{message}{excerpt}"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// The line (or its window) as shown.
    text: String,
    /// What goes before the caret: a tab under a tab, a space under anything else.
    pad: String,
    /// Number of characters under the caret (at least 1).
    width: usize,
    /// The line's number, shown when the text has several lines.
    line: Option<usize>,
}

/// The longest line shown whole, in characters.
const WINDOW: usize = 100;
/// How many characters before the span a cut line keeps.
const BEFORE: usize = 40;

impl Excerpt {
    /// The line of `text` that `span` starts on.
    pub fn new(text: &str, span: &Span) -> Excerpt {
        let offset = floor_boundary(text, span.offset);
        let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |p| offset + p);
        let mut line = &text[line_start..line_end];
        if line.ends_with('\r') && offset < line_end {
            line = &line[..line.len() - 1];
        }
        let start = text[line_start..offset].chars().count();
        let end = ceil_boundary(text, span.end()).clamp(offset, line_start + line.len());
        let width = text[offset..end].chars().count();
        let total = line.chars().count();
        let chars = line.chars().map(|c| {
            if c.is_control() && c != '\t' {
                '\u{FFFD}'
            } else {
                c
            }
        });
        let numbered = span.line > 1 || text.trim_end_matches(['\r', '\n']).contains('\n');
        Excerpt::build(chars, total, start, width, numbered.then_some(span.line))
    }

    /// The line of a byte stream that `span` (from [`Span::in_bytes`])
    /// starts on, decoded as UTF-8 (an invalid sequence shows as `�`);
    /// `None` when the line is binary (holds control characters other than
    /// tab). The line's number is always shown.
    pub fn from_bytes(bytes: &[u8], span: &Span) -> Option<Excerpt> {
        let offset = span.offset.min(bytes.len());
        let line_start = line_start(bytes, offset);
        let mut line_end = line_end(bytes, offset);
        if line_end > offset && bytes[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let line = &bytes[line_start..line_end];
        if units(line).any(|u| u.c.is_control() && u.c != '\t') {
            return None;
        }
        let (from, to) = (offset - line_start, span.end().min(line_end) - line_start);
        let start = units(line).take_while(|u| u.end <= from).count();
        let width = units(line).filter(|u| u.end > from && u.start < to).count();
        let total = units(line).count();
        let chars = units(line).map(|u| u.c);
        Some(Excerpt::build(chars, total, start, width, Some(span.line)))
    }

    fn build(
        chars: impl Iterator<Item = char>,
        total: usize,
        start: usize,
        width: usize,
        line: Option<usize>,
    ) -> Excerpt {
        let from = if total > WINDOW && start > BEFORE {
            start - BEFORE
        } else {
            0
        };
        let to = (from + WINDOW).min(total);
        let mut text = String::new();
        let mut pad = String::new();
        if from > 0 {
            text.push('…');
            pad.push(' ');
        }
        for (i, c) in chars.enumerate().skip(from).take(to - from) {
            text.push(c);
            if i < start {
                pad.push(if c == '\t' { '\t' } else { ' ' });
            }
        }
        if to < total {
            text.push('…');
        }
        Excerpt {
            text,
            pad,
            width: width.min(to.saturating_sub(start)).max(1),
            line,
        }
    }
}

impl fmt::Display for Excerpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let carets = "^".repeat(self.width);
        match self.line {
            Some(n) => {
                let gutter = n.to_string();
                let blank = " ".repeat(gutter.len());
                write!(
                    f,
                    "\n  {gutter} | {}\n  {blank} | {}{carets}",
                    self.text, self.pad
                )
            }
            None => write!(f, "\n  {}\n  {}{carets}", self.text, self.pad),
        }
    }
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

fn ceil_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset += 1;
    }
    offset
}

fn line_start(bytes: &[u8], offset: usize) -> usize {
    bytes[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1)
}

fn line_end(bytes: &[u8], offset: usize) -> usize {
    bytes[offset..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| offset + p)
}

/// One character of a lossy UTF-8 decoding, with its byte range.
struct Unit {
    start: usize,
    end: usize,
    c: char,
}

/// The characters of `bytes` decoded as UTF-8, each maximal invalid
/// sequence one `U+FFFD` (as [`String::from_utf8_lossy`] does).
fn units(bytes: &[u8]) -> impl Iterator<Item = Unit> + '_ {
    let mut at = 0;
    bytes.utf8_chunks().flat_map(move |chunk| {
        let base = at;
        at += chunk.valid().len() + chunk.invalid().len();
        let valid = chunk.valid().char_indices().map(move |(i, c)| Unit {
            start: base + i,
            end: base + i + c.len_utf8(),
            c,
        });
        let bad = base + chunk.valid().len();
        let invalid = (!chunk.invalid().is_empty()).then(|| Unit {
            start: bad,
            end: bad + chunk.invalid().len(),
            c: '\u{FFFD}',
        });
        valid.chain(invalid)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_count_lines_and_characters() {
        let text = "ab\ncäd\te";
        let s = Span::new(text, 6, 1);
        assert_eq!((s.line, s.column, s.len), (2, 3, 1));
        // Clamped onto character boundaries and into the text.
        let s = Span::new(text, 5, 1);
        assert_eq!((s.offset, s.len, s.column), (4, 2, 2));
        let s = Span::point(text, 99);
        assert_eq!((s.offset, s.line, s.column), (text.len(), 2, 6));
        assert_eq!(Span::char_at(text, 4).len, 2);
    }

    #[test]
    fn a_caret_under_the_span() {
        let text = "html.body.p[x-1].txt";
        let e = Excerpt::new(text, &Span::new(text, 12, 3));
        assert_eq!(e.to_string(), format!("\n  {text}\n              ^^^"));
        // At the end of the text the caret stands after the last character.
        let e = Excerpt::new(text, &Span::point(text, text.len()));
        assert!(e.to_string().ends_with(&format!("\n  {}^", " ".repeat(20))));
    }

    #[test]
    fn several_lines_show_the_line_number_and_keep_tabs() {
        let text = "a\n\tb\tc d\n";
        let e = Excerpt::new(text, &Span::char_at(text, 7));
        assert_eq!(e.to_string(), "\n  2 | \tb\tc d\n    | \t \t  ^");
    }

    #[test]
    fn long_lines_are_cut_around_the_span() {
        let text = "x".repeat(300) + "!" + &"y".repeat(300);
        let e = Excerpt::new(&text, &Span::char_at(&text, 300)).to_string();
        let lines: Vec<&str> = e.lines().collect();
        assert!(
            lines[1].starts_with("  …x") && lines[1].ends_with("y…"),
            "{e}"
        );
        assert_eq!(
            lines[1].chars().position(|c| c == '!'),
            Some(2 + 1 + BEFORE)
        );
        assert_eq!(lines[2].find('^'), Some(2 + 1 + BEFORE));
    }

    #[test]
    fn bytes_are_decoded_lossily_or_called_binary() {
        let bytes = b"@FILE { x\nT{3}:\ta\xffc\n}\n";
        let s = Span::in_bytes(bytes, 17, 1);
        assert_eq!((s.line, s.column), (2, 8));
        let e = Excerpt::from_bytes(bytes, &s).unwrap();
        assert_eq!(e.to_string(), "\n  2 | T{3}:\ta\u{FFFD}c\n    |      \t ^");
        // A byte inside a multi-byte character: the caret under that character.
        let bytes = "R\u{fc}gen".as_bytes();
        let s = Span::in_bytes(bytes, 2, 1);
        assert_eq!(s.column, 2);
        assert!(Excerpt::from_bytes(b"a\0b", &Span::in_bytes(b"a\0b", 1, 1)).is_none());
        assert_eq!(Span::in_bytes(b"ab", 9, 1).offset, 2);
    }
}
