//! The plan chosen, for people: the text of a surfacing's summary and the
//! header of the spec it writes.

use std::fmt::Write as _;

use super::{InducedSpec, ProbeReport, Role};

impl InducedSpec {
    /// The plan chosen, for people: inputs with their roles and reasons,
    /// the probes, the rules with sample values.
    pub fn plan_text(&self) -> String {
        let mut out = format!("surfacing {} (no metadata):\n", self.spec.url);
        if let Some(why) = &self.page_listing {
            let _ = writeln!(out, "  the listing read instead of the search: {why}");
        }
        out.push_str("  inputs:\n");
        for i in &self.inputs {
            let role = match i.role {
                Role::Query => "query element",
                Role::Refine => "refinement element",
                Role::Unused => "left at its default",
            };
            let _ = writeln!(out, "    {} ({}): {role}: {}", i.name, i.kind, i.why);
        }
        let _ = writeln!(
            out,
            "  probes: {} requests to the provider (besides the form page); an answer the gathering needs again is taken from them, not asked again",
            self.probes.len()
        );
        for p in &self.probes {
            let _ = writeln!(out, "    {}: {}", describe_values(&p.values), answer(p));
        }
        out.push_str("  rules:\n");
        let named = self.spec.results.iter().filter(|i| i.attribute.is_some());
        for (item, (_, values)) in named.zip(&self.samples) {
            let shown: Vec<&String> = values.iter().take(3).collect();
            let more = if values.len() > 3 { ", …" } else { "" };
            let _ = writeln!(
                out,
                "    {}: {}  e.g. {shown:?}{more}",
                item.attribute.as_deref().unwrap_or("?"),
                item.rule.as_deref().unwrap_or("?")
            );
        }
        for line in &self.left_out {
            let _ = writeln!(
                out,
                "    left out: a line that repeats the words of the query or states the answer's total (the answer's summary), or that does not vary with the data (a timing, the same value on every answer), e.g. {line:?}"
            );
        }
        out
    }

    /// The spec as YAML, with a header that says where it comes from and
    /// which slots still need a name.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("# gather spec induced by probing the form\n");
        for line in self.plan_text().lines() {
            let _ = writeln!(out, "# {line}");
        }
        if self.unnamed.is_empty() {
            out.push_str("# every slot is named; review the rules before gathering\n");
        } else {
            out.push_str("# slots it could not name (rename them, drop those you do not want):\n");
            for (name, values) in &self.unnamed {
                let shown: Vec<&String> = values.iter().take(3).collect();
                let more = if values.len() > 3 { ", …" } else { "" };
                let _ = writeln!(out, "#   {name}: {shown:?}{more}");
            }
        }
        out.push_str(&self.spec.to_yaml());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out
    }
}

/// The plan written in the comments of an induced spec's YAML
/// ([`InducedSpec::to_yaml`]), for a run that takes the stored spec.
pub fn plan_of_yaml(yaml: &str) -> String {
    let mut out = String::new();
    for line in yaml.lines().skip(1) {
        let Some(line) = line.strip_prefix("# ") else {
            break;
        };
        if line.starts_with("every slot is named") || line.starts_with("slots it could not name") {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

pub(super) fn describe_values(values: &[(String, String)]) -> String {
    if values.is_empty() {
        "the form as it stands".into()
    } else {
        values
            .iter()
            .map(|(k, v)| format!("{k}={v:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub(super) fn answer(p: &ProbeReport) -> String {
    if !(200..300).contains(&p.status) {
        format!("HTTP {}", p.status)
    } else if p.rows == 0 {
        "empty".into()
    } else {
        format!("{} rows", p.rows)
    }
}
