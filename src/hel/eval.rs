//! Evaluating a checked rule on a page (hel.md §2–§6).

use super::parse::{Ast, Axis, Index, Op, Path, Prop, RegexOp, Tail};
use super::{Nsl, ResultLimit, MAX_RESULT_BYTES, MAX_RESULT_ITEMS};
use crate::page::{LabelId, NodeId, Page, PCDATA};

/// The state of one evaluation.
struct Eval<'a> {
    page: &'a Page,
    ast: &'a Ast,
    /// The page's id of each label the rule mentions.
    ids: Vec<Option<LabelId>>,
    /// `holds[v][k]`: whether variable v's condition holds for index k.
    holds: Vec<Vec<Option<bool>>>,
    /// While a condition is evaluated: its variable and the index tried.
    env: Option<(usize, usize)>,
    /// Steps taken and string bytes produced so far, and the limit that
    /// stopped the evaluation, if one did.
    items: usize,
    bytes: usize,
    stopped: Option<ResultLimit>,
    /// The main path's first multi-valued step, and the nodes it bound
    /// (one per element of the value's top-level list; `None` where an
    /// `[n,m]` position does not exist).
    first_multi: Option<usize>,
    rows: Vec<Option<NodeId>>,
    /// The children of a node with a label, listed once for a step whose
    /// index is the variable a condition is tried with: trying the
    /// condition for every row of a long list then reads the list once,
    /// not once per row.
    bound_children: std::collections::HashMap<(NodeId, LabelId), Vec<NodeId>>,
}

/// The rule's value on the page, and the limit that cut it short, if one
/// did (the value then holds what was found before).
pub(crate) fn eval(ast: &Ast, page: &Page) -> (Nsl, Option<ResultLimit>) {
    let (value, limit, _) = eval_rows(ast, page, false);
    (value, limit)
}

/// [`eval`], and with `rows`, the nodes bound by the main path's first
/// multi-valued step: element k of the value's top-level list comes from
/// node k (empty when the path has no multi-valued step).
pub(crate) fn eval_rows(
    ast: &Ast,
    page: &Page,
    rows: bool,
) -> (Nsl, Option<ResultLimit>, Vec<Option<NodeId>>) {
    let first_multi = if rows {
        ast.path
            .steps
            .iter()
            .position(|s| super::rows::multi(&s.index))
    } else {
        None
    };
    let mut e = Eval {
        page,
        ast,
        ids: ast.labels.iter().map(|l| page.label_id(l)).collect(),
        holds: vec![Vec::new(); ast.vars.len()],
        env: None,
        items: 0,
        bytes: 0,
        stopped: None,
        first_multi,
        rows: Vec::new(),
        bound_children: std::collections::HashMap::new(),
    };
    let value = e.path(&ast.path, 0, Page::ROOT);
    (value, e.stopped, e.rows)
}

impl Eval<'_> {
    /// Evaluates `p` from step `i` on, at `node`.
    fn path(&mut self, p: &Path, i: usize, node: NodeId) -> Nsl {
        // Every step counts against the result's size, so that nested
        // multi-valued steps over a deep page stop instead of growing a
        // list of lists beyond memory.
        if self.stopped.is_some() {
            return Nsl::Null;
        }
        self.items += 1;
        if self.items > MAX_RESULT_ITEMS {
            self.stopped = Some(ResultLimit::Items);
            return Nsl::Null;
        }
        let Some(step) = p.steps.get(i) else {
            return self.tail(p, node);
        };
        let page = self.page;
        let Some(label) = self.ids[step.label] else {
            return self.nothing(&step.index);
        };
        let bound;
        let index = match &step.index {
            Index::Var { var, .. } if self.env.is_some_and(|(v, _)| v == *var) => {
                let k = self.env.map_or(0, |(_, k)| k);
                if step.axis == Axis::Child {
                    let child = self
                        .bound_children
                        .entry((node, label))
                        .or_insert_with(|| page.child_matches(node, label).collect())
                        .get(k)
                        .copied();
                    return match child {
                        Some(c) => self.path(p, i + 1, c),
                        None => Nsl::Null,
                    };
                }
                bound = Index::At(k);
                &bound
            }
            other => other,
        };
        // A single index on a child step needs no list of candidates.
        if let (Axis::Child, Index::At(n)) = (step.axis, &index) {
            return match page.child_matches(node, label).nth(*n) {
                Some(c) => self.path(p, i + 1, c),
                None => Nsl::Null,
            };
        }
        // The main path's first multi-valued step binds the value's rows
        // (the steps before it are single-valued: it is reached once).
        let binds =
            self.first_multi == Some(i) && self.env.is_none() && std::ptr::eq(p, &self.ast.path);
        let owned: Vec<NodeId>;
        let cands: &[NodeId] = match step.axis {
            Axis::Flow => page.following(node, label),
            Axis::Child => {
                owned = page.child_matches(node, label).collect();
                &owned
            }
        };
        match *index {
            Index::At(n) => match cands.get(n) {
                Some(&c) => self.path(p, i + 1, c),
                None => Nsl::Null,
            },
            Index::List(ref ns) => {
                if binds {
                    self.rows = ns.iter().map(|&n| cands.get(n).copied()).collect();
                }
                Nsl::List(
                    ns.iter()
                        .map(|&n| match cands.get(n) {
                            Some(&c) => self.path(p, i + 1, c),
                            None => Nsl::Null,
                        })
                        .collect(),
                )
            }
            Index::Range(a, b) => {
                let end = b.map_or(cands.len(), |b| b.saturating_add(1).min(cands.len()));
                let picked = cands.get(a..end).unwrap_or(&[]);
                if binds {
                    self.rows = picked.iter().copied().map(Some).collect();
                }
                Nsl::List(picked.iter().map(|&c| self.path(p, i + 1, c)).collect())
            }
            Index::All => {
                if binds {
                    self.rows = cands.iter().copied().map(Some).collect();
                }
                Nsl::List(cands.iter().map(|&c| self.path(p, i + 1, c)).collect())
            }
            Index::Var { var, all: false } => {
                match (0..cands.len()).find(|&k| self.holds(var, k)) {
                    Some(k) => self.path(p, i + 1, cands[k]),
                    None => Nsl::Null,
                }
            }
            Index::Var { var, all: true } => {
                let ks: Vec<usize> = (0..cands.len()).filter(|&k| self.holds(var, k)).collect();
                if binds {
                    self.rows = ks.iter().map(|&k| Some(cands[k])).collect();
                }
                Nsl::List(
                    ks.into_iter()
                        .map(|k| self.path(p, i + 1, cands[k]))
                        .collect(),
                )
            }
        }
    }

    /// The value of a step that matches nothing: null for a single index,
    /// the empty list for a multi-valued one.
    fn nothing(&self, index: &Index) -> Nsl {
        match index {
            Index::At(_) | Index::Var { all: false, .. } => Nsl::Null,
            Index::Var { var, .. } if self.env.is_some_and(|(v, _)| v == *var) => Nsl::Null,
            _ => Nsl::List(Vec::new()),
        }
    }

    fn tail(&mut self, p: &Path, node: NodeId) -> Nsl {
        let mut value = match &p.tail {
            Tail::Prop(prop) => self.prop(prop, node),
            Tail::Fork(branches) => {
                Nsl::List(branches.iter().map(|b| self.path(b, 0, node)).collect())
            }
        };
        for op in &p.ops {
            value = apply(op, value);
        }
        value
    }

    /// A property's value, counted against the result's bytes.
    fn prop(&mut self, prop: &Prop, node: NodeId) -> Nsl {
        let value = self.prop_value(prop, node);
        if let Nsl::Str(s) = &value {
            self.bytes += s.len();
            if self.bytes > MAX_RESULT_BYTES {
                self.stopped = Some(ResultLimit::Bytes);
                return Nsl::Null;
            }
        }
        value
    }

    fn prop_value(&self, prop: &Prop, node: NodeId) -> Nsl {
        let page = self.page;
        match prop {
            Prop::Txt => Nsl::Str(page.text_of(node)),
            Prop::Src => Nsl::Str(page.outer_html(node)),
            Prop::GetAttr(name) => match self.ids[*name].and_then(|id| page.attr(node, id)) {
                Some(v) => Nsl::Str(v.to_string()),
                None => Nsl::Null,
            },
            Prop::NumberOf(label) => {
                let n = match self.ids[*label] {
                    Some(l) if page.label_of(node) != PCDATA => page.child_matches(node, l).count(),
                    _ => 0,
                };
                Nsl::Str(n.to_string())
            }
        }
    }

    /// Whether variable `var`'s condition holds with `var = k`.
    fn holds(&mut self, var: usize, k: usize) -> bool {
        if let Some(Some(h)) = self.holds[var].get(k) {
            return *h;
        }
        let ast = self.ast;
        let cond = &ast.conds[var];
        let saved = self.env.replace((var, k));
        let value = self.path(&cond.path, 0, Page::ROOT);
        self.env = saved;
        let mut any = false;
        each_str(&value, &mut |s| {
            any = any
                || match cond.op {
                    Op::Eq => s == cond.literal,
                    Op::Ne => s != cond.literal,
                    Op::Matches => cond.regex.as_ref().is_some_and(|r| r.is_match(s)),
                    Op::NotMatches => cond.regex.as_ref().is_some_and(|r| !r.is_match(s)),
                }
        });
        let memo = &mut self.holds[var];
        if memo.len() <= k {
            memo.resize(k + 1, None);
        }
        memo[k] = Some(any);
        any
    }
}

fn each_str(v: &Nsl, f: &mut impl FnMut(&str)) {
    match v {
        Nsl::Null => {}
        Nsl::Str(s) => f(s),
        Nsl::List(items) => items.iter().for_each(|i| each_str(i, f)),
    }
}

/// Applies `match` or `split` to every string of a value.
fn apply(op: &RegexOp, v: Nsl) -> Nsl {
    match v {
        Nsl::Null => Nsl::Null,
        Nsl::List(items) => Nsl::List(items.into_iter().map(|i| apply(op, i)).collect()),
        Nsl::Str(s) => match op {
            RegexOp::Match(re) if re.captures_len() == 1 => match re.find(&s) {
                Some(m) => Nsl::Str(m.as_str().to_string()),
                None => Nsl::Null,
            },
            RegexOp::Match(re) => match re.captures(&s) {
                Some(caps) => Nsl::List(
                    caps.iter()
                        .skip(1)
                        .map(|g| g.map_or(Nsl::Null, |m| Nsl::Str(m.as_str().to_string())))
                        .collect(),
                ),
                None => Nsl::Null,
            },
            RegexOp::Split(re) => Nsl::List(
                re.split(&s)
                    .filter(|piece| !piece.is_empty())
                    .map(|piece| Nsl::Str(piece.to_string()))
                    .collect(),
            ),
        },
    }
}
