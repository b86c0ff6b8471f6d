//! The role of each input of a form, given the form's kind
//! ([`super::kind`]): what surfacing may vary, what it must carry as it is,
//! and what it must leave alone.
//!
//! Rules, in this order, on the input's type, name, label, placeholder,
//! title, id and class, and its choices (the words of [`super::words`]):
//! - a submit button is a submit button;
//! - a hidden input named like a server's state or a forgery token
//!   (`__VIEWSTATE`, `__EVENTVALIDATION`, `csrf_token`,
//!   `authenticity_token`, …) is a state token (carried as the page gave
//!   it); any other hidden input is "other" (carried too);
//! - a password field is a password, an `email` field an e-mail address;
//! - a field that names a captcha is a captcha; a text field hidden from
//!   the reader (`display:none` on it or around it) or that asks to be left
//!   blank is a honeypot;
//! - a choice whose name, label or choices speak of an order ("sort by",
//!   "relevance", "price: low to high") is a sorting option; one that
//!   speaks of a page size ("per page", `limit`) or offers only numbers
//!   (10, 20, 50) is a page size; a date input, a text field named for a
//!   date, or a choice or field named for a bound (`from`, `price_min`) is
//!   a date or range; a choice labelled to take the reader elsewhere
//!   ("Jump to" a forum) is "other": a menu, never queried;
//! - in a search form, a text field is a search query (most search forms
//!   have one; where there are several, each narrows the answer by its
//!   words), a choice is a category / refinement;
//! - a submit button that cancels, resets, goes back or declines is
//!   "other" — but "Reset" submits a password recovery form (as "Reset
//!   password" does anywhere); a script button (`type=button`, never sent)
//!   takes a submit button's role: a script acts on it as on one;
//! - in another form, a field named for a user is a username, one named
//!   for an e-mail address an e-mail; the rest is "other".

use std::fmt;

use super::kind::FormKind;
use super::words::{self, normalized, says};
use super::{Choice, Element, ElementKind, Form};

/// What an input is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    SearchQuery,
    Category,
    /// A category that names a place: a country, state, region or town.
    Location,
    Sort,
    PageSize,
    /// What the answer shows, not which rows: the columns shown, the
    /// grouping, the layout.
    Display,
    /// Where the answer starts (an offset, a first row): the pager's.
    Offset,
    DateOrRange,
    Submit,
    StateToken,
    Username,
    Password,
    Email,
    Captcha,
    Honeypot,
    Other,
}

impl Role {
    /// The role's name, as `gather forms` shows it.
    pub fn name(self) -> &'static str {
        match self {
            Role::SearchQuery => "search query",
            Role::Category => "category/refinement",
            Role::Location => "location",
            Role::Sort => "sorting",
            Role::PageSize => "page size",
            Role::Display => "display option",
            Role::Offset => "offset",
            Role::DateOrRange => "date or range",
            Role::Submit => "submit button",
            Role::StateToken => "state token",
            Role::Username => "username",
            Role::Password => "password",
            Role::Email => "e-mail",
            Role::Captcha => "captcha",
            Role::Honeypot => "honeypot",
            Role::Other => "other",
        }
    }

    /// Whether surfacing may vary this input as a query element (a search
    /// query, a category, a location, a date or range): never a sorting
    /// option, a page size, a token, a honeypot or an account's field.
    pub fn queryable(self) -> bool {
        matches!(
            self,
            Role::SearchQuery | Role::Category | Role::Location | Role::DateOrRange
        )
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The role of each element of a form, in the order of its elements.
pub fn roles(form: &Form, kind: FormKind) -> Vec<Role> {
    form.elements.iter().map(|e| role_alone(e, kind)).collect()
}

/// The role of each control a browser does not send as the page stands
/// ([`Form::unsent`]), in their order: the role it takes once a script
/// enables it, or the role of the button a script acts on.
pub fn unsent_roles(form: &Form, kind: FormKind) -> Vec<Role> {
    form.unsent.iter().map(|e| role_alone(e, kind)).collect()
}

/// The texts an element is known by: its name, label, placeholder,
/// title, aria label, id and class, normalized.
fn said(e: &Element) -> String {
    let mut text = e.name.clone();
    for t in e.label.iter().map(String::as_str).chain(e.hints.texts()) {
        text.push(' ');
        text.push_str(t);
    }
    normalized(&text)
}

/// An element's role.
fn role_alone(e: &Element, kind: FormKind) -> Role {
    let text = said(e);
    let name = normalized(&e.name);
    match &e.kind {
        ElementKind::Submit { value, .. } | ElementKind::Button { value } => {
            let text = normalized(&format!("{text} {value}"));
            // "Reset password" submits a recovery form, as "Reset" does in
            // one; elsewhere "Reset" alone clears.
            let resets_password =
                kind == FormKind::PasswordRecovery || says(&text, words::PASSWORD);
            if says(&text, words::CANCEL) || (says(&text, words::RESET) && !resets_password) {
                Role::Other
            } else {
                Role::Submit
            }
        }
        ElementKind::Hidden { .. } => {
            if says(&name, words::STATE_TOKEN) {
                Role::StateToken
            } else {
                Role::Other
            }
        }
        ElementKind::Text { input_type, .. } => match input_type.as_str() {
            "password" => Role::Password,
            "email" => Role::Email,
            _ if says(&text, words::CAPTCHA) => Role::Captcha,
            _ if e.hints.concealed || says(&text, words::HONEYPOT) => Role::Honeypot,
            "date" | "datetime-local" | "month" | "week" | "time" | "range" => Role::DateOrRange,
            _ if kind == FormKind::Search && says(&name, words::PAGE_SIZE_NAME) => Role::PageSize,
            _ if kind == FormKind::Search && says(&name, words::OFFSET) => Role::Offset,
            _ if kind == FormKind::Search => {
                if says(&name, words::DATE) || says(&name, words::BOUND) {
                    Role::DateOrRange
                } else {
                    Role::SearchQuery
                }
            }
            "tel" | "url" | "number" => Role::Other,
            _ if says(&name, words::EMAIL) => Role::Email,
            _ if says(&name, words::USERNAME) => Role::Username,
            _ => Role::Other,
        },
        ElementKind::TextArea { .. } if kind == FormKind::Search => Role::SearchQuery,
        ElementKind::TextArea { .. } => Role::Other,
        ElementKind::Select { options: c, .. }
        | ElementKind::Radio { choices: c }
        | ElementKind::Checkbox { choices: c } => {
            let choices = normalized(
                &c.iter()
                    .map(|c| format!("{} {}", c.value, c.label))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
            let numbers = c.len() >= 2
                && c.iter()
                    .all(|c| !c.value.is_empty() && c.value.chars().all(|d| d.is_ascii_digit()))
                && c.iter().all(|c| c.value.len() <= 3);
            // A page size is a count: most choices show a number ("20",
            // "50 per page"); "Show threads / Show posts" is no page size.
            let counts = 2 * c
                .iter()
                .filter(|c| c.label.chars().any(|d| d.is_ascii_digit()))
                .count()
                >= c.len();
            if says(&text, words::SORT) || says(&choices, words::SORT_CHOICES) {
                Role::Sort
            } else if says(&text, words::JUMP) {
                // A menu: "Jump to" a forum.
                Role::Other
            } else if says(&name, words::DISPLAY_NAME) || name.trim() == "group" {
                Role::Display
            } else if says(&text, words::PAGE_SIZE)
                && counts
                && (numbers || !matches!(e.kind, ElementKind::Checkbox { .. }))
            {
                Role::PageSize
            } else if says(&name, words::BOUND) {
                Role::DateOrRange
            } else if kind == FormKind::Search && names_a_place(&name, c) {
                Role::Location
            } else if kind == FormKind::Search {
                Role::Category
            } else {
                Role::Other
            }
        }
    }
}

/// Whether a choice names a place: its name, or its first choice ("Any
/// city", "Toutes régions", "State: all states"), says country, region,
/// town… — word by word, so that "estate" or "capacity" do not. A name's
/// "state" may be a record's state (`review_state`), so only the first
/// choice's counts.
fn names_a_place(name: &str, choices: &[Choice]) -> bool {
    let first = choices
        .first()
        .map(|c| normalized(&c.label))
        .unwrap_or_default();
    let by_name = words::tokens(name)
        .any(|t| words::PLACE.contains(&t) && !words::PLACE_OR_STATUS.contains(&t));
    let by_first = words::tokens(&first).any(|t| words::PLACE.contains(&t));
    by_name || by_first
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(html: &str) -> Form {
        super::super::test_forms(html).1.remove(0)
    }

    #[test]
    fn a_search_forms_inputs_have_their_roles() {
        let f = form(
            r#"<form action="/Results.aspx" method="post">
            <input type="hidden" name="__VIEWSTATE" value="dDwtMTA4">
            <input type="hidden" name="__EVENTVALIDATION" value="x">
            <input type="hidden" name="lang" value="en">
            <input name="where" placeholder="City">
            <input name="keywords" placeholder="Search jobs">
            <select name="category"><option value="">All</option><option>IT</option><option>Sales</option></select>
            <select name="sortBy"><option>Relevance</option><option>Date</option></select>
            <select name="ps"><option>10</option><option>25</option><option>100</option></select>
            <label>Per page <select name="n"><option>10</option><option>50</option></select></label>
            <input name="date_from">
            <div style="display: none"><input name="website"></div>
            <input type="submit" value="Find">
            </form>"#,
        );
        let got: Vec<(&str, Role)> = form_roles(&f, FormKind::Search);
        assert_eq!(
            got,
            [
                ("__VIEWSTATE", Role::StateToken),
                ("__EVENTVALIDATION", Role::StateToken),
                ("lang", Role::Other),
                ("where", Role::SearchQuery),
                ("keywords", Role::SearchQuery),
                ("category", Role::Category),
                ("sortBy", Role::Sort),
                ("ps", Role::Category),
                ("n", Role::PageSize),
                ("date_from", Role::DateOrRange),
                ("website", Role::Honeypot),
                ("", Role::Submit),
            ]
        );
    }

    fn form_roles(f: &Form, kind: FormKind) -> Vec<(&str, Role)> {
        f.elements
            .iter()
            .map(|e| e.name.as_str())
            .zip(roles(f, kind))
            .collect()
    }

    #[test]
    fn an_account_forms_inputs_have_theirs() {
        let f = form(
            r#"<form action="/login" method="post">
            <input name="csrf_token" type="hidden" value="abc">
            <input name="userName"><input type="password" name="pw">
            <input name="mail_address"><input name="captcha_code">
            <input type="email" name="x"><textarea name="msg"></textarea>
            <button>Sign in</button></form>"#,
        );
        assert_eq!(
            form_roles(&f, FormKind::Login),
            [
                ("csrf_token", Role::StateToken),
                ("userName", Role::Username),
                ("pw", Role::Password),
                ("mail_address", Role::Email),
                ("captcha_code", Role::Captcha),
                ("x", Role::Email),
                ("msg", Role::Other),
                ("", Role::Submit),
            ]
        );
        assert!(!Role::Sort.queryable() && !Role::PageSize.queryable());
        // (form, its kind, the roles, why)
        type Case<'a> = (&'a str, FormKind, &'a [(&'a str, Role)], &'a str);
        let cases: [Case<'_>; 3] = [
            (
                r#"<form action="/pw" method="post"><input name="login">
                <input type="submit" name="commit" value="Reset Password">
                <input type="submit" name="go" value="Reset!">
                <input type="submit" name="back" value="Return to login"></form>"#,
                FormKind::PasswordRecovery,
                &[
                    ("login", Role::Username),
                    ("commit", Role::Submit),
                    ("go", Role::Submit),
                    ("back", Role::Other),
                ],
                "in a recovery form, \"Reset\" submits the request",
            ),
            (
                r#"<form action="/find"><input name="q">
                <input type="submit" name="go" value="Search">
                <input type="submit" name="clear" value="Reset"></form>"#,
                FormKind::Search,
                &[
                    ("q", Role::SearchQuery),
                    ("go", Role::Submit),
                    ("clear", Role::Other),
                ],
                "elsewhere \"Reset\" clears the form",
            ),
            (
                r#"<form action="/join" method="post">
                <input type="submit" name="agreed" value="I agree to these terms">
                <input type="submit" name="not_agreed" value="I do not agree"></form>"#,
                FormKind::Registration,
                &[("agreed", Role::Submit), ("not_agreed", Role::Other)],
                "a button that declines is no submit",
            ),
        ];
        for (html, kind, want, why) in cases {
            assert_eq!(form_roles(&form(html), kind), want, "{why}");
        }
        let scripted = form(
            r#"<form action="/find"><input name="q">
            <input type="button" name="go" value="Search" onclick="find()">
            <button type="button" name="close">Close</button></form>"#,
        );
        assert_eq!(
            scripted
                .elements
                .iter()
                .map(|e| e.name.as_str())
                .collect::<Vec<_>>(),
            ["q"],
            "a script button is never sent"
        );
        assert_eq!(
            unsent_roles(&scripted, FormKind::Search),
            [Role::Submit, Role::Submit],
            "but a script acts on it as on a submit button"
        );
        let dependent = form(
            r#"<form action="/find"><select name="year"><option>2020<option>2021</select>
            <select name="model" disabled><option value="">Select a model</select></form>"#,
        );
        assert_eq!(
            unsent_roles(&dependent, FormKind::Search),
            [Role::Category],
            "a select the page's script enables keeps its role"
        );
        assert!(Role::SearchQuery.queryable() && Role::Category.queryable());
    }

    #[test]
    fn a_select_that_takes_the_reader_elsewhere_is_a_menu_not_a_category() {
        let f = form(
            r#"<form action="/search"><input name="q">
            <label>Jump to: <select name="f"><option value="-1">Select a forum</option>
            <option value="2">General</option><option value="3">Help</option></select></label>
            <label>In <select name="cat"><option value="">Select a category</option><option value="2">Books</option>
            <option value="3">Music</option></select></label></form>"#,
        );
        assert_eq!(
            form_roles(&f, FormKind::Search),
            [
                ("q", Role::SearchQuery),
                ("f", Role::Other),
                ("cat", Role::Category),
            ]
        );
    }

    #[test]
    fn a_choice_of_places_is_a_location_and_a_page_size_is_a_count() {
        let f = form(
            r#"<form action="/find"><input name="q">
            <select name="state"><option value="">State: all states</option><option>Ohio</option></select>
            <select name="dealer"><option value="">Any city</option><option value="7">Akron</option></select>
            <select name="review_state"><option>published</option><option>private</option></select>
            <select name="realestate"><option value="">Any type</option><option>Flat</option></select>
            <label>Show <select name="n"><option>10</option><option>50</option><option>100</option></select></label>
            <label>Show <select name="as"><option value="0">Threads</option><option value="1">Posts</option></select></label>
            </form>"#,
        );
        assert_eq!(
            form_roles(&f, FormKind::Search),
            [
                ("q", Role::SearchQuery),
                ("state", Role::Location),
                ("dealer", Role::Location),
                ("review_state", Role::Category),
                ("realestate", Role::Category),
                ("n", Role::PageSize),
                ("as", Role::Category),
            ],
            "a place is said by the name or the first choice, word by word; \
             a record's state is no place; a page size shows numbers"
        );
        assert!(
            Role::Location.queryable(),
            "a location partitions as a category does"
        );
    }
}
