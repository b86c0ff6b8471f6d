//! From text to a checked rule: the pest grammar (`grammar/hel.pest`), the
//! typed AST, and the checks done before any evaluation.

use pest::iterators::Pair;
use pest::Parser;
use regex::Regex;

use super::error::{Expected, RuleError, RuleErrorKind};
use crate::span::Span;

#[derive(pest_derive::Parser)]
#[grammar = "../grammar/hel.pest"]
struct HelParser;

/// How deeply forks may nest.
const MAX_FORK_DEPTH: usize = 32;

/// A path from a node, ending in a property or a fork, refined by regex operators.
#[derive(Debug, Clone)]
pub(crate) struct Path {
    pub steps: Vec<Step>,
    pub tail: Tail,
    pub ops: Vec<RegexOp>,
}

#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub axis: Axis,
    /// Index into `Ast::labels`.
    pub label: usize,
    pub index: Index,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Axis {
    /// `.label` — among the children.
    Child,
    /// `->label` — among the nodes after, in document order.
    Flow,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Index {
    /// `[n]` (or no index: `[0]`).
    At(usize),
    /// `[n,m,k]`.
    List(Vec<usize>),
    /// `[a-b]`, `[a-]`.
    Range(usize, Option<usize>),
    /// `[*]`.
    All,
    /// `[v]`, `[v:0]` (`all == false`) and `[v:*]` (`all == true`); `var`
    /// indexes `Ast::vars`.
    Var { var: usize, all: bool },
}

#[derive(Debug, Clone)]
pub(crate) enum Tail {
    Prop(Prop),
    Fork(Vec<Path>),
}

#[derive(Debug, Clone)]
pub(crate) enum Prop {
    Txt,
    Src,
    /// Index into `Ast::labels` (attribute names share the label table).
    GetAttr(usize),
    NumberOf(usize),
}

#[derive(Debug, Clone)]
pub(crate) enum RegexOp {
    Match(Regex),
    Split(Regex),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    Eq,
    Ne,
    Matches,
    NotMatches,
}

/// A condition `path op literal`, binding one variable.
#[derive(Debug, Clone)]
pub(crate) struct Cond {
    pub path: Path,
    pub op: Op,
    pub literal: String,
    /// The literal compiled, for `=~` and `!~`.
    pub regex: Option<Regex>,
}

/// A checked rule: its path from the root and one condition per variable.
#[derive(Debug, Clone)]
pub(crate) struct Ast {
    pub path: Path,
    /// `conds[v]` binds variable `v`.
    pub conds: Vec<Cond>,
    pub vars: Vec<String>,
    /// Lower-case labels and attribute names the rule mentions.
    pub labels: Vec<String>,
}

/// Which text a position is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Rule,
    Prefix,
}

/// A parsed DB.Result prefix.
struct PrefixPath {
    steps: Vec<Step>,
    /// The separator it ends with (`.` when it ends in none).
    trailing: Axis,
}

/// A use of a variable, for the checks.
struct VarUse {
    var: usize,
    offset: usize,
    len: usize,
    origin: Origin,
    /// `None` in the rule's path, else the condition's number.
    cond: Option<usize>,
}

struct Builder<'s> {
    src: &'s str,
    prefix_src: &'s str,
    labels: Vec<String>,
    vars: Vec<String>,
    uses: Vec<VarUse>,
    /// The condition being built, if any.
    cond: Option<usize>,
    origin: Origin,
}

/// Parses and checks a rule, applying a `DB.Result` prefix to the rule and
/// its conditions when they are relative.
pub(crate) fn parse(src: &str, prefix: Option<&str>) -> Result<Ast, RuleError> {
    pest::set_error_detail(true);
    let mut b = Builder {
        src,
        prefix_src: prefix.unwrap_or(""),
        labels: Vec::new(),
        vars: Vec::new(),
        uses: Vec::new(),
        cond: None,
        origin: Origin::Prefix,
    };
    let prefix = match prefix {
        Some(p) => Some(b.prefix(p)?),
        None => None,
    };
    b.origin = Origin::Rule;
    let pairs = HelParser::parse(Rule::rule, src).map_err(|e| syntax_error(src, e))?;
    let mut path = None;
    // Each condition with its byte range in the rule.
    let mut conds_raw: Vec<(Cond, (usize, usize))> = Vec::new();
    for pair in pairs.flatten().take(1).flat_map(|p| p.into_inner()) {
        match pair.as_rule() {
            Rule::expr => path = Some(b.expr(pair, prefix.as_ref(), 0)?),
            Rule::where_clause => {
                for c in pair.into_inner().filter(|p| p.as_rule() == Rule::cond) {
                    b.cond = Some(conds_raw.len());
                    let range = (c.as_span().start(), c.as_span().end());
                    let cond = b.cond(c, prefix.as_ref())?;
                    conds_raw.push((cond, range));
                }
                b.cond = None;
            }
            _ => {}
        }
    }
    let path = path.ok_or_else(|| b.expected(0, Expected::Path))?;
    let conds = b.check(conds_raw)?;
    Ok(Ast {
        path,
        conds,
        vars: b.vars,
        labels: b.labels,
    })
}

/// Turns a pest error into a rule error saying what was expected.
fn syntax_error(src: &str, e: pest::error::Error<Rule>) -> RuleError {
    let offset = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((p, _)) => p,
    };
    let mut expected: Vec<Expected> = Vec::new();
    fn push(expected: &mut Vec<Expected>, x: Expected) {
        if !expected.contains(&x) {
            expected.push(x);
        }
    }
    if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
        for r in positives {
            if let Some(x) = expected_of(*r) {
                push(&mut expected, x);
            }
        }
    }
    if expected.contains(&Expected::Step) && !expected.contains(&Expected::Property) {
        push(&mut expected, Expected::Property);
    }
    // Without a rule to name, the literal tokens pest tried there.
    if let (true, Some(attempts)) = (expected.is_empty(), e.parse_attempts()) {
        for t in attempts.expected_tokens() {
            // The token type is not exported; its Display and Debug say enough.
            let shown = t.to_string();
            let insensitive = format!("{t:?}").starts_with("Insensitive");
            if shown.trim().is_empty()
                || matches!(shown.as_str(), "BUILTIN_RULE" | "_" | "-" | ":")
                || shown.contains("..")
            {
                continue;
            }
            let x = match shown.as_str() {
                "]" => Expected::CloseBracket,
                ")" => Expected::CloseParen,
                _ if insensitive => match shown.to_ascii_lowercase().as_str() {
                    "getattr" => Expected::Token("getAttr".into()),
                    "numberof" => Expected::Token("numberOf".into()),
                    "where" | "and" => Expected::Token(shown),
                    other => Expected::Token(other.to_string()),
                },
                _ => Expected::Token(shown),
            };
            push(&mut expected, x);
        }
    }
    let span = Span::char_at(src, offset);
    let found = src[span.offset..].chars().next();
    if expected.contains(&Expected::CloseBracket) {
        if let Some(s) = close_index_suggestion(src, span.offset) {
            return RuleError::new(src, span, RuleErrorKind::UnclosedIndex { expected, found })
                .with_suggestion(s);
        }
    }
    if expected.contains(&Expected::Property) {
        if let Some(e) = unknown_property(src, span.offset) {
            return e;
        }
    }
    // `a.getAtr(href)` reads as a step `getAtr` and a fork: a misspelt
    // property with its argument.
    if expected.contains(&Expected::Branch) {
        if let Some(e) = misspelt_call(src, span.offset) {
            return e;
        }
    }
    RuleError::new(src, span, RuleErrorKind::Syntax { expected, found })
}

/// For an index left open (`tr[i:*.td`), the step with its `]` (`tr[i:*]`).
fn close_index_suggestion(src: &str, offset: usize) -> Option<String> {
    let open = src[..offset].rfind('[')?;
    if src[open..offset].contains(']') {
        return None;
    }
    let label_start = src[..open]
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(0, |p| p + 1);
    Some(format!("{}]", src[label_start..offset].trim_end()))
}

/// `getAtr(` (or `numbrOf(`) before `offset`: a property with an argument,
/// misspelt (at most two edits away, case aside); the error names it and
/// suggests the property with the argument as written.
fn misspelt_call(src: &str, offset: usize) -> Option<RuleError> {
    let open = src[..offset].trim_end().strip_suffix('(')?;
    let start = open
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |p| p + 1);
    let name = &open[start..];
    if !open[..start].ends_with('.') {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let property = ["getAttr", "numberOf"]
        .into_iter()
        .find(|p| edit_distance(&lower, &p.to_ascii_lowercase()) <= 2)?;
    let argument: String = src[open.len() + 1..]
        .chars()
        .take_while(|&c| c != ')')
        .collect();
    Some(unknown_property_at(
        src,
        start,
        name,
        format!(".{property}({})", argument.trim()),
    ))
}

/// Levenshtein distance between two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (prev + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            prev = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// For a path that ends in a step where a property was expected, when that
/// step's label reads like a property (`p.text`, `a.href`, `td.getattribute`):
/// the error names it and suggests the property.
fn unknown_property(src: &str, offset: usize) -> Option<RuleError> {
    let before = src[..offset].trim_end();
    let start = before
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
        .map_or(0, |p| p + 1);
    let name = &before[start..];
    if name.is_empty() || !before[..start].ends_with('.') {
        return None;
    }
    let lower = name.to_ascii_lowercase();
    let suggestion = match lower.as_str() {
        "text" | "txts" | "texts" | "tex" | "tx" | "string" | "innertext" | "textcontent" => ".txt",
        "source" | "html" | "outerhtml" | "innerhtml" | "sr" | "srcs" => ".src",
        "attr" | "attribute" | "getattribute" | "get_attr" | "getattrib" => ".getAttr(name)",
        "count" | "number" | "numberof" | "number_of" | "length" | "size" => ".numberOf(label)",
        _ => return None,
    };
    Some(unknown_property_at(
        src,
        start,
        name,
        suggestion.to_string(),
    ))
}

/// The error for the word `name` at byte `start`, which reads like a
/// property, with the property it most likely means.
fn unknown_property_at(src: &str, start: usize, name: &str, suggestion: String) -> RuleError {
    RuleError::new(
        src,
        Span::new(src, start, name.len()),
        RuleErrorKind::UnknownProperty {
            name: name.to_string(),
        },
    )
    .with_suggestion(suggestion)
}

fn expected_of(r: Rule) -> Option<Expected> {
    Some(match r {
        Rule::label | Rule::first_step | Rule::name => Expected::Label,
        Rule::step | Rule::axis | Rule::trailing_sep => Expected::Step,
        Rule::root => Expected::Root,
        Rule::index => Expected::Index,
        Rule::number => Expected::Number,
        Rule::var | Rule::var_index => Expected::Variable,
        Rule::all | Rule::var_all => Expected::All,
        Rule::range | Rule::list => Expected::IndexContent,
        Rule::txt | Rule::src | Rule::get_attr | Rule::number_of => Expected::Property,
        Rule::attr_name | Rule::bare_attr => Expected::AttributeName,
        Rule::fork => Expected::Fork,
        Rule::branch => Expected::Branch,
        Rule::regex_op => Expected::RegexOp,
        Rule::match_op | Rule::split_op => Expected::MatchOrSplit,
        Rule::regex => Expected::Regex,
        Rule::where_clause | Rule::where_kw => Expected::Where,
        Rule::and_kw => Expected::And,
        Rule::cond | Rule::expr => Expected::Path,
        Rule::op => Expected::Operator,
        Rule::literal => Expected::Literal,
        Rule::EOI => Expected::End,
        Rule::close_bracket => Expected::CloseBracket,
        Rule::close_paren => Expected::CloseParen,
        _ => return None,
    })
}

impl Builder<'_> {
    fn text(&self) -> &str {
        match self.origin {
            Origin::Rule => self.src,
            Origin::Prefix => self.prefix_src,
        }
    }

    /// An error at `len` bytes from byte `offset` of the current text.
    fn err(&self, offset: usize, len: usize, kind: RuleErrorKind) -> RuleError {
        let e = RuleError::new(self.text(), Span::new(self.text(), offset, len), kind);
        match self.origin {
            Origin::Rule => e,
            Origin::Prefix => e.in_prefix(),
        }
    }

    /// A syntax error the grammar lets through: `what` missing at `offset`.
    fn expected(&self, offset: usize, what: Expected) -> RuleError {
        let found = self.text().get(offset..).and_then(|t| t.chars().next());
        let len = found.map_or(0, char::len_utf8);
        self.err(
            offset,
            len,
            RuleErrorKind::Syntax {
                expected: vec![what],
                found,
            },
        )
    }

    fn label(&mut self, name: &str) -> usize {
        let lower = name.to_ascii_lowercase();
        match self.labels.iter().position(|l| *l == lower) {
            Some(p) => p,
            None => {
                self.labels.push(lower);
                self.labels.len() - 1
            }
        }
    }

    fn prefix(&mut self, p: &str) -> Result<PrefixPath, RuleError> {
        let pairs =
            HelParser::parse(Rule::prefix, p).map_err(|e| syntax_error(p, e).in_prefix())?;
        let mut out = PrefixPath {
            steps: Vec::new(),
            trailing: Axis::Child,
        };
        for pair in pairs.flatten().take(1).flat_map(|p| p.into_inner()) {
            match pair.as_rule() {
                Rule::first_step | Rule::step => {
                    let s = self.step(pair)?;
                    out.steps.push(s);
                }
                Rule::trailing_sep => {
                    out.trailing = if pair.as_str() == "->" {
                        Axis::Flow
                    } else {
                        Axis::Child
                    }
                }
                _ => {}
            }
        }
        if let Some(u) = self.uses.first() {
            return Err(self.err(
                u.offset,
                u.len,
                RuleErrorKind::VariableInPrefix {
                    var: self.vars[u.var].clone(),
                },
            ));
        }
        Ok(out)
    }

    /// A path; relative ones get the prefix's steps in front.
    fn expr(
        &mut self,
        pair: Pair<'_, Rule>,
        prefix: Option<&PrefixPath>,
        depth: usize,
    ) -> Result<Path, RuleError> {
        let mut steps: Vec<Step> = Vec::new();
        let mut tail = None;
        let mut ops = Vec::new();
        let mut first = true;
        for p in pair.into_inner() {
            let kind = p.as_rule();
            if first {
                first = false;
                // An absolute path starts at the root; a relative one gets
                // the prefix in front (and, without one, starts at the root).
                if kind == Rule::root {
                    continue;
                }
                if let Some(prefix) = prefix {
                    steps.extend(prefix.steps.iter().cloned());
                }
            }
            match kind {
                Rule::first_step => {
                    let mut s = self.step(p)?;
                    s.axis = prefix.map_or(Axis::Child, |p| p.trailing);
                    steps.push(s);
                }
                Rule::step => steps.push(self.step(p)?),
                Rule::fork => tail = Some(self.fork(p, depth + 1)?),
                Rule::regex_op => ops.push(self.regex_op(p)?),
                _ => tail = Some(self.prop(p)?),
            }
        }
        let tail = tail.ok_or_else(|| self.expected(self.text().len(), Expected::Property))?;
        Ok(Path { steps, tail, ops })
    }

    fn fork(&mut self, pair: Pair<'_, Rule>, depth: usize) -> Result<Tail, RuleError> {
        if depth > MAX_FORK_DEPTH {
            return Err(self.err(
                pair.as_span().start(),
                1,
                RuleErrorKind::ForkTooDeep {
                    max: MAX_FORK_DEPTH,
                },
            ));
        }
        let mut branches = Vec::new();
        for b in pair.into_inner().filter(|b| b.as_rule() == Rule::branch) {
            let mut steps = Vec::new();
            let mut tail = None;
            let mut ops = Vec::new();
            for p in b.into_inner() {
                match p.as_rule() {
                    Rule::step => steps.push(self.step(p)?),
                    Rule::fork => tail = Some(self.fork(p, depth + 1)?),
                    Rule::regex_op => ops.push(self.regex_op(p)?),
                    _ => tail = Some(self.prop(p)?),
                }
            }
            let tail = tail.ok_or_else(|| self.expected(self.text().len(), Expected::Property))?;
            branches.push(Path { steps, tail, ops });
        }
        Ok(Tail::Fork(branches))
    }

    fn step(&mut self, pair: Pair<'_, Rule>) -> Result<Step, RuleError> {
        let mut axis = Axis::Child;
        let mut label = 0;
        let mut index = Index::At(0);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::axis if p.as_str() == "->" => axis = Axis::Flow,
                Rule::label => label = self.label(p.as_str()),
                Rule::index => index = self.index(p)?,
                _ => {}
            }
        }
        Ok(Step { axis, label, index })
    }

    fn number(&self, p: &Pair<'_, Rule>) -> Result<usize, RuleError> {
        p.as_str().parse().map_err(|_| {
            self.err(
                p.as_span().start(),
                p.as_str().len(),
                RuleErrorKind::IndexTooLarge {
                    digits: p.as_str().to_string(),
                },
            )
        })
    }

    fn index(&mut self, pair: Pair<'_, Rule>) -> Result<Index, RuleError> {
        let Some(inner) = pair.into_inner().next() else {
            return Ok(Index::At(0));
        };
        Ok(match inner.as_rule() {
            Rule::all => Index::All,
            Rule::var_index => {
                let mut parts = inner.into_inner();
                let Some(v) = parts.next() else {
                    return Ok(Index::All);
                };
                let name = v.as_str();
                let var = match self.vars.iter().position(|x| x == name) {
                    Some(p) => p,
                    None => {
                        self.vars.push(name.to_string());
                        self.vars.len() - 1
                    }
                };
                self.uses.push(VarUse {
                    var,
                    offset: v.as_span().start(),
                    len: name.len(),
                    origin: self.origin,
                    cond: self.cond,
                });
                let all = parts.next().is_some_and(|p| p.as_rule() == Rule::var_all);
                Index::Var { var, all }
            }
            Rule::range => {
                let (at, len) = (inner.as_span().start(), inner.as_str().len());
                let mut nums = inner.into_inner();
                let a = match nums.next() {
                    Some(n) => self.number(&n)?,
                    None => 0,
                };
                let b = match nums.next() {
                    Some(n) => Some(self.number(&n)?),
                    None => None,
                };
                if let Some(b) = b.filter(|&b| b < a) {
                    return Err(self.err(at, len, RuleErrorKind::EmptyRange { start: a, end: b }));
                }
                Index::Range(a, b)
            }
            _ => {
                let nums = inner
                    .into_inner()
                    .map(|n| self.number(&n))
                    .collect::<Result<Vec<_>, _>>()?;
                match nums.as_slice() {
                    [one] => Index::At(*one),
                    _ => Index::List(nums),
                }
            }
        })
    }

    fn prop(&mut self, p: Pair<'_, Rule>) -> Result<Tail, RuleError> {
        let prop = match p.as_rule() {
            Rule::txt => Prop::Txt,
            Rule::src => Prop::Src,
            Rule::get_attr => {
                let name = p
                    .into_inner()
                    .next()
                    .map(|a| {
                        let s = a.as_str();
                        match a.into_inner().next() {
                            Some(lit) if lit.as_rule() == Rule::literal => literal_value(lit),
                            _ => s.to_string(),
                        }
                    })
                    .unwrap_or_default();
                Prop::GetAttr(self.label(&name))
            }
            _ => {
                let name = p
                    .into_inner()
                    .next()
                    .map(|a| a.as_str().to_string())
                    .unwrap_or_default();
                Prop::NumberOf(self.label(&name))
            }
        };
        Ok(Tail::Prop(prop))
    }

    fn regex_op(&mut self, pair: Pair<'_, Rule>) -> Result<RegexOp, RuleError> {
        let mut is_match = true;
        let mut re = None;
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::split_op => is_match = false,
                Rule::regex => re = p.into_inner().next(),
                _ => {}
            }
        }
        let Some(body) = re else {
            return Err(self.expected(self.text().len(), Expected::Regex));
        };
        let re = self.compile(
            &body.as_str().replace("\\/", "/"),
            body.as_span().start(),
            body.as_str().len(),
        )?;
        Ok(if is_match {
            RegexOp::Match(re)
        } else {
            RegexOp::Split(re)
        })
    }

    fn compile(&self, re: &str, offset: usize, len: usize) -> Result<Regex, RuleError> {
        Regex::new(re).map_err(|e| {
            let detail = match &e {
                regex::Error::Syntax(s) => s
                    .lines()
                    .rev()
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or(s)
                    .trim_start_matches("error:")
                    .trim()
                    .to_string(),
                other => other.to_string(),
            };
            self.err(offset, len, RuleErrorKind::BadRegex { reason: detail })
        })
    }

    fn cond(
        &mut self,
        pair: Pair<'_, Rule>,
        prefix: Option<&PrefixPath>,
    ) -> Result<Cond, RuleError> {
        let mut path = None;
        let mut op = Op::Eq;
        let mut literal = String::new();
        let mut lit_range = (0, 0);
        for p in pair.into_inner() {
            match p.as_rule() {
                Rule::expr => path = Some(self.expr(p, prefix, 0)?),
                Rule::op => {
                    op = match p.as_str() {
                        "!=" => Op::Ne,
                        "=~" => Op::Matches,
                        "!~" => Op::NotMatches,
                        _ => Op::Eq,
                    }
                }
                Rule::literal => {
                    lit_range = (p.as_span().start() + 1, p.as_str().len().saturating_sub(2));
                    literal = literal_value(p);
                }
                _ => {}
            }
        }
        let regex = match op {
            Op::Matches | Op::NotMatches => {
                Some(self.compile(&literal, lit_range.0, lit_range.1)?)
            }
            _ => None,
        };
        let path = path.ok_or_else(|| self.expected(self.text().len(), Expected::Path))?;
        Ok(Cond {
            path,
            op,
            literal,
            regex,
        })
    }

    /// Every variable bound by exactly one condition; each condition mentions
    /// exactly one variable, one the rule's path uses.
    fn check(&self, conds: Vec<(Cond, (usize, usize))>) -> Result<Vec<Cond>, RuleError> {
        let mut bound: Vec<Option<usize>> = vec![None; self.vars.len()];
        for (i, (_, (start, end))) in conds.iter().enumerate() {
            let whole = |kind| self.err(*start, end - start, kind);
            // The variables the condition mentions, each with its first use.
            let mut mentioned: Vec<&VarUse> = Vec::new();
            for u in self.uses.iter().filter(|u| u.cond == Some(i)) {
                if !mentioned.iter().any(|m| m.var == u.var) {
                    mentioned.push(u);
                }
            }
            if let [_, second, ..] = mentioned.as_slice() {
                return Err(self.err(
                    second.offset,
                    second.len,
                    RuleErrorKind::ConditionWithSeveralVariables {
                        vars: mentioned.iter().map(|u| self.vars[u.var].clone()).collect(),
                    },
                ));
            }
            let Some(v) = mentioned.first().map(|u| u.var) else {
                return Err(whole(RuleErrorKind::ConditionWithoutVariable));
            };
            if bound[v].is_some() {
                return Err(whole(RuleErrorKind::BoundTwice {
                    var: self.vars[v].clone(),
                }));
            }
            bound[v] = Some(i);
            if !self.uses.iter().any(|u| u.var == v && u.cond.is_none()) {
                let kind = RuleErrorKind::UnusedVariable {
                    var: self.vars[v].clone(),
                };
                return Err(match self.uses.iter().find(|u| u.cond == Some(i)) {
                    Some(u) => self.err(u.offset, u.len, kind),
                    None => whole(kind),
                });
            }
        }
        for u in self.uses.iter().filter(|u| u.cond.is_none()) {
            if bound[u.var].is_none() {
                debug_assert!(u.origin == Origin::Rule);
                return Err(self.err(
                    u.offset,
                    u.len,
                    RuleErrorKind::Unbound {
                        var: self.vars[u.var].clone(),
                    },
                ));
            }
        }
        let mut by_var: Vec<Option<Cond>> = vec![None; self.vars.len()];
        for (i, (c, _)) in conds.into_iter().enumerate() {
            if let Some(v) = bound.iter().position(|b| *b == Some(i)) {
                by_var[v] = Some(c);
            }
        }
        Ok(by_var.into_iter().flatten().collect())
    }
}

/// The value of a quoted literal: `\'` (or `\"`) is the quote, every other
/// backslash stays.
fn literal_value(p: Pair<'_, Rule>) -> String {
    let raw = p.as_str();
    let quote = raw.chars().next().unwrap_or('\'');
    let body = p.into_inner().next().map_or("", |b| b.as_str());
    body.replace(&format!("\\{quote}"), &quote.to_string())
}
