//! Which rows a rule's value is over, for records (see [`super::Rule::row_key`]).
//!
//! The rows of a rule are the elements of the list its first multi-valued
//! step makes (`[*]`, `[a-b]`, `[n,m]`, `[v:*]`): the evaluator returns them
//! as the top-level list of the value. Two rules whose paths are the same up
//! to and including that step — same axes, labels and indexes, and the same
//! conditions for the variables used there — select the same nodes there on
//! every page, so element k of one and element k of the other come from the
//! same row.

use std::fmt::Write as _;

use super::parse::{Ast, Cond, Index, Op, Path, Prop, RegexOp, Step, Tail};
use super::Nsl;

/// Whether an index makes a list level.
pub(crate) fn multi(index: &Index) -> bool {
    match index {
        Index::At(_) | Index::Var { all: false, .. } => false,
        Index::List(_) | Index::Range(..) | Index::All | Index::Var { all: true, .. } => true,
    }
}

/// The canonical text of the rule's steps up to and including its first
/// multi-valued one, with the conditions of the variables they use; `None`
/// when the rule's path (before a fork) has no multi-valued step.
pub(crate) fn row_key(ast: &Ast) -> Option<String> {
    let first = ast.path.steps.iter().position(|s| multi(&s.index))?;
    let mut out = String::new();
    for step in &ast.path.steps[..=first] {
        write_step(ast, step, None, &mut out);
    }
    Some(out)
}

/// The number of multi-valued steps of the rule's path before its tail.
pub(crate) fn depth(ast: &Ast) -> usize {
    ast.path.steps.iter().filter(|s| multi(&s.index)).count()
}

/// The number of branches of the fork the rule's path ends in.
pub(crate) fn fork_width(ast: &Ast) -> Option<usize> {
    match &ast.path.tail {
        Tail::Fork(branches) => Some(branches.len()),
        Tail::Prop(_) => None,
    }
}

/// Splits a value of the rule into rows and fields (see
/// [`super::Rule::row_fields`]).
pub(crate) fn row_fields<'a>(ast: &Ast, value: &'a Nsl) -> Vec<Vec<Vec<&'a str>>> {
    if !ast.path.steps.iter().any(|s| multi(&s.index)) {
        return Vec::new();
    }
    let Nsl::List(rows) = value else {
        return Vec::new();
    };
    let depth = depth(ast);
    rows.iter()
        .map(|row| match fork_width(ast) {
            None => vec![strings(row)],
            Some(width) => {
                // The fork's values inside this row: one per element of the
                // multi-valued steps between the row's step and the fork.
                let mut forks = Vec::new();
                fork_nodes(row, depth - 1, &mut forks);
                (0..width)
                    .map(|b| {
                        forks
                            .iter()
                            .filter_map(|f| match f {
                                Nsl::List(branches) => branches.get(b),
                                _ => None,
                            })
                            .flat_map(strings)
                            .collect()
                    })
                    .collect()
            }
        })
        .collect()
}

/// The strings of a value in document order, nulls and empty strings
/// dropped (as [`Nsl::flatten`], without copying them).
fn strings(value: &Nsl) -> Vec<&str> {
    fn walk<'a>(n: &'a Nsl, out: &mut Vec<&'a str>) {
        match n {
            Nsl::Null => {}
            Nsl::Str(s) if s.is_empty() => {}
            Nsl::Str(s) => out.push(s),
            Nsl::List(items) => items.iter().for_each(|i| walk(i, out)),
        }
    }
    let mut out = Vec::new();
    walk(value, &mut out);
    out
}

/// The values `levels` list levels below `value`.
fn fork_nodes<'a>(value: &'a Nsl, levels: usize, out: &mut Vec<&'a Nsl>) {
    if levels == 0 {
        out.push(value);
        return;
    }
    if let Nsl::List(items) = value {
        for item in items {
            fork_nodes(item, levels - 1, out);
        }
    }
}

/// Writes a step canonically; `own` is the variable written `$` (inside its
/// own condition).
fn write_step(ast: &Ast, step: &Step, own: Option<usize>, out: &mut String) {
    out.push_str(match step.axis {
        super::parse::Axis::Child => ".",
        super::parse::Axis::Flow => "->",
    });
    out.push_str(&ast.labels[step.label]);
    match &step.index {
        Index::At(n) => {
            let _ = write!(out, "[{n}]");
        }
        Index::List(ns) => {
            let list: Vec<String> = ns.iter().map(usize::to_string).collect();
            let _ = write!(out, "[{}]", list.join(","));
        }
        Index::Range(a, Some(b)) => {
            let _ = write!(out, "[{a}-{b}]");
        }
        Index::Range(a, None) => {
            let _ = write!(out, "[{a}-]");
        }
        Index::All => out.push_str("[*]"),
        Index::Var { var, all } => {
            let n = if *all { "*" } else { "0" };
            if own == Some(*var) {
                let _ = write!(out, "[$:{n}]");
            } else {
                // The variable stands for the indexes its condition selects.
                let _ = write!(out, "[$:{n} WHERE ");
                write_cond(ast, &ast.conds[*var], *var, out);
                out.push(']');
            }
        }
    }
}

fn write_cond(ast: &Ast, cond: &Cond, var: usize, out: &mut String) {
    write_path(ast, &cond.path, var, out);
    let op = match cond.op {
        Op::Eq => "=",
        Op::Ne => "!=",
        Op::Matches => "=~",
        Op::NotMatches => "!~",
    };
    let _ = write!(out, " {op} {:?}", cond.literal);
}

fn write_path(ast: &Ast, path: &Path, var: usize, out: &mut String) {
    out.push_str("html");
    write_rest(ast, path, var, out);
}

fn write_rest(ast: &Ast, path: &Path, var: usize, out: &mut String) {
    for step in &path.steps {
        write_step(ast, step, Some(var), out);
    }
    match &path.tail {
        Tail::Prop(Prop::Txt) => out.push_str(".txt"),
        Tail::Prop(Prop::Src) => out.push_str(".src"),
        Tail::Prop(Prop::GetAttr(a)) => {
            let _ = write!(out, ".getAttr({:?})", ast.labels[*a]);
        }
        Tail::Prop(Prop::NumberOf(l)) => {
            let _ = write!(out, ".numberOf({})", ast.labels[*l]);
        }
        Tail::Fork(branches) => {
            out.push('(');
            for (i, b) in branches.iter().enumerate() {
                if i > 0 {
                    out.push_str(" # ");
                }
                write_rest(ast, b, var, out);
            }
            out.push(')');
        }
    }
    for op in &path.ops {
        let (name, re) = match op {
            RegexOp::Match(re) => ("match", re),
            RegexOp::Split(re) => ("split", re),
        };
        let _ = write!(out, ", {name}{:?}", re.as_str());
    }
}
