//! Which forms gather may submit on its own: only search forms.
//!
//! A form that no spec and no `DB.*` metadata names is submitted (probed,
//! surfaced) only when
//! - it is judged a search form ([`super::kind`]);
//! - it asks for no password, e-mail address, file or captcha;
//! - no submit button of it reads send, subscribe, unsubscribe, buy,
//!   order, delete, sign in or register (in the languages of
//!   [`super::words`]);
//! - it is sent by GET, or by POST and judged a search form with a
//!   probability of at least [`POST_CONFIDENCE`] (a POST form changes
//!   things more often than it searches; many library catalogues and
//!   ASP.NET or JSF search pages post, and are still searched).
//!
//! The operator names a form to use anyway with `--forms` (its position
//! on the page, its name or its id) or with a spec's `form` key.

use std::fmt;

use super::kind::{self, FormKind, Judged};
use super::role::{roles, Role};
use super::words::{self, normalized, says};
use super::{Element, ElementKind, Form};
use crate::fetch::Method;
use crate::page::Page;

/// The probability of a search a POST form needs to be submitted unnamed.
pub const POST_CONFIDENCE: f64 = 0.9;

/// Why a form is left alone.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// It is not judged a search form.
    NotSearch(Judged),
    /// It asks for something a search never does.
    Asks(&'static str, String),
    /// Its submit button acts.
    Acts(String),
    /// A POST form not surely a search form.
    Post(Judged),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotSearch(j) => write!(
                f,
                "judged a {} form ({:.0} %), not a search form",
                j.kind,
                100.0 * j.confidence
            ),
            Refusal::Asks(what, name) => write!(f, "it asks for {what} ({name:?})"),
            Refusal::Acts(text) => write!(f, "its submit button reads {text:?}"),
            Refusal::Post(j) => write!(
                f,
                "it is sent by POST and judged a search form with {:.0} % only (at least {:.0} % needed)",
                100.0 * j.search,
                100.0 * POST_CONFIDENCE
            ),
        }
    }
}

/// Why gather does not submit this form unless it is named, or `None`
/// when it may.
pub fn refusal(page: &Page, form: &Form, judged: &Judged) -> Option<Refusal> {
    let form_roles = roles(form, FormKind::Search);
    for (e, role) in form.elements.iter().zip(&form_roles) {
        let asks = match (&e.kind, role) {
            (ElementKind::Text { input_type, .. }, _) if input_type == "password" => {
                Some("a password")
            }
            (ElementKind::Text { input_type, .. }, _) if input_type == "email" => {
                Some("an e-mail address")
            }
            (ElementKind::Text { .. }, _) if says(&normalized(&e.name), words::EMAIL) => {
                Some("an e-mail address")
            }
            (_, Role::Email) => Some("an e-mail address"),
            (_, Role::Captcha) => Some("a captcha"),
            _ => None,
        };
        if let Some(what) = asks {
            return Some(Refusal::Asks(what, e.name.clone()));
        }
        if let Some(acts) = acting_button(e) {
            return Some(acts);
        }
    }
    // A button a script acts on speaks for the form as a submit button does.
    if let Some(acts) = form.unsent.iter().find_map(acting_button) {
        return Some(acts);
    }
    if kind::form_node(page, form).is_some_and(|n| kind::file_inputs(page, n) > 0) {
        return Some(Refusal::Asks("a file", String::new()));
    }
    if judged.kind != FormKind::Search {
        return Some(Refusal::NotSearch(*judged));
    }
    if form.method == Method::Post && judged.search < POST_CONFIDENCE {
        return Some(Refusal::Post(*judged));
    }
    None
}

/// A submit or script button whose text says it acts (send, subscribe,
/// order, delete, …).
fn acting_button(e: &Element) -> Option<Refusal> {
    let (ElementKind::Submit { value, .. } | ElementKind::Button { value }) = &e.kind else {
        return None;
    };
    [
        value.as_str(),
        e.hints.text.as_str(),
        e.hints.title.as_str(),
    ]
    .into_iter()
    .find(|text| says(&normalized(text), words::ACTING_SUBMIT))
    .map(|text| Refusal::Acts(text.to_string()))
}

/// Whether a form is the one the operator named: its position on the
/// page, its name or its id.
pub fn is_named(form: &Form, names: &[String]) -> bool {
    names.iter().any(|n| {
        n.parse::<usize>().ok() == Some(form.index)
            || form.name.as_deref() == Some(n.as_str())
            || form.id.as_deref() == Some(n.as_str())
    })
}

/// The forms of a page gather may submit: those the operator named (all
/// of them and only them, when any is named), else those that pass
/// [`refusal`]. `Err` says, for every form left alone, why, and how to
/// name it.
pub fn submittable<'f>(
    page: &Page,
    forms: &'f [Form],
    named: &[String],
) -> Result<Vec<&'f Form>, String> {
    let chosen: Vec<&Form> = forms.iter().filter(|f| is_named(f, named)).collect();
    if !chosen.is_empty() {
        return Ok(chosen);
    }
    let judged = kind::kinds(page, forms);
    let mut allowed = Vec::new();
    let mut left = Vec::new();
    for (form, j) in forms.iter().zip(&judged) {
        match refusal(page, form, j) {
            None => allowed.push(form),
            Some(why) => left.push(format!("{}: {why}", describe(form))),
        }
    }
    if !allowed.is_empty() {
        return Ok(allowed);
    }
    if forms.is_empty() {
        return Err("the page has no form".into());
    }
    Err(format!(
        "no form judged a search form that is safe to submit, so none is submitted; {}. \
         If one of them is the search to gather, name it: --forms N (its position, from 0, \
         or its name or id), or `form: N` in a spec (see `gather forms URL`)",
        left.join("; ")
    ))
}

/// A form as messages name it: its position, its name or id, its method
/// and action.
pub fn describe(form: &Form) -> String {
    format!(
        "form #{}{} ({} {})",
        form.index,
        form.called(),
        form.method,
        form.action
    )
}

#[cfg(test)]
mod tests {
    use super::super::test_forms as page_forms;
    use super::*;

    #[test]
    fn only_the_search_form_is_submittable_and_the_others_say_why() {
        let (page, all) = page_forms(
            r#"<html><body>
            <form action="/contact" method="post"><input name="name"><textarea name="message"></textarea><input type="submit" value="Send"></form>
            <form action="/unsubscribe" method="post"><input name="address"><input type="submit" value="Unsubscribe"></form>
            <form action="/search"><input type="search" name="q"><input type="submit" value="Search"></form>
            </body></html>"#,
        );
        let ok = submittable(&page, &all, &[]).unwrap();
        assert_eq!(ok.iter().map(|f| f.index).collect::<Vec<_>>(), [2]);
        let judged = kind::kinds(&page, &all);
        assert!(matches!(
            refusal(&page, &all[1], &judged[1]),
            Some(Refusal::Acts(t)) if t == "Unsubscribe"
        ));
        // Named, the contact form is the one.
        let named = submittable(&page, &all, &["0".into()]).unwrap();
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].index, 0);
    }

    #[test]
    fn a_login_form_alone_is_left_alone_with_a_message_naming_it() {
        let (page, all) = page_forms(
            r#"<form id="signin" action="/session" method="post"><input name="user"><input type="password" name="pw"><button>Go</button></form>"#,
        );
        let e = submittable(&page, &all, &[]).unwrap_err();
        assert!(e.contains("form #0 \"signin\""), "{e}");
        assert!(e.contains("asks for a password"), "{e}");
        assert!(e.contains("--forms"), "{e}");
        let (page, all) = page_forms(r#"<p>no form</p>"#);
        assert_eq!(
            submittable(&page, &all, &[]).unwrap_err(),
            "the page has no form"
        );
    }

    #[test]
    fn files_captchas_and_uncertain_post_forms_are_refused() {
        let (page, all) = page_forms(
            r#"<form action="/search"><input name="q"><input type="file" name="f"></form>
            <form action="/search"><input name="q"><input name="captcha"></form>
            <form action="/x" method="post"><input name="a"><select name="b"><option>1</option><option>2</option></select></form>"#,
        );
        let judged = kind::kinds(&page, &all);
        assert!(matches!(
            refusal(&page, &all[0], &judged[0]),
            Some(Refusal::Asks("a file", _))
        ));
        assert!(matches!(
            refusal(&page, &all[1], &judged[1]),
            Some(Refusal::Asks("a captcha", _))
        ));
        assert!(refusal(&page, &all[2], &judged[2]).is_some());
    }

    #[test]
    fn a_script_button_that_acts_speaks_for_its_form() {
        let (page, all) = page_forms(
            r#"<form action="/search"><input name="q">
            <input type="button" name="go" value="Subscribe" onclick="post(this.form)"></form>"#,
        );
        let judged = kind::kinds(&page, &all);
        assert!(
            matches!(refusal(&page, &all[0], &judged[0]), Some(Refusal::Acts(t)) if t == "Subscribe"),
            "a button only a script sends still says what the form does"
        );
    }
}
