//! Simple regexes (metadata.md §2, seed §4.4): finite sets of values to
//! generate, not to match.
//!
//! The pattern is parsed by regex-syntax; its AST is checked for what a
//! finite set cannot have (`+`, `*`, `{N,}`, `.`, anchors), its HIR is turned
//! into a generator that counts the values first and then produces the
//! value with any given index without producing the ones before it.
//!
//! Order: classes in ascending code point order, alternatives left to
//! right, repetitions shortest first, concatenations like an odometer (the
//! last part varies fastest): `/[A-C]{1,2}/` gives A, B, C, AA, AB, … CC.
//! A pattern that can spell the same value in two ways (`a|ab?`) yields it
//! twice: the count is the number of spellings, decided before generation.

use regex_syntax::ast::{self, Ast, RepetitionKind, RepetitionRange};
use regex_syntax::hir::{Class, Hir, HirKind};
use std::fmt;

use crate::span::{Excerpt, Span};

/// The longest value a simple regex may generate, in characters.
pub const MAX_VALUE_CHARS: u64 = 1000;

/// A parsed simple regex with the number of values it expands to.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    gen: Gen,
}

/// Why a simple regex cannot be used.
///
/// `Display` writes what is wrong and the column (in the text between the
/// slashes), then the pattern with a caret under the fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PatternError {
    pub kind: PatternErrorKind,
    /// Where in `pattern` the fault is (the whole pattern for a fault of
    /// the whole: too many values, too long).
    pub span: Span,
    /// The regex as written, without the slashes.
    pub pattern: String,
}

/// What can be wrong with a simple regex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternErrorKind {
    /// Not a regex at all (regex-syntax's reason).
    Syntax { reason: String },
    /// `+`, `*` or `{N,}`.
    Unbounded { operator: String },
    /// `.`.
    AnyChar,
    /// `^`, `$`, `\b`, ….
    Assertion { assertion: String },
    /// More values than a 64-bit count holds.
    Overflow,
    /// Values longer than [`MAX_VALUE_CHARS`].
    TooLong { length: u64 },
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (p, column) = (&self.pattern, self.span.column);
        match &self.kind {
            PatternErrorKind::Syntax { reason } => {
                write!(f, "/{p}/ is not a valid regex at column {column}: {reason}")
            }
            PatternErrorKind::Unbounded { operator } => write!(
                f,
                "/{p}/ has an unbounded repetition '{operator}' at column {column}: a simple regex must describe a finite set of values (use {{N,M}})"
            ),
            PatternErrorKind::AnyChar => write!(
                f,
                "/{p}/ uses '.' at column {column}: any character is not a finite set of values (use a class like [A-Z])"
            ),
            PatternErrorKind::Assertion { assertion } => write!(
                f,
                "/{p}/ uses the assertion '{assertion}' at column {column}: a simple regex generates values, anchors and word boundaries mean nothing there"
            ),
            PatternErrorKind::Overflow => {
                write!(f, "/{p}/ expands to more than {} values", u64::MAX)
            }
            PatternErrorKind::TooLong { length } => write!(
                f,
                "/{p}/ makes values of up to {length} characters; a form value may have at most {MAX_VALUE_CHARS}"
            ),
        }?;
        // Shown between its slashes, the caret one column further.
        let shown = format!("/{p}/");
        let span = Span::new(&shown, self.span.offset + 1, self.span.len);
        write!(f, "{}", Excerpt::new(&shown, &span))
    }
}

impl PatternError {
    fn new(pattern: &str, offset: usize, len: usize, kind: PatternErrorKind) -> PatternError {
        PatternError {
            kind,
            span: Span::new(pattern, offset, len),
            pattern: pattern.to_string(),
        }
    }

    /// An error at a regex-syntax span of `pattern`.
    fn at(pattern: &str, span: &ast::Span, kind: PatternErrorKind) -> PatternError {
        let len = span.end.offset.saturating_sub(span.start.offset);
        PatternError::new(pattern, span.start.offset, len, kind)
    }

    /// An error about the whole of `pattern`.
    fn whole(pattern: &str, kind: PatternErrorKind) -> PatternError {
        PatternError::new(pattern, 0, pattern.len(), kind)
    }
}

impl Pattern {
    /// Parses and checks a simple regex (the text between the slashes).
    pub fn parse(source: &str) -> Result<Pattern, PatternError> {
        let syntax = |span: &ast::Span, reason: String| {
            PatternError::at(source, span, PatternErrorKind::Syntax { reason })
        };
        let ast = ast::parse::Parser::new()
            .parse(source)
            .map_err(|e| syntax(e.span(), e.kind().to_string()))?;
        check_finite(source, &ast)?;
        let hir = regex_syntax::hir::translate::Translator::new()
            .translate(source, &ast)
            .map_err(|e| syntax(e.span(), e.kind().to_string()))?;
        let length = max_chars(&hir);
        if length > MAX_VALUE_CHARS {
            return Err(PatternError::whole(
                source,
                PatternErrorKind::TooLong { length },
            ));
        }
        let gen = Gen::from_hir(&hir)
            .ok_or_else(|| PatternError::whole(source, PatternErrorKind::Overflow))?;
        Ok(Pattern {
            source: source.to_string(),
            gen,
        })
    }

    /// The regex as written, without the slashes.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// How many values the pattern expands to.
    pub fn len(&self) -> u64 {
        self.gen.count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value with this index (0-based), or `None` past the end.
    pub fn get(&self, index: u64) -> Option<String> {
        if index >= self.len() {
            return None;
        }
        let mut out = String::new();
        self.gen.write(index, &mut out);
        Some(out)
    }

    /// All values, produced one at a time.
    pub fn values(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

fn check_finite(source: &str, ast: &Ast) -> Result<(), PatternError> {
    match ast {
        Ast::Dot(span) => Err(PatternError::at(source, span, PatternErrorKind::AnyChar)),
        Ast::Assertion(a) => Err(PatternError::at(
            source,
            &a.span,
            PatternErrorKind::Assertion {
                assertion: source
                    .get(a.span.start.offset..a.span.end.offset)
                    .unwrap_or_default()
                    .to_string(),
            },
        )),
        Ast::Repetition(rep) => {
            let unbounded = matches!(
                rep.op.kind,
                RepetitionKind::ZeroOrMore
                    | RepetitionKind::OneOrMore
                    | RepetitionKind::Range(RepetitionRange::AtLeast(_))
            );
            if unbounded {
                return Err(PatternError::at(
                    source,
                    &rep.op.span,
                    PatternErrorKind::Unbounded {
                        operator: source
                            .get(rep.op.span.start.offset..rep.op.span.end.offset)
                            .unwrap_or_default()
                            .to_string(),
                    },
                ));
            }
            check_finite(source, &rep.ast)
        }
        Ast::Group(g) => check_finite(source, &g.ast),
        Ast::Alternation(alt) => alt.asts.iter().try_for_each(|a| check_finite(source, a)),
        Ast::Concat(c) => c.asts.iter().try_for_each(|a| check_finite(source, a)),
        Ast::Empty(_)
        | Ast::Flags(_)
        | Ast::Literal(_)
        | Ast::ClassUnicode(_)
        | Ast::ClassPerl(_)
        | Ast::ClassBracketed(_) => Ok(()),
    }
}

/// The length in characters of the longest value (saturating).
fn max_chars(hir: &Hir) -> u64 {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => 0,
        HirKind::Literal(lit) => String::from_utf8_lossy(&lit.0).chars().count() as u64,
        HirKind::Class(_) => 1,
        HirKind::Capture(cap) => max_chars(&cap.sub),
        HirKind::Concat(subs) => subs.iter().map(max_chars).fold(0, u64::saturating_add),
        HirKind::Alternation(subs) => subs.iter().map(max_chars).max().unwrap_or(0),
        HirKind::Repetition(rep) => {
            max_chars(&rep.sub).saturating_mul(u64::from(rep.max.unwrap_or(rep.min)))
        }
    }
}

/// The generator: each node knows how many values it has.
#[derive(Debug, Clone)]
enum Gen {
    Literal(String),
    Class {
        ranges: Vec<(char, char)>,
        count: u64,
    },
    Concat {
        parts: Vec<Gen>,
        count: u64,
    },
    Alternation {
        alternatives: Vec<Gen>,
        count: u64,
    },
    Repeat {
        sub: Box<Gen>,
        min: u32,
        max: u32,
        count: u64,
    },
}

impl Gen {
    /// `None` when the count overflows a u64.
    fn from_hir(hir: &Hir) -> Option<Gen> {
        Some(match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => Gen::Literal(String::new()),
            HirKind::Literal(lit) => Gen::Literal(String::from_utf8_lossy(&lit.0).into_owned()),
            HirKind::Class(Class::Unicode(cls)) => {
                Gen::class(cls.ranges().iter().map(|r| (r.start(), r.end())))
            }
            HirKind::Class(Class::Bytes(cls)) => Gen::class(
                cls.ranges()
                    .iter()
                    .map(|r| (char::from(r.start()), char::from(r.end()))),
            ),
            HirKind::Capture(cap) => Gen::from_hir(&cap.sub)?,
            HirKind::Concat(subs) => {
                let parts = subs.iter().map(Gen::from_hir).collect::<Option<Vec<_>>>()?;
                let count = parts
                    .iter()
                    .try_fold(1u64, |acc, p| acc.checked_mul(p.count()))?;
                Gen::Concat { parts, count }
            }
            HirKind::Alternation(subs) => {
                let alternatives = subs.iter().map(Gen::from_hir).collect::<Option<Vec<_>>>()?;
                let count = alternatives
                    .iter()
                    .try_fold(0u64, |acc, p| acc.checked_add(p.count()))?;
                Gen::Alternation {
                    alternatives,
                    count,
                }
            }
            HirKind::Repetition(rep) => {
                // Unbounded repetitions were rejected on the AST.
                let max = rep.max.unwrap_or(rep.min);
                let sub = Gen::from_hir(&rep.sub)?;
                let count = repeat_count(sub.count(), rep.min, max)?;
                Gen::Repeat {
                    sub: Box::new(sub),
                    min: rep.min,
                    max,
                    count,
                }
            }
        })
    }

    /// A class of the characters in `ranges`. A range that spans the
    /// surrogate code points (`[\x{D7FE}-\x{E001}]`) is split around them:
    /// they are no characters, and would all be sent as the same value.
    fn class(ranges: impl Iterator<Item = (char, char)>) -> Gen {
        const BEFORE: char = '\u{D7FF}';
        const AFTER: char = '\u{E000}';
        let mut split = Vec::new();
        for (a, b) in ranges {
            if a <= BEFORE && b >= AFTER {
                split.push((a, BEFORE));
                split.push((AFTER, b));
            } else {
                split.push((a, b));
            }
        }
        let count = split
            .iter()
            .map(|&(a, b)| u64::from(b) - u64::from(a) + 1)
            .sum();
        Gen::Class {
            ranges: split,
            count,
        }
    }

    fn count(&self) -> u64 {
        match self {
            Gen::Literal(_) => 1,
            Gen::Class { count, .. }
            | Gen::Concat { count, .. }
            | Gen::Alternation { count, .. }
            | Gen::Repeat { count, .. } => *count,
        }
    }

    /// Appends the value with this index; `index < self.count()`.
    fn write(&self, mut index: u64, out: &mut String) {
        match self {
            Gen::Literal(s) => out.push_str(s),
            Gen::Class { ranges, .. } => {
                for &(a, b) in ranges {
                    let size = u64::from(b) - u64::from(a) + 1;
                    if index < size {
                        // The ranges never span surrogates (see `Gen::class`).
                        if let Some(c) = u32::try_from(u64::from(a) + index)
                            .ok()
                            .and_then(char::from_u32)
                        {
                            out.push(c);
                        }
                        return;
                    }
                    index -= size;
                }
            }
            Gen::Concat { parts, .. } => {
                let counts: Vec<u64> = parts.iter().map(Gen::count).collect();
                write_odometer(index, &counts, |i, k, out| parts[i].write(k, out), out);
            }
            Gen::Alternation { alternatives, .. } => {
                for alt in alternatives {
                    if index < alt.count() {
                        alt.write(index, out);
                        return;
                    }
                    index -= alt.count();
                }
            }
            Gen::Repeat { sub, min, max, .. } => {
                let c = sub.count();
                for k in *min..=*max {
                    let size = repeat_count(c, k, k).unwrap_or(u64::MAX);
                    if index < size {
                        let counts = vec![c; k as usize];
                        write_odometer(index, &counts, |_, j, out| sub.write(j, out), out);
                        return;
                    }
                    index -= size;
                }
            }
        }
    }
}

/// Splits `index` into one digit per part (the last part varies fastest)
/// and writes the parts in order.
fn write_odometer(
    mut index: u64,
    counts: &[u64],
    write: impl Fn(usize, u64, &mut String),
    out: &mut String,
) {
    let mut digits = vec![0u64; counts.len()];
    for (i, &c) in counts.iter().enumerate().rev() {
        if c > 0 {
            digits[i] = index % c;
            index /= c;
        }
    }
    for (i, d) in digits.into_iter().enumerate() {
        write(i, d, out);
    }
}

/// Σ_{k=min..=max} c^k, or `None` on overflow.
fn repeat_count(c: u64, min: u32, max: u32) -> Option<u64> {
    match c {
        0 => Some(u64::from(min == 0)),
        1 => Some(u64::from(max - min) + 1),
        _ => (min..=max).try_fold(0u64, |acc, k| acc.checked_add(c.checked_pow(k)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &str) -> Vec<String> {
        Pattern::parse(p).unwrap().values().collect()
    }

    #[test]
    fn letters_with_a_literal_percent() {
        let v = all("[A-Z]%");
        assert_eq!(v.len(), 26);
        assert_eq!(v[0], "A%");
        assert_eq!(v[25], "Z%");
    }

    #[test]
    fn bounded_repetition_counts_every_length() {
        let p = Pattern::parse("[A-C]{1,2}%").unwrap();
        assert_eq!(p.len(), 12);
        assert_eq!(
            p.values().collect::<Vec<_>>(),
            ["A%", "B%", "C%", "AA%", "AB%", "AC%", "BA%", "BB%", "BC%", "CA%", "CB%", "CC%"]
        );
    }

    #[test]
    fn groups_alternatives_and_optional_parts() {
        assert_eq!(
            all("(Ros|Bad )?[KL]"),
            ["K", "L", "RosK", "RosL", "Bad K", "Bad L"]
        );
        assert_eq!(all("x[0-9]{2}").len(), 100);
        assert_eq!(all("ä|ö"), ["ä", "ö"]);
    }

    #[test]
    fn huge_patterns_are_counted_not_generated() {
        let p = Pattern::parse("[0-9]{12}").unwrap();
        assert_eq!(p.len(), 1_000_000_000_000);
        assert_eq!(p.get(999_999_999_999).unwrap(), "999999999999");
        assert_eq!(p.get(42).unwrap(), "000000000042");
        let e = Pattern::parse("[a-z]{0,20}[a-z]{0,20}").unwrap_err();
        assert_eq!(e.kind, PatternErrorKind::Overflow);
        assert_eq!((e.span.offset, e.span.len), (0, 22));
    }

    #[test]
    fn unbounded_and_dot_are_rejected_with_their_column() {
        for (p, col, op) in [("ab+", 3, "+"), ("a*", 2, "*"), ("x[A-Z]{2,}", 7, "{2,}")] {
            let e = Pattern::parse(p).unwrap_err();
            assert!(
                matches!(&e.kind, PatternErrorKind::Unbounded { operator } if operator == op),
                "{p}: {e:?}"
            );
            assert_eq!((e.span.column, e.span.len), (col, op.len()), "{p}");
        }
        let e = Pattern::parse("A.%").unwrap_err();
        assert_eq!((e.kind, e.span.column), (PatternErrorKind::AnyChar, 2));
        let e = Pattern::parse("^A").unwrap_err();
        assert!(matches!(e.kind, PatternErrorKind::Assertion { .. }));
        assert_eq!(e.span.column, 1);
        let e = Pattern::parse("a{1000000000}").unwrap_err();
        assert!(matches!(e.kind, PatternErrorKind::TooLong { .. }));
        assert_eq!(Pattern::parse("(ab){500}").unwrap().len(), 1);
        let e = Pattern::parse("[A-").unwrap_err();
        assert!(matches!(e.kind, PatternErrorKind::Syntax { .. }));
    }

    #[test]
    fn errors_show_the_pattern_with_a_caret() {
        let e = Pattern::parse("[A-Z]+%").unwrap_err();
        assert_eq!(
            e.to_string(),
            "/[A-Z]+%/ has an unbounded repetition '+' at column 6: a simple regex must \
             describe a finite set of values (use {N,M})\n  /[A-Z]+%/\n        ^"
        );
    }

    #[test]
    fn a_class_across_the_surrogates_counts_characters_only() {
        let p = Pattern::parse(r"[\x{D7FE}-\x{E001}]").unwrap();
        assert_eq!(p.len(), 4);
        let values: Vec<String> = p.values().collect();
        assert_eq!(values, ["\u{D7FE}", "\u{D7FF}", "\u{E000}", "\u{E001}"]);
    }
}
