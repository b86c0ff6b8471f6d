//! From text to a checked rule: the pest grammar (`grammar/hel.pest`), the
//! typed AST, and the checks done before any evaluation.

use pest::iterators::Pair;
use pest::Parser;
use regex::Regex;

use super::error::RuleError;

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
    let mut conds_raw: Vec<(Cond, usize)> = Vec::new();
    for pair in pairs.flatten().take(1).flat_map(|p| p.into_inner()) {
        match pair.as_rule() {
            Rule::expr => path = Some(b.expr(pair, prefix.as_ref(), 0)?),
            Rule::where_clause => {
                for c in pair.into_inner().filter(|p| p.as_rule() == Rule::cond) {
                    b.cond = Some(conds_raw.len());
                    let start = c.as_span().start();
                    let cond = b.cond(c, prefix.as_ref())?;
                    conds_raw.push((cond, start));
                }
                b.cond = None;
            }
            _ => {}
        }
    }
    let path = path.ok_or_else(|| RuleError::at(src, 0, "expected a path"))?;
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
    let mut expected: Vec<String> = Vec::new();
    let mut closing_bracket = false;
    fn push(expected: &mut Vec<String>, s: String) {
        if !expected.contains(&s) {
            expected.push(s);
        }
    }
    if let pest::error::ErrorVariant::ParsingError { positives, .. } = &e.variant {
        for r in positives {
            closing_bracket |= *r == Rule::close_bracket;
            if let Some(d) = describe_rule(*r) {
                push(&mut expected, d.to_string());
            }
        }
    }
    if expected.iter().any(|d| d.starts_with("a step"))
        && !expected.iter().any(|d| d.starts_with("a property"))
    {
        push(
            &mut expected,
            describe_rule(Rule::txt).unwrap_or_default().to_string(),
        );
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
            closing_bracket |= shown == "]";
            let shown = if insensitive {
                match shown.to_ascii_lowercase().as_str() {
                    "getattr" => "getAttr".to_string(),
                    "numberof" => "numberOf".to_string(),
                    "where" | "and" => shown,
                    other => other.to_string(),
                }
            } else {
                shown
            };
            push(&mut expected, format!("`{shown}`"));
        }
    }
    let found = match src[offset..].chars().next() {
        None => "the end of the rule".to_string(),
        Some(c) if c.is_whitespace() => "white space".to_string(),
        Some(c) => format!("`{c}`"),
    };
    let message = if expected.is_empty() {
        format!("unexpected {found}")
    } else {
        format!("expected {}, found {found}", join_or(&expected))
    };
    let err = RuleError::at(src, offset, message);
    if closing_bracket {
        if let Some(s) = close_index_suggestion(src, err.offset) {
            return err.with_suggestion(s);
        }
    }
    err
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

fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn describe_rule(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::label | Rule::first_step | Rule::name => "a label",
        Rule::step | Rule::axis | Rule::trailing_sep => "a step (`.label` or `->label`)",
        Rule::root => "`html`",
        Rule::index => "an index `[…]`",
        Rule::number => "a number",
        Rule::var | Rule::var_index => "a variable",
        Rule::all | Rule::var_all => "`*`",
        Rule::range | Rule::list => "an index",
        Rule::txt | Rule::src | Rule::get_attr | Rule::number_of => {
            "a property (`.txt`, `.src`, `.getAttr(name)`, `.numberOf(label)`)"
        }
        Rule::attr_name | Rule::bare_attr => "an attribute name",
        Rule::fork => "a fork `( … # … )`",
        Rule::branch => "a fork branch (starting with `.` or `->`)",
        Rule::regex_op => "a regex operator (`, match/…/`, `, split/…/`)",
        Rule::match_op | Rule::split_op => "`match` or `split`",
        Rule::regex => "a regex `/…/`",
        Rule::where_clause | Rule::where_kw => "`WHERE`",
        Rule::and_kw => "`AND`",
        Rule::cond | Rule::expr => "a path",
        Rule::op => "`=`, `!=`, `=~` or `!~`",
        Rule::literal => "a quoted string",
        Rule::EOI => "the end of the rule",
        Rule::close_bracket => "`]`",
        Rule::close_paren => "`)`",
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

    fn err(&self, offset: usize, message: impl Into<String>) -> RuleError {
        let e = RuleError::at(self.text(), offset, message);
        match self.origin {
            Origin::Rule => e,
            Origin::Prefix => e.in_prefix(),
        }
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
                "a DB.Result prefix cannot use variables; put the condition in each rule",
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
        let tail = tail.ok_or_else(|| self.err(self.src.len(), "expected a property"))?;
        Ok(Path { steps, tail, ops })
    }

    fn fork(&mut self, pair: Pair<'_, Rule>, depth: usize) -> Result<Tail, RuleError> {
        if depth > MAX_FORK_DEPTH {
            return Err(self.err(
                pair.as_span().start(),
                format!("forks nested more than {MAX_FORK_DEPTH} deep"),
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
            let tail = tail.ok_or_else(|| self.err(self.src.len(), "expected a property"))?;
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
                format!("index {} is too large", p.as_str()),
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
                    origin: self.origin,
                    cond: self.cond,
                });
                let all = parts.next().is_some_and(|p| p.as_rule() == Rule::var_all);
                Index::Var { var, all }
            }
            Rule::range => {
                let at = inner.as_span().start();
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
                    return Err(self.err(
                        at,
                        format!("the range {a}-{b} is empty: its end comes before its start"),
                    ));
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
            return Err(self.err(self.src.len(), "expected a regex `/…/`"));
        };
        let re = self.compile(&body.as_str().replace("\\/", "/"), body.as_span().start())?;
        Ok(if is_match {
            RegexOp::Match(re)
        } else {
            RegexOp::Split(re)
        })
    }

    fn compile(&self, re: &str, offset: usize) -> Result<Regex, RuleError> {
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
            self.err(
                offset,
                format!("the regex `{re}` does not compile: {detail}"),
            )
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
        let mut lit_offset = 0;
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
                    lit_offset = p.as_span().start() + 1;
                    literal = literal_value(p);
                }
                _ => {}
            }
        }
        let regex = match op {
            Op::Matches | Op::NotMatches => Some(self.compile(&literal, lit_offset)?),
            _ => None,
        };
        let path = path.ok_or_else(|| self.err(self.src.len(), "expected a path"))?;
        Ok(Cond {
            path,
            op,
            literal,
            regex,
        })
    }

    /// Every variable bound by exactly one condition; each condition mentions
    /// exactly one variable, one the rule's path uses.
    fn check(&self, conds: Vec<(Cond, usize)>) -> Result<Vec<Cond>, RuleError> {
        let mut bound: Vec<Option<usize>> = vec![None; self.vars.len()];
        for (i, (_, start)) in conds.iter().enumerate() {
            let mut var: Option<usize> = None;
            for u in self.uses.iter().filter(|u| u.cond == Some(i)) {
                match var {
                    None => var = Some(u.var),
                    Some(v) if v != u.var => {
                        return Err(self.err(
                            u.offset,
                            format!(
                                "a condition mentions exactly one variable; this one mentions `{}` and `{}`",
                                self.vars[v], self.vars[u.var]
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
            let Some(v) = var else {
                return Err(self.err(
                    *start,
                    "this condition mentions no variable; a condition binds the variable of an index such as `tr[i]`",
                ));
            };
            if bound[v].is_some() {
                return Err(self.err(
                    *start,
                    format!("variable `{}` is bound by two conditions", self.vars[v]),
                ));
            }
            bound[v] = Some(i);
            if !self.uses.iter().any(|u| u.var == v && u.cond.is_none()) {
                let at = self
                    .uses
                    .iter()
                    .find(|u| u.cond == Some(i))
                    .map_or(*start, |u| u.offset);
                return Err(self.err(
                    at,
                    format!(
                        "the condition binds `{}`, which the rule's path does not use",
                        self.vars[v]
                    ),
                ));
            }
        }
        for u in self.uses.iter().filter(|u| u.cond.is_none()) {
            if bound[u.var].is_none() {
                debug_assert!(u.origin == Origin::Rule);
                return Err(self.err(
                    u.offset,
                    format!(
                        "variable `{}` is not bound: add a condition `WHERE … [{}] … = '…'`",
                        self.vars[u.var], self.vars[u.var]
                    ),
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
