//! Post-back pagers: a result list whose pager is no link to a URL but a
//! script that submits the page's own form, or a submit button of it.
//!
//! - ASP.NET (GridView, DataPager):
//!   `<a href="javascript:__doPostBack('ctl00$Grid','Page$2')">2</a>`
//!   (or `WebForm_DoPostBackWithOptions(new WebForm_PostBackOptions("…",
//!   "…", …))`): the script sets the form's hidden `__EVENTTARGET` and
//!   `__EVENTARGUMENT` inputs and submits the form.
//! - A submit button of the form: `<input type="submit"
//!   name="ctl00$Pager$Next" value="Next">`: the form is sent with that
//!   button's name and value.
//! - JSF (Mojarra): `onclick="mojarra.jsfcljs(document.getElementById('f'),
//!   {'f:next':'f:next'},'')"`: the script adds the named fields to the
//!   form `f` and submits it.
//!
//! A browser submits the form as the page shows it: its hidden inputs and
//! state tokens (`__VIEWSTATE`, `__EVENTVALIDATION`,
//! `javax.faces.ViewState`) and the values chosen are those of the page
//! the link is on, and the answer is the next page with a new token. So
//! does [`request`]: the request of a post-back link is built from the
//! page it is on, never from an earlier one. The links are read as a
//! pager's by their text (a button by its value): page numbers, "next",
//! "previous" ([`crate::links::pager_label`]); a post-back of any other
//! text (a column's sort link) is no pager's.

use url::Url;

use super::Label;
use crate::fetch::{Request, Response};
use crate::form::{forms, ElementKind, Form};
use crate::page::Page;

/// What a post-back script does: submits a form (`form`, by id, when the
/// script names it) with `fields` set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The id of the form the script submits, when it names one.
    pub form: Option<String>,
    /// The fields the script sets (name, value), in order.
    pub fields: Vec<(String, String)>,
}

impl Script {
    /// How a script submits its form: `__doPostBack`'s event fields, or
    /// JSF's.
    fn shape(&self) -> Shape {
        if self.fields.iter().any(|(n, _)| n == "__EVENTTARGET") {
            Shape::Event
        } else {
            Shape::Jsf
        }
    }
}

/// How a post-back link of a page submits its form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// `__doPostBack(target, argument)`.
    Event,
    /// A submit button of the form.
    Button,
    /// JSF's `jsfcljs(form, {name: value}, target)`.
    Jsf,
}

/// One post-back link of a page's pager.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostbackLink {
    /// What it reads: the link's text (its title where it has none), the
    /// button's value.
    pub text: String,
    /// The script as written (`javascript:__doPostBack(…)`), or the
    /// button's `name=value`.
    pub script: String,
    pub shape: Shape,
    /// What submitting it sends besides the form.
    pub action: Script,
}

impl PostbackLink {
    /// What its text says as a pager's link.
    pub fn label(&self) -> Label {
        crate::links::pager_label(&self.text)
    }

    /// What tells two post-backs of a walk apart: the fields they set
    /// (`__EVENTTARGET=ctl00$Grid&__EVENTARGUMENT=Page$2`).
    pub fn key(&self) -> String {
        self.action
            .fields
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// The string literals of a script, in order, unquoted: `'a'`, `"b"`, and
/// `\'c\'` (a script quoted inside another one's string). A backslash
/// escapes the character after it inside a literal.
fn literals(script: &str) -> Vec<String> {
    let chars: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c != '\'' && c != '"' {
            i += 1;
            continue;
        }
        // `\'` opens a literal that `\'` closes.
        let escaped = i > 0 && chars[i - 1] == '\\';
        let mut text = String::new();
        let mut j = i + 1;
        let mut closed = false;
        while j < chars.len() {
            let d = chars[j];
            if escaped && d == '\\' && chars.get(j + 1) == Some(&c) {
                j += 2;
                closed = true;
                break;
            }
            if !escaped && d == c {
                j += 1;
                closed = true;
                break;
            }
            if d == '\\' && j + 1 < chars.len() && !escaped {
                text.push(chars[j + 1]);
                j += 2;
                continue;
            }
            text.push(d);
            j += 1;
        }
        if !closed {
            break;
        }
        out.push(text);
        i = j;
    }
    out
}

/// The text of `script` from the `(` after `name` to the `)` that closes
/// it (parentheses inside literals are not counted).
fn call_arguments<'s>(script: &'s str, name: &str) -> Option<&'s str> {
    let start = script.find(name)? + name.len();
    let rest = script[start..].trim_start().strip_prefix('(')?;
    let mut depth = 1u32;
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (at, c) in rest.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q && previous != '\\' => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => {
                depth -= 1;
                if depth == 0 {
                    return Some(&rest[..at]);
                }
            }
            _ => {}
        }
        previous = c;
    }
    // An unclosed call: what there is.
    Some(rest)
}

/// Reads a post-back script: `__doPostBack('t','a')`,
/// `WebForm_DoPostBackWithOptions(new WebForm_PostBackOptions("t", "a",
/// …))` or `jsfcljs(document.getElementById('f'),{'n':'v'},'')`; `None`
/// for any other script.
pub fn parse(script: &str) -> Option<Script> {
    for name in ["__doPostBack", "WebForm_PostBackOptions"] {
        if let Some(args) = call_arguments(script, name) {
            let mut literals = literals(args).into_iter();
            let target = literals.next()?;
            let argument = literals.next().unwrap_or_default();
            return Some(Script {
                form: None,
                fields: vec![
                    ("__EVENTTARGET".into(), target),
                    ("__EVENTARGUMENT".into(), argument),
                ],
            });
        }
    }
    let args = call_arguments(script, "jsfcljs")?;
    let (form, rest) = match args.find('{') {
        Some(at) => (&args[..at], &args[at..]),
        None => return None,
    };
    let object = &rest[..rest.find('}').map_or(rest.len(), |e| e + 1)];
    let form = literals(form).into_iter().next();
    let values = literals(object);
    let fields: Vec<(String, String)> = values
        .chunks(2)
        .filter(|pair| pair.len() == 2 && !pair[0].is_empty())
        .map(|pair| (pair[0].clone(), pair[1].clone()))
        .collect();
    (!fields.is_empty()).then_some(Script { form, fields })
}

/// The post-back links of a page that read as a pager's (page numbers,
/// next, previous), in document order: anchors whose `href` or `onclick`
/// is a post-back script, and the forms' submit buttons.
pub fn links(page: &Page) -> Vec<PostbackLink> {
    let mut out = Vec::new();
    let anchor = page.label_id("a");
    let input = page.label_id("input");
    let button = page.label_id("button");
    let mut nodes: Vec<_> = [anchor, input, button]
        .into_iter()
        .flatten()
        .flat_map(|l| page.with_label(l).iter().copied())
        .collect();
    nodes.sort_unstable();
    for node in nodes {
        let tag = page.label_name(node).to_ascii_lowercase();
        let link = if tag == "a" {
            anchor_link(page, node)
        } else {
            button_link(page, node, tag == "button")
        };
        if let Some(link) = link.filter(|l| l.label() != Label::Other) {
            out.push(link);
        }
    }
    out
}

fn anchor_link(page: &Page, node: crate::page::NodeId) -> Option<PostbackLink> {
    let (script, action) = ["href", "onclick"].into_iter().find_map(|attribute| {
        let script = page.attribute(node, attribute)?.trim();
        parse(script).map(|action| (script.to_string(), action))
    })?;
    Some(PostbackLink {
        text: or_title(page, node, page.text_of(node)),
        script,
        shape: action.shape(),
        action,
    })
}

fn button_link(page: &Page, node: crate::page::NodeId, element: bool) -> Option<PostbackLink> {
    let kind = page
        .attribute(node, "type")
        .unwrap_or(if element { "submit" } else { "text" })
        .trim()
        .to_ascii_lowercase();
    // A script button that posts back: its `onclick`.
    if let Some(onclick) = page.attribute(node, "onclick") {
        if let Some(action) = parse(onclick) {
            return Some(PostbackLink {
                text: button_text(page, node, element),
                script: onclick.to_string(),
                shape: action.shape(),
                action,
            });
        }
    }
    let name = page.attribute(node, "name")?.trim();
    if kind != "submit" || name.is_empty() || page.attribute(node, "disabled").is_some() {
        return None;
    }
    let value = page.attribute(node, "value").unwrap_or("").to_string();
    Some(PostbackLink {
        text: button_text(page, node, element),
        script: format!("{name}={value}"),
        shape: Shape::Button,
        action: Script {
            form: form_of(page, node),
            fields: vec![(name.to_string(), value)],
        },
    })
}

/// What a button reads: a `<button>`'s text, an input's value, else its
/// title.
fn button_text(page: &Page, node: crate::page::NodeId, element: bool) -> String {
    let text = if element {
        page.text_of(node)
    } else {
        page.attribute(node, "value").unwrap_or("").to_string()
    };
    or_title(page, node, text)
}

/// `text` trimmed, or where it is empty the element's `title`.
fn or_title(page: &Page, node: crate::page::NodeId, text: String) -> String {
    let text = if text.trim().is_empty() {
        page.attribute(node, "title").unwrap_or("").to_string()
    } else {
        text
    };
    text.trim().to_string()
}

/// The id of the form a control is in, if that form has one.
fn form_of(page: &Page, node: crate::page::NodeId) -> Option<String> {
    let form = page
        .ancestors(node)
        .find(|&a| page.label_name(a).eq_ignore_ascii_case("form"))?;
    page.attribute(form, "id").map(|id| id.trim().to_string())
}

/// The form a post-back submits among a page's forms: the one the script
/// names; for a button, the form that has it; for `__doPostBack`, the
/// form with an `__EVENTTARGET` input; else the page's only form that
/// posts, else its first form.
fn form_for<'f>(all: &'f [Form], link: &PostbackLink) -> Option<&'f Form> {
    if let Some(id) = &link.action.form {
        if let Some(form) = all.iter().find(|f| f.id.as_deref() == Some(id.as_str())) {
            return Some(form);
        }
    }
    let has = |f: &&Form, name: &str| f.elements.iter().any(|e| e.name == name);
    let named = match link.shape {
        Shape::Button => link.action.fields.first().map(|(n, _)| n.as_str()),
        Shape::Event => Some("__EVENTTARGET"),
        Shape::Jsf => None,
    };
    if let Some(form) = named.and_then(|name| all.iter().find(|f| has(f, name))) {
        return Some(form);
    }
    let posting: Vec<&Form> = all
        .iter()
        .filter(|f| f.method == crate::fetch::Method::Post)
        .collect();
    match posting.as_slice() {
        [one] => Some(one),
        _ => all.first(),
    }
}

/// The request a browser sends for `link` on the page `response`: the
/// form as that page shows it (its hidden inputs, state tokens and the
/// values chosen), no other submit button pressed, the link's fields set.
pub fn request(response: &Response, link: &PostbackLink) -> Result<Request, String> {
    let decoded = response.text();
    let page = Page::parse(&decoded.text);
    let all = forms(&page, &response.url, decoded.encoding).map_err(|e| e.to_string())?;
    let form = form_for(&all, link).ok_or_else(|| {
        format!(
            "{}: the page holds no form for its post-back {}",
            response.url, link.script
        )
    })?;
    // A button's own field is sent by the button; the form's other
    // buttons are not pressed.
    let fields: Vec<(String, String)> = link
        .action
        .fields
        .iter()
        .filter(|(name, _)| {
            link.shape == Shape::Button
                || !form
                    .element(name)
                    .is_some_and(|e| matches!(e.kind, ElementKind::Submit { .. }))
        })
        .cloned()
        .collect();
    Ok(crate::plan::live::submit(
        form,
        &fields,
        Some(&crate::plan::live::Postback::Submit),
    ))
}

/// True when a page's body may hold a post-back pager (the scripts' names,
/// or a submit button): a cheap look before the page is read for one.
pub fn marked(body: &[u8]) -> bool {
    ["PostBack", "jsfcljs", "submit"]
        .iter()
        .any(|m| body.windows(m.len()).any(|w| w == m.as_bytes()))
}

/// The page a link submits the form of: for messages.
pub fn describe(url: &Url, link: &PostbackLink) -> String {
    format!("{url} post-back {:?} ({})", link.text, link.script)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(script: &str) -> Vec<(String, String)> {
        parse(script).map(|s| s.fields).unwrap_or_default()
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn a_do_post_back_sets_the_event_target_and_argument() {
        assert_eq!(
            fields("javascript:__doPostBack('ctl00$Grid','Page$2')"),
            vec![
                pair("__EVENTTARGET", "ctl00$Grid"),
                pair("__EVENTARGUMENT", "Page$2")
            ]
        );
        // Double quotes, spaces, a script quoted in another one's string.
        assert_eq!(
            fields(r#"javascript:__doPostBack( "gv" , "Page$Next" ); return false;"#),
            vec![
                pair("__EVENTTARGET", "gv"),
                pair("__EVENTARGUMENT", "Page$Next")
            ]
        );
        assert_eq!(
            fields(r"javascript:setTimeout('__doPostBack(\'ddl\',\'\')', 0)"),
            vec![pair("__EVENTTARGET", "ddl"), pair("__EVENTARGUMENT", "")]
        );
        // An argument holding a comma and a parenthesis.
        assert_eq!(
            fields("__doPostBack('g','Sort$Name (a, b)')"),
            vec![
                pair("__EVENTTARGET", "g"),
                pair("__EVENTARGUMENT", "Sort$Name (a, b)")
            ]
        );
        assert_eq!(
            fields(
                r#"javascript:WebForm_DoPostBackWithOptions(new WebForm_PostBackOptions("ctl00$Pager$ctl02", "", true, "", "", false, true))"#
            ),
            vec![
                pair("__EVENTTARGET", "ctl00$Pager$ctl02"),
                pair("__EVENTARGUMENT", "")
            ]
        );
    }

    #[test]
    fn a_jsf_script_names_its_form_and_fields() {
        let script = parse(
            "mojarra.jsfcljs(document.getElementById('f'),{'f:next':'f:next'},'');return false",
        )
        .unwrap();
        assert_eq!(script.form.as_deref(), Some("f"));
        assert_eq!(script.fields, vec![pair("f:next", "f:next")]);
        let script = parse(
            "return myfaces.x || jsfcljs(document.forms['list'],{'list:p':'list:p','page':'3'},'_self')",
        )
        .unwrap();
        assert_eq!(script.form.as_deref(), Some("list"));
        assert_eq!(
            script.fields,
            vec![pair("list:p", "list:p"), pair("page", "3")]
        );
    }

    #[test]
    fn other_scripts_and_broken_ones_are_no_post_backs() {
        for script in [
            "",
            "javascript:void(0)",
            "window.print()",
            "__doPostBack(",
            "jsfcljs(document.getElementById('f'))",
            "jsfcljs(document.getElementById('f'),{},'')",
            "__doPostBack('unclosed",
        ] {
            assert_eq!(parse(script), None, "{script:?}");
        }
    }

    const PAGE: &str = r##"<html><body>
        <form method="post" action="./List.aspx" id="form1">
        <input type="hidden" name="__EVENTTARGET" value="">
        <input type="hidden" name="__EVENTARGUMENT" value="">
        <input type="hidden" name="__VIEWSTATE" value="t2">
        <select name="kind"><option value="a">A</option><option value="b" selected>B</option></select>
        <input type="submit" name="btnSearch" value="Search">
        <table><tr><td><a href="javascript:__doPostBack('gv','Sort$Name')">Name</a></td></tr></table>
        <div class="pager"><a href="javascript:__doPostBack('gv','Page$1')">1</a> <span>2</span>
        <a href="javascript:__doPostBack('gv','Page$3')">3</a>
        <input type="submit" name="ctl00$Pager$Next" value="Next"></div>
        </form>
        <form id="f" method="post" action="/faces/list.xhtml">
        <input type="hidden" name="javax.faces.ViewState" value="v9">
        <a href="#" onclick="mojarra.jsfcljs(document.getElementById('f'),{'f:next':'f:next'},'');return false">Next »</a>
        </form></body></html>"##;

    fn page_response(url: &str, body: &str) -> Response {
        Response {
            url: Url::parse(url).unwrap(),
            status: 200,
            content_type: Some("text/html; charset=utf-8".into()),
            body: body.as_bytes().to_vec(),
            attempts: 1,
            elapsed: std::time::Duration::ZERO,
        }
    }

    fn response() -> Response {
        page_response("http://x.test/app/List.aspx", PAGE)
    }

    #[test]
    fn the_pager_post_backs_of_a_page_are_read_by_their_text() {
        let page = Page::parse(PAGE);
        let found = links(&page);
        let read: Vec<(&str, Shape, Label)> = found
            .iter()
            .map(|l| (l.text.as_str(), l.shape, l.label()))
            .collect();
        assert_eq!(
            read,
            vec![
                ("1", Shape::Event, Label::Page(1)),
                ("3", Shape::Event, Label::Page(3)),
                ("Next", Shape::Button, Label::Next),
                ("Next »", Shape::Jsf, Label::Next),
            ]
        );
        assert_eq!(found[1].key(), "__EVENTTARGET=gv&__EVENTARGUMENT=Page$3");
    }

    #[test]
    fn a_post_back_submits_the_form_as_its_page_shows_it() {
        let page = Page::parse(PAGE);
        let found = links(&page);
        let body = |link: &PostbackLink| {
            let request = request(&response(), link).unwrap();
            assert_eq!(request.method, crate::fetch::Method::Post);
            (
                request.url.to_string(),
                String::from_utf8(request.body.unwrap()).unwrap(),
            )
        };
        assert_eq!(
            body(&found[1]),
            (
                "http://x.test/app/List.aspx".to_string(),
                "__EVENTTARGET=gv&__EVENTARGUMENT=Page%243&__VIEWSTATE=t2&kind=b".to_string()
            )
        );
        assert_eq!(
            body(&found[2]).1,
            "__EVENTTARGET=&__EVENTARGUMENT=&__VIEWSTATE=t2&kind=b&ctl00%24Pager%24Next=Next"
        );
        assert_eq!(
            body(&found[3]),
            (
                "http://x.test/faces/list.xhtml".to_string(),
                "javax.faces.ViewState=v9&f%3Anext=f%3Anext".to_string()
            )
        );
    }

    #[test]
    fn a_page_without_a_form_is_told() {
        let link = PostbackLink {
            text: "2".into(),
            script: "javascript:__doPostBack('g','Page$2')".into(),
            shape: Shape::Event,
            action: parse("__doPostBack('g','Page$2')").unwrap(),
        };
        let response = page_response("http://x.test/a", "<p>no form</p>");
        let error = request(&response, &link).unwrap_err();
        assert!(error.contains("no form"), "{error}");
    }
}
