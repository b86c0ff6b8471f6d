//! The form model of seed §4.1: a form is a set of (element, domain) pairs.
//!
//! [`forms`] reads every form of a page with its action, method, enctype and
//! charset, and each element with its internal name, its domain (determined
//! for selects, radio groups, checkboxes and hidden fields; undetermined for
//! text fields), its default value and its visible label.
//!
//! Decisions where the HTML is loose:
//! - A control belongs to the form named by its `form` attribute, else to
//!   the form it is inside, else to the last form that started before it
//!   (old pages open `<form>` inside a table, and the parser closes it
//!   before the controls).
//! - Disabled controls and disabled options are left out: a browser never
//!   submits them. File inputs, reset and plain buttons are left out too.
//! - Radio buttons and checkboxes that share a name are one element whose
//!   choices keep document order; the element sits where its first member is.
//! - A label is `<label for=id>`, else an enclosing `<label>`, else the
//!   nearest text before the element; a choice's label is its own label,
//!   else the text right after it (where "Fischland" follows its radio).

use std::fmt;

use encoding_rs::Encoding;
use select::document::Document;
use select::node::Node;
use select::predicate::Name;
use url::Url;

use crate::fetch::Method;

/// How a POST body is encoded (`enctype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enctype {
    UrlEncoded,
    Multipart,
    TextPlain,
}

impl fmt::Display for Enctype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Enctype::UrlEncoded => "application/x-www-form-urlencoded",
            Enctype::Multipart => "multipart/form-data",
            Enctype::TextPlain => "text/plain",
        })
    }
}

/// One query form of a page.
#[derive(Debug, Clone)]
pub struct Form {
    /// Position among the page's forms (0-based).
    pub index: usize,
    pub id: Option<String>,
    pub name: Option<String>,
    /// The action, resolved against the page (or its `<base href>`).
    pub action: Url,
    pub method: Method,
    pub enctype: Enctype,
    /// The `accept-charset` attribute as written.
    pub accept_charset: Option<String>,
    /// The encoding a browser submits in: the first known `accept-charset`
    /// label, else the page's encoding.
    pub encoding: &'static Encoding,
    /// Elements in document order.
    pub elements: Vec<Element>,
}

/// One form element (seed §4.1), by its internal name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The internal name sent with the form (empty for an unnamed submit button).
    pub name: String,
    pub kind: ElementKind,
    /// The visible label, if one was found.
    pub label: Option<String>,
}

/// A value of a select, radio group or checkbox with its visible label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub value: String,
    pub label: String,
    /// Selected or checked by default.
    pub selected: bool,
}

/// What kind of control a form element is, with the values it offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementKind {
    Select {
        multiple: bool,
        options: Vec<Choice>,
    },
    Radio {
        choices: Vec<Choice>,
    },
    Checkbox {
        choices: Vec<Choice>,
    },
    /// A one-line field: `text`, `search`, `email`, `number`, `password`…
    Text {
        input_type: String,
        value: String,
    },
    TextArea {
        value: String,
    },
    Hidden {
        value: String,
    },
    /// A submit button (`input type=submit|image`, `button`).
    Submit {
        value: String,
        image: bool,
    },
}

impl Element {
    /// The determined domain (the internal values), or `None` for a text
    /// field or text area.
    pub fn domain(&self) -> Option<Vec<String>> {
        match &self.kind {
            ElementKind::Select { options: c, .. }
            | ElementKind::Radio { choices: c }
            | ElementKind::Checkbox { choices: c } => {
                Some(c.iter().map(|c| c.value.clone()).collect())
            }
            ElementKind::Hidden { value } | ElementKind::Submit { value, .. } => {
                Some(vec![value.clone()])
            }
            ElementKind::Text { .. } | ElementKind::TextArea { .. } => None,
        }
    }

    /// The values a browser submits when the user changes nothing: the
    /// selected option (the first one of a single select when none is
    /// marked), the checked radio button and checkboxes, the field's
    /// text — empty, but sent. Submit buttons are handled by the plan.
    pub fn default_values(&self) -> Vec<String> {
        match &self.kind {
            ElementKind::Select { multiple, options } => {
                let selected: Vec<String> = options
                    .iter()
                    .filter(|o| o.selected)
                    .map(|o| o.value.clone())
                    .collect();
                match (multiple, selected.last()) {
                    (true, _) => selected,
                    (false, Some(last)) => vec![last.clone()],
                    (false, None) => options
                        .first()
                        .map(|o| o.value.clone())
                        .into_iter()
                        .collect(),
                }
            }
            // Of several checked radio buttons the last one stays checked.
            ElementKind::Radio { choices } => choices
                .iter()
                .rev()
                .find(|c| c.selected)
                .map(|c| c.value.clone())
                .into_iter()
                .collect(),
            ElementKind::Checkbox { choices } => choices
                .iter()
                .filter(|c| c.selected)
                .map(|c| c.value.clone())
                .collect(),
            ElementKind::Text { value, .. }
            | ElementKind::TextArea { value }
            | ElementKind::Hidden { value } => vec![value.clone()],
            ElementKind::Submit { .. } => Vec::new(),
        }
    }

    /// A word for the kind of element, for messages.
    pub fn kind_name(&self) -> &'static str {
        match &self.kind {
            ElementKind::Select { multiple: true, .. } => "multiple select",
            ElementKind::Select { .. } => "select",
            ElementKind::Radio { .. } => "radio group",
            ElementKind::Checkbox { .. } => "checkbox",
            ElementKind::Text { .. } => "text field",
            ElementKind::TextArea { .. } => "text area",
            ElementKind::Hidden { .. } => "hidden field",
            ElementKind::Submit { .. } => "submit button",
        }
    }
}

impl Form {
    /// The element with this internal name.
    pub fn element(&self, name: &str) -> Option<&Element> {
        self.elements
            .iter()
            .find(|e| e.name == name && !matches!(e.kind, ElementKind::Submit { .. }))
            .or_else(|| self.elements.iter().find(|e| e.name == name))
    }

    /// Internal names of the elements that take values (not the submit buttons).
    pub fn element_names(&self) -> Vec<&str> {
        self.elements
            .iter()
            .filter(|e| !matches!(e.kind, ElementKind::Submit { .. }))
            .map(|e| e.name.as_str())
            .collect()
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "form #{}{}: {} {} ({}, {})",
            self.index,
            self.name
                .as_deref()
                .or(self.id.as_deref())
                .map(|n| format!(" {n:?}"))
                .unwrap_or_default(),
            self.method,
            self.action,
            self.enctype,
            self.encoding.name()
        )?;
        for e in &self.elements {
            let label = e
                .label
                .as_deref()
                .map(|l| format!(" label {l:?}"))
                .unwrap_or_default();
            let domain = match e.domain() {
                Some(d)
                    if !matches!(
                        e.kind,
                        ElementKind::Submit { .. } | ElementKind::Hidden { .. }
                    ) =>
                {
                    format!(" domain [{}]", d.join(", "))
                }
                Some(_) => String::new(),
                None => " domain undetermined".into(),
            };
            writeln!(
                f,
                "  {} {:?}{label}{domain} default {:?}",
                e.kind_name(),
                e.name,
                e.default_values()
            )?;
        }
        Ok(())
    }
}

/// A form whose action is not a URL.
#[derive(Debug, Clone, thiserror::Error)]
#[error("form #{index}: action {action:?} is not a valid URL: {message}")]
pub struct FormError {
    pub index: usize,
    pub action: String,
    pub message: String,
}

/// Reads every form of a page. `page_encoding` is the encoding the page was
/// decoded with (see `crate::charset`).
pub fn forms(
    html: &str,
    page_url: &Url,
    page_encoding: &'static Encoding,
) -> Result<Vec<Form>, FormError> {
    let doc = Document::from(html);
    let base = doc
        .find(Name("base"))
        .find_map(|b| b.attr("href"))
        .and_then(|h| page_url.join(h.trim()).ok())
        .unwrap_or_else(|| page_url.clone());
    let form_nodes: Vec<Node> = doc.find(Name("form")).collect();
    let mut out = Vec::new();
    for (index, node) in form_nodes.iter().enumerate() {
        let action_attr = node.attr("action").unwrap_or("").trim();
        let action = if action_attr.is_empty() {
            page_url.clone()
        } else {
            base.join(action_attr).map_err(|e| FormError {
                index,
                action: action_attr.to_string(),
                message: e.to_string(),
            })?
        };
        let method = match node.attr("method") {
            Some(m) if m.trim().eq_ignore_ascii_case("post") => Method::Post,
            _ => Method::Get,
        };
        let enctype = match node.attr("enctype").map(|e| e.trim().to_ascii_lowercase()) {
            Some(e) if e == "multipart/form-data" => Enctype::Multipart,
            Some(e) if e == "text/plain" => Enctype::TextPlain,
            _ => Enctype::UrlEncoded,
        };
        let accept_charset = node.attr("accept-charset").map(str::to_string);
        let encoding = accept_charset
            .as_deref()
            .and_then(|cs| {
                cs.split(|c: char| c.is_ascii_whitespace() || c == ',')
                    .find_map(|l| Encoding::for_label(l.as_bytes()))
            })
            .unwrap_or(page_encoding)
            .output_encoding();
        out.push(Form {
            index,
            id: node.attr("id").map(str::to_string),
            name: node.attr("name").map(str::to_string),
            action,
            method,
            enctype,
            accept_charset,
            encoding,
            elements: Vec::new(),
        });
    }
    let labels = LabelIndex::new(&doc);
    for control in
        doc.find(|n: &Node| matches!(n.name(), Some("input" | "select" | "textarea" | "button")))
    {
        let Some(owner) = owner_form(&control, &form_nodes) else {
            continue;
        };
        if control.attr("disabled").is_some() || in_disabled_fieldset(&control) {
            continue;
        }
        add_control(&doc, &mut out[owner].elements, &control, &labels);
    }
    Ok(out)
}

/// The index of the form a control belongs to (see the module docs).
fn owner_form(control: &Node, forms: &[Node]) -> Option<usize> {
    if let Some(id) = control.attr("form") {
        if let Some(i) = forms.iter().position(|f| f.attr("id") == Some(id)) {
            return Some(i);
        }
    }
    let mut p = control.parent();
    while let Some(n) = p {
        if n.name() == Some("form") {
            return forms.iter().position(|f| f.index() == n.index());
        }
        p = n.parent();
    }
    forms.iter().rposition(|f| f.index() < control.index())
}

/// True when the control sits in a disabled fieldset.
fn in_disabled_fieldset(node: &Node) -> bool {
    let mut p = node.parent();
    while let Some(n) = p {
        if n.name() == Some("fieldset") && n.attr("disabled").is_some() {
            return true;
        }
        p = n.parent();
    }
    false
}

fn add_control(doc: &Document, elements: &mut Vec<Element>, node: &Node, labels: &LabelIndex) {
    let name = node.attr("name").unwrap_or("").to_string();
    let attr = |a: &str| node.attr(a).unwrap_or("").to_string();
    let kind = match node.name() {
        Some("select") => {
            let options = node
                .find(Name("option"))
                .filter(|o| o.attr("disabled").is_none())
                .map(|o| {
                    let text = collapse(&o.text());
                    Choice {
                        value: o.attr("value").map_or_else(|| text.clone(), str::to_string),
                        label: o
                            .attr("label")
                            .map(collapse)
                            .filter(|l| !l.is_empty())
                            .unwrap_or(text),
                        selected: o.attr("selected").is_some(),
                    }
                })
                .collect();
            ElementKind::Select {
                multiple: node.attr("multiple").is_some(),
                options,
            }
        }
        Some("textarea") => ElementKind::TextArea { value: node.text() },
        Some("button") => match node.attr("type").map(str::to_ascii_lowercase).as_deref() {
            None | Some("submit") | Some("") => ElementKind::Submit {
                value: attr("value"),
                image: false,
            },
            _ => return,
        },
        _ => {
            let input_type = node
                .attr("type")
                .map_or_else(|| "text".to_string(), |t| t.trim().to_ascii_lowercase());
            match input_type.as_str() {
                "radio" | "checkbox" => {
                    if name.is_empty() {
                        return;
                    }
                    let choice = Choice {
                        value: node.attr("value").unwrap_or("on").to_string(),
                        label: labels
                            .explicit(node)
                            .or_else(|| following_text(doc, node))
                            .unwrap_or_default(),
                        selected: node.attr("checked").is_some(),
                    };
                    let radio = input_type == "radio";
                    let existing = elements.iter_mut().find(|e| {
                        e.name == name
                            && matches!(
                                (&e.kind, radio),
                                (ElementKind::Radio { .. }, true)
                                    | (ElementKind::Checkbox { .. }, false)
                            )
                    });
                    match existing.map(|e| &mut e.kind) {
                        Some(
                            ElementKind::Radio { choices } | ElementKind::Checkbox { choices },
                        ) => {
                            choices.push(choice);
                            return;
                        }
                        _ if radio => ElementKind::Radio {
                            choices: vec![choice],
                        },
                        _ => ElementKind::Checkbox {
                            choices: vec![choice],
                        },
                    }
                }
                "hidden" => ElementKind::Hidden {
                    value: attr("value"),
                },
                "submit" => ElementKind::Submit {
                    value: attr("value"),
                    image: false,
                },
                "image" => ElementKind::Submit {
                    value: String::new(),
                    image: true,
                },
                "reset" | "button" | "file" => return,
                _ => ElementKind::Text {
                    value: attr("value"),
                    input_type,
                },
            }
        }
    };
    if name.is_empty() && !matches!(kind, ElementKind::Submit { .. }) {
        return;
    }
    let label = match kind {
        ElementKind::Submit { .. } => None,
        ElementKind::Radio { .. } | ElementKind::Checkbox { .. } => preceding_text(doc, node),
        _ => labels.explicit(node).or_else(|| preceding_text(doc, node)),
    };
    elements.push(Element { name, kind, label });
}

/// `<label for=…>` texts by id.
struct LabelIndex {
    by_id: Vec<(String, String)>,
}

impl LabelIndex {
    fn new(doc: &Document) -> LabelIndex {
        let by_id = doc
            .find(Name("label"))
            .filter_map(|l| Some((l.attr("for")?.to_string(), visible_text(&l))))
            .collect();
        LabelIndex { by_id }
    }

    /// `label[for=id]`, else an enclosing label.
    fn explicit(&self, node: &Node) -> Option<String> {
        if let Some(id) = node.attr("id") {
            if let Some((_, text)) = self.by_id.iter().find(|(f, _)| f == id) {
                if !text.is_empty() {
                    return Some(text.clone());
                }
            }
        }
        let mut p = node.parent();
        while let Some(n) = p {
            if n.name() == Some("label") {
                return Some(visible_text(&n)).filter(|t| !t.is_empty());
            }
            if n.name() == Some("form") {
                break;
            }
            p = n.parent();
        }
        None
    }
}

/// The text of a node that a reader sees as label: without the options of
/// a select or the content of a text area inside it.
fn visible_text(node: &Node) -> String {
    let mut out = String::new();
    for d in node.descendants() {
        if let Some(t) = d.as_text() {
            if !in_hidden_text(&d) {
                out.push_str(t);
                out.push(' ');
            }
        }
    }
    collapse(&out)
}

fn in_hidden_text(node: &Node) -> bool {
    let mut p = node.parent();
    while let Some(n) = p {
        if matches!(
            n.name(),
            Some("option" | "select" | "textarea" | "script" | "style" | "title" | "button")
        ) {
            return true;
        }
        p = n.parent();
    }
    false
}

fn is_control(node: &Node) -> bool {
    matches!(
        node.name(),
        Some("input" | "select" | "textarea" | "button")
    )
}

/// The nearest non-blank text before a node in document order — its last
/// line, since the lines before it usually belong to the controls before.
fn preceding_text(doc: &Document, node: &Node) -> Option<String> {
    (0..node.index()).rev().take(200).find_map(|i| {
        let n = doc.nth(i)?;
        let line = n
            .as_text()?
            .lines()
            .map(collapse)
            .rfind(|l| !l.is_empty())?;
        (!in_hidden_text(&n)).then_some(line)
    })
}

/// The first non-blank line of text after a node, unless another control
/// comes first.
fn following_text(doc: &Document, node: &Node) -> Option<String> {
    for i in node.index() + 1..node.index() + 200 {
        let n = doc.nth(i)?;
        if is_control(&n) {
            return None;
        }
        if let Some(t) = n.as_text() {
            if let Some(line) = t.lines().map(collapse).find(|l| !l.is_empty()) {
                if !in_hidden_text(&n) {
                    return Some(line);
                }
            }
        }
    }
    None
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
