//! The form model of seed §4.1: a form is a set of (element, domain) pairs.
//!
//! [`forms`] reads every form of a page with its action, method, enctype and
//! charset, and each element with its internal name, its domain (determined
//! for selects, radio groups, checkboxes and hidden fields; undetermined for
//! text fields), its default value and its visible label. It reads the page
//! tree of `crate::page` (the one the meta tags are read from), so a form
//! page is parsed once; every walk over the tree is a loop, never a
//! recursion, and a climb to the ancestors is bounded by the tree's depth
//! cap (see `crate::page`).
//!
//! Decisions where the HTML is loose:
//! - A control belongs to the form named by its `form` attribute, else to
//!   the form it is inside, else to the last form that started before it
//!   (old pages open `<form>` inside a table, and the parser closes it
//!   before the controls).
//! - Disabled controls and disabled options are left out of the elements:
//!   a browser never submits them. The disabled controls are kept apart
//!   ([`Form::unsent`]): a page's script enables them, often a select it
//!   fills once another is chosen. Script buttons (`type=button`) are kept
//!   there too ([`ElementKind::Button`]): a browser never sends them, a
//!   script of the page acts on them — often by submitting the form. File
//!   inputs and reset buttons are left out.
//! - Radio buttons and checkboxes that share a name are one element whose
//!   choices keep document order; the element sits where its first member is.
//! - A label is `<label for=id>`, else an enclosing `<label>`, else the
//!   nearest text before the element; a choice's label is its own label,
//!   else the text right after it (where "Fischland" follows its radio).
//! - An option without a `value` has its text as value, white space
//!   collapsed and scripts inside it left out, as a browser's `option.text`.
//! - A text area's default is its text as written; one that holds only white
//!   space reads as empty (the page tree keeps no white-space-only text).

use std::fmt;

use encoding_rs::Encoding;
use url::Url;

use crate::fetch::Method;
use crate::page::{LabelId, NodeId, Page};

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
    /// The controls a browser does not send as the page stands, in
    /// document order: those the page shows disabled (a script enables
    /// them: a select filled once another is chosen, a field shown with a
    /// checkbox) and script buttons ([`ElementKind::Button`]).
    pub unsent: Vec<Element>,
}

/// One form element (seed §4.1), by its internal name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The internal name sent with the form (empty for an unnamed submit button).
    pub name: String,
    pub kind: ElementKind,
    /// The visible label, if one was found.
    pub label: Option<String>,
    /// What else the page says of the control (placeholder, title, …).
    pub hints: Hints,
}

/// What the page says of a control besides its label: the attributes and
/// texts the form's kind and the element's role are read from
/// ([`kind`], [`role`]). Absent attributes are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hints {
    pub id: String,
    pub class: String,
    pub placeholder: String,
    pub title: String,
    pub aria_label: String,
    pub autocomplete: String,
    /// A `<button>`'s text.
    pub text: String,
    /// The `onchange` script: a choice that submits the form (a post-back).
    pub onchange: String,
    /// Hidden from the reader by its style or its box (`display:none`,
    /// `visibility:hidden`, the `hidden` attribute, `aria-hidden`), on
    /// itself or on an element between it and its form.
    pub concealed: bool,
}

impl Hints {
    /// Every text of the hints, for keyword matching.
    pub fn texts(&self) -> [&str; 7] {
        [
            &self.id,
            &self.class,
            &self.placeholder,
            &self.title,
            &self.aria_label,
            &self.autocomplete,
            &self.text,
        ]
    }
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
    /// A script button (`input type=button`, `button type=button`): never
    /// sent; a script of the page acts on it, often submitting the form.
    /// Only in [`Form::unsent`].
    Button {
        value: String,
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
            ElementKind::Hidden { value }
            | ElementKind::Submit { value, .. }
            | ElementKind::Button { value } => Some(vec![value.clone()]),
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
            ElementKind::Submit { .. } | ElementKind::Button { .. } => Vec::new(),
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
            ElementKind::Button { .. } => "script button",
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

impl Form {
    /// The form's name (else its id) quoted after a space, as messages
    /// show it; empty when it has neither.
    pub fn called(&self) -> String {
        self.name
            .as_deref()
            .or(self.id.as_deref())
            .map(|n| format!(" {n:?}"))
            .unwrap_or_default()
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "form #{}{}: {} {} ({}, {})",
            self.index,
            self.called(),
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

/// Reads every form of a page (its tree, see [`Page::parse`]). `page_url` is
/// the page's URL (after redirects); `page_encoding` is the encoding the page
/// was decoded with (see `crate::charset`).
pub fn forms(
    page: &Page,
    page_url: &Url,
    page_encoding: &'static Encoding,
) -> Result<Vec<Form>, FormError> {
    let ids = Labels::new(page);
    let base = ids
        .nodes(page, ids.base)
        .iter()
        .find_map(|&b| page.attribute(b, "href"))
        .and_then(|h| page_url.join(h.trim()).ok())
        .unwrap_or_else(|| page_url.clone());
    let form_nodes = ids.nodes(page, ids.form);
    let mut out = Vec::new();
    for (index, &node) in form_nodes.iter().enumerate() {
        let attr = |name: &str| page.attribute(node, name);
        let action_attr = attr("action").unwrap_or("").trim();
        let action = if action_attr.is_empty() {
            page_url.clone()
        } else {
            base.join(action_attr).map_err(|e| FormError {
                index,
                action: action_attr.to_string(),
                message: e.to_string(),
            })?
        };
        let method = match attr("method") {
            Some(m) if m.trim().eq_ignore_ascii_case("post") => Method::Post,
            _ => Method::Get,
        };
        let enctype = match attr("enctype").map(|e| e.trim().to_ascii_lowercase()) {
            Some(e) if e == "multipart/form-data" => Enctype::Multipart,
            Some(e) if e == "text/plain" => Enctype::TextPlain,
            _ => Enctype::UrlEncoded,
        };
        let accept_charset = attr("accept-charset").map(str::to_string);
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
            id: attr("id").map(str::to_string),
            name: attr("name").map(str::to_string),
            action,
            method,
            enctype,
            accept_charset,
            encoding,
            elements: Vec::new(),
            unsent: Vec::new(),
        });
    }
    if out.is_empty() {
        return Ok(out);
    }
    let reader = Reader {
        page,
        ids: &ids,
        labels: LabelIndex::new(page, &ids),
    };
    let mut controls: Vec<NodeId> = [ids.input, ids.select, ids.textarea, ids.button]
        .into_iter()
        .flat_map(|l| ids.nodes(page, l))
        .copied()
        .collect();
    controls.sort_unstable();
    for control in controls {
        let script_button = reader.is_script_button(control);
        // A script button outside every form is the page's own (a "Sign
        // in" in the header), never the form's before it.
        let Some(owner) = reader.owner_form(control, form_nodes, !script_button) else {
            continue;
        };
        let form = &mut out[owner];
        if page.attribute(control, "disabled").is_some()
            || reader.in_disabled_fieldset(control)
            || script_button
        {
            reader.add_control(&mut form.unsent, control);
        } else {
            reader.add_control(&mut form.elements, control);
        }
    }
    Ok(out)
}

/// The ids of the labels forms are read by (`None` where the page has none).
struct Labels {
    form: Option<LabelId>,
    base: Option<LabelId>,
    input: Option<LabelId>,
    select: Option<LabelId>,
    textarea: Option<LabelId>,
    button: Option<LabelId>,
    option: Option<LabelId>,
    label: Option<LabelId>,
    fieldset: Option<LabelId>,
    /// Elements whose text a reader does not see as a label.
    hidden: Vec<LabelId>,
}

impl Labels {
    fn new(page: &Page) -> Labels {
        let id = |l: &str| page.label_id(l);
        Labels {
            form: id("form"),
            base: id("base"),
            input: id("input"),
            select: id("select"),
            textarea: id("textarea"),
            button: id("button"),
            option: id("option"),
            label: id("label"),
            fieldset: id("fieldset"),
            hidden: [
                "option", "select", "textarea", "script", "style", "title", "button",
            ]
            .into_iter()
            .filter_map(id)
            .collect(),
        }
    }

    /// The nodes with a label, in document order.
    fn nodes<'p>(&self, page: &'p Page, label: Option<LabelId>) -> &'p [NodeId] {
        label.map_or(&[], |l| page.with_label(l))
    }

    fn is(&self, page: &Page, node: NodeId, label: Option<LabelId>) -> bool {
        label.is_some_and(|l| page.label_of(node) == l)
    }

    fn is_control(&self, page: &Page, node: NodeId) -> bool {
        [self.input, self.select, self.textarea, self.button]
            .into_iter()
            .any(|l| self.is(page, node, l))
    }

    fn is_hidden(&self, page: &Page, node: NodeId) -> bool {
        self.hidden.contains(&page.label_of(node))
    }
}

/// Reads the controls of one page.
struct Reader<'p> {
    page: &'p Page,
    ids: &'p Labels,
    labels: LabelIndex,
}

impl Reader<'_> {
    /// The index of the form a control belongs to (see the module docs);
    /// `before`: else the last form that started before it.
    fn owner_form(&self, control: NodeId, forms: &[NodeId], before: bool) -> Option<usize> {
        let page = self.page;
        if let Some(id) = page.attribute(control, "form") {
            if let Some(i) = forms
                .iter()
                .position(|&f| page.attribute(f, "id") == Some(id))
            {
                return Some(i);
            }
        }
        if let Some(form) = page
            .ancestors(control)
            .find(|&a| self.ids.is(page, a, self.ids.form))
        {
            return forms.binary_search(&form).ok();
        }
        if !before {
            return None;
        }
        forms.partition_point(|&f| f < control).checked_sub(1)
    }

    /// True for a button only a script acts on (`type=button`).
    fn is_script_button(&self, node: NodeId) -> bool {
        let (page, ids) = (self.page, self.ids);
        (ids.is(page, node, ids.button) || ids.is(page, node, ids.input))
            && page
                .attribute(node, "type")
                .is_some_and(|t| t.trim().eq_ignore_ascii_case("button"))
    }

    /// True when the control sits in a disabled fieldset.
    fn in_disabled_fieldset(&self, node: NodeId) -> bool {
        self.ids.fieldset.is_some()
            && self.page.ancestors(node).any(|a| {
                self.ids.is(self.page, a, self.ids.fieldset)
                    && self.page.attribute(a, "disabled").is_some()
            })
    }

    fn add_control(&self, elements: &mut Vec<Element>, node: NodeId) {
        let (page, ids) = (self.page, self.ids);
        let name = page.attribute(node, "name").unwrap_or("").to_string();
        let attr = |a: &str| page.attribute(node, a).unwrap_or("").to_string();
        let kind = if ids.is(page, node, ids.select) {
            let options = ids
                .option
                .map_or(&[][..], |o| page.descendants_with_label(node, o))
                .iter()
                .filter(|&&o| page.attribute(o, "disabled").is_none())
                .map(|&o| {
                    let text = page.text_of(o);
                    Choice {
                        value: page
                            .attribute(o, "value")
                            .map_or_else(|| text.clone(), str::to_string),
                        label: page
                            .attribute(o, "label")
                            .map(collapse)
                            .filter(|l| !l.is_empty())
                            .unwrap_or(text),
                        selected: page.attribute(o, "selected").is_some(),
                    }
                })
                .collect();
            ElementKind::Select {
                multiple: page.attribute(node, "multiple").is_some(),
                options,
            }
        } else if ids.is(page, node, ids.textarea) {
            ElementKind::TextArea {
                value: raw_text_below(page, node),
            }
        } else if ids.is(page, node, ids.button) {
            match page
                .attribute(node, "type")
                .map(|t| t.trim().to_ascii_lowercase())
                .as_deref()
            {
                None | Some("submit") | Some("") => ElementKind::Submit {
                    value: attr("value"),
                    image: false,
                },
                Some("button") => ElementKind::Button {
                    value: attr("value"),
                },
                _ => return,
            }
        } else {
            let input_type = page
                .attribute(node, "type")
                .map_or_else(|| "text".to_string(), |t| t.trim().to_ascii_lowercase());
            match input_type.as_str() {
                "radio" | "checkbox" => {
                    if name.is_empty() {
                        return;
                    }
                    let choice = Choice {
                        value: page.attribute(node, "value").unwrap_or("on").to_string(),
                        label: self
                            .explicit_label(node)
                            .or_else(|| self.following_text(node))
                            .unwrap_or_default(),
                        selected: page.attribute(node, "checked").is_some(),
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
                "button" => ElementKind::Button {
                    value: attr("value"),
                },
                "reset" | "file" => return,
                _ => ElementKind::Text {
                    value: attr("value"),
                    input_type,
                },
            }
        };
        let button = matches!(
            kind,
            ElementKind::Submit { .. } | ElementKind::Button { .. }
        );
        if name.is_empty() && !button {
            return;
        }
        let label = match kind {
            ElementKind::Submit { .. } | ElementKind::Button { .. } => None,
            ElementKind::Radio { .. } | ElementKind::Checkbox { .. } => self.preceding_text(node),
            _ => self
                .explicit_label(node)
                .or_else(|| self.preceding_text(node)),
        };
        let hints = self.hints(node, button);
        elements.push(Element {
            name,
            kind,
            label,
            hints,
        });
    }

    /// The [`Hints`] of a control.
    fn hints(&self, node: NodeId, button: bool) -> Hints {
        let page = self.page;
        let attr = |a: &str| page.attribute(node, a).map(collapse).unwrap_or_default();
        let conceals = |n: NodeId| {
            page.attribute(n, "hidden").is_some()
                || page
                    .attribute(n, "aria-hidden")
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
                || page.attribute(n, "style").is_some_and(|s| {
                    let s: String = s
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect::<String>()
                        .to_ascii_lowercase();
                    s.contains("display:none") || s.contains("visibility:hidden")
                })
        };
        let concealed = conceals(node)
            || page
                .ancestors(node)
                .take_while(|&a| !self.ids.is(page, a, self.ids.form))
                .take(6)
                .any(conceals);
        Hints {
            id: attr("id"),
            class: attr("class"),
            placeholder: attr("placeholder"),
            title: attr("title"),
            aria_label: attr("aria-label"),
            autocomplete: attr("autocomplete"),
            onchange: attr("onchange"),
            text: if button && self.ids.is(page, node, self.ids.button) {
                page.text_of(node)
            } else {
                String::new()
            },
            concealed,
        }
    }

    /// `label[for=id]`, else an enclosing label.
    fn explicit_label(&self, node: NodeId) -> Option<String> {
        let (page, ids) = (self.page, self.ids);
        if let Some(id) = page.attribute(node, "id") {
            if let Some((_, text)) = self.labels.by_id.iter().find(|(f, _)| f == id) {
                if !text.is_empty() {
                    return Some(text.clone());
                }
            }
        }
        for a in page.ancestors(node) {
            if ids.is(page, a, ids.label) {
                return Some(visible_text(page, ids, a)).filter(|t| !t.is_empty());
            }
            if ids.is(page, a, ids.form) {
                break;
            }
        }
        None
    }

    /// Whether a node sits in an element whose text is no label.
    fn in_hidden_text(&self, node: NodeId) -> bool {
        self.page
            .ancestors(node)
            .any(|a| self.ids.is_hidden(self.page, a))
    }

    /// The nearest non-blank text before a node in document order — its last
    /// line, since the lines before it usually belong to the controls before.
    fn preceding_text(&self, node: NodeId) -> Option<String> {
        self.page.before(node).rev().take(200).find_map(|n| {
            let line = self
                .page
                .pcdata(n)?
                .lines()
                .map(collapse)
                .rfind(|l| !l.is_empty())?;
            (!self.in_hidden_text(n)).then_some(line)
        })
    }

    /// The first non-blank line of text after a node, unless another control
    /// comes first.
    fn following_text(&self, node: NodeId) -> Option<String> {
        for n in self.page.after(node).take(199) {
            if self.ids.is_control(self.page, n) {
                return None;
            }
            if let Some(t) = self.page.pcdata(n) {
                if let Some(line) = t.lines().map(collapse).find(|l| !l.is_empty()) {
                    if !self.in_hidden_text(n) {
                        return Some(line);
                    }
                }
            }
        }
        None
    }
}

/// `<label for=…>` texts by id.
struct LabelIndex {
    by_id: Vec<(String, String)>,
}

impl LabelIndex {
    fn new(page: &Page, ids: &Labels) -> LabelIndex {
        let by_id = ids
            .nodes(page, ids.label)
            .iter()
            .filter_map(|&l| {
                Some((
                    page.attribute(l, "for")?.to_string(),
                    visible_text(page, ids, l),
                ))
            })
            .collect();
        LabelIndex { by_id }
    }
}

/// The text of a node that a reader sees as label: without the options of
/// a select or the content of a text area inside it; a space between two
/// texts.
fn visible_text(page: &Page, ids: &Labels, node: NodeId) -> String {
    let mut out = String::new();
    if ids.is_hidden(page, node) || page.ancestors(node).any(|a| ids.is_hidden(page, a)) {
        return out;
    }
    let end = page.subtree_end(node);
    let mut n = node.next();
    while n < end {
        if ids.is_hidden(page, n) {
            n = page.subtree_end(n);
            continue;
        }
        if let Some(t) = page.pcdata(n) {
            out.push_str(t);
            out.push(' ');
        }
        n = n.next();
    }
    collapse(&out)
}

/// The text below a node as written (a text area's value).
fn raw_text_below(page: &Page, node: NodeId) -> String {
    let end = page.subtree_end(node);
    page.after(node)
        .take_while(|&n| n < end)
        .filter_map(|n| page.pcdata(n))
        .collect()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A page and its forms, read from HTML at `http://shop.example/`.
#[cfg(test)]
pub(crate) fn test_forms(html: &str) -> (Page, Vec<Form>) {
    let page = Page::parse(html);
    let url = Url::parse("http://shop.example/").expect("a URL");
    let all = forms(&page, &url, encoding_rs::UTF_8).expect("forms");
    (page, all)
}

pub mod kind;
pub mod role;
pub mod safe;
mod words;

#[cfg(test)]
mod tests;
