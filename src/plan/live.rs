//! Requests built from the form as the latest page shows it, as a browser
//! submits the form it displays (and as Scrapy's
//! `FormRequest.from_response` does): the hidden inputs and state tokens
//! (`__VIEWSTATE`, `csrf_token` …) are those of the page the request
//! follows, not those of the form page read when the plan was made.
//!
//! A *dependent* element (a select that gains its options in an answer)
//! reads its domain from the answer to its parent's value: choosing the
//! parent submits the form (a post-back: `onchange="this.form.submit()"`
//! or ASP.NET's `__doPostBack`), and the answer holds the form with the
//! child filled. A [`Chain`] keeps those pages, one per value of the
//! parents, so that every query of a parent's value is built from the same
//! answer, and asks again from the form page when the provider refuses a
//! state token that went stale.

use std::collections::HashMap;
use std::sync::Mutex;

use url::Url;

use super::QueryPlan;
use crate::fetch::{FetchError, Fetcher, Request, Response};
use crate::form::{forms, Element, ElementKind, Form};
use crate::metadata::Metadata;

/// Pages by the parents' values chosen before them (parent → value, in
/// the plan's order): what a [`Chain`] keeps.
pub type Pages = Vec<(Vec<(String, String)>, Response)>;

/// How choosing a value of an element submits the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Postback {
    /// `onchange="this.form.submit()"`: the form without its button.
    Submit,
    /// `__doPostBack('target', 'argument')`: the form without its button,
    /// `__EVENTTARGET` and `__EVENTARGUMENT` set.
    Event { target: String, argument: String },
    /// No script: the user chooses and presses the button.
    Button,
}

/// How choosing a value of `e` submits its form, read from its
/// `onchange` script.
pub fn postback(e: &Element) -> Postback {
    let script = e.hints.onchange.as_str();
    let event = crate::navigate::postback::parse(script).filter(|s| {
        s.fields
            .first()
            .is_some_and(|(name, _)| name == "__EVENTTARGET")
    });
    if let Some(event) = event {
        let mut fields = event.fields.into_iter().map(|(_, value)| value);
        let target = fields.next().unwrap_or_default();
        return Postback::Event {
            target: if target.is_empty() {
                e.name.clone()
            } else {
                target
            },
            argument: fields.next().unwrap_or_default(),
        };
    }
    if script.contains("submit()") {
        Postback::Submit
    } else {
        Postback::Button
    }
}

/// True when the form carries a state token or a choice that posts the
/// form back: its requests are built from the latest page.
pub fn is_stateful(form: &Form) -> bool {
    let roles = crate::form::role::roles(form, crate::form::kind::FormKind::Search);
    roles.contains(&crate::form::role::Role::StateToken)
        || form
            .elements
            .iter()
            .any(|e| postback(e) != Postback::Button)
}

/// The names of the form's state tokens.
pub fn state_tokens(form: &Form) -> Vec<String> {
    let roles = crate::form::role::roles(form, crate::form::kind::FormKind::Search);
    form.elements
        .iter()
        .zip(roles)
        .filter(|(_, r)| *r == crate::form::role::Role::StateToken)
        .map(|(e, _)| e.name.clone())
        .collect()
}

/// The form of `page` that is `like` (read from an earlier page): the same
/// id, else the same name, else the same action and method, else the same
/// position.
pub fn form_in(page: &Response, like: &Form) -> Option<Form> {
    let decoded = page.text();
    let tree = crate::page::Page::parse(&decoded.text);
    let all = forms(&tree, &page.url, decoded.encoding).ok()?;
    let pick = |f: &&Form| like.id.is_some() && f.id == like.id;
    let by_name = |f: &&Form| like.name.is_some() && f.name == like.name;
    let by_action = |f: &&Form| f.action == like.action && f.method == like.method;
    all.iter()
        .find(pick)
        .or_else(|| all.iter().find(by_name))
        .or_else(|| all.iter().find(by_action))
        .or_else(|| all.get(like.index))
        .cloned()
}

/// The values a dependent select offers in `form`: its options but the
/// placeholder (an empty value).
pub fn options(form: &Form, element: &str) -> Vec<String> {
    match form.element(element).map(|e| &e.kind) {
        Some(ElementKind::Select { options, .. })
        | Some(ElementKind::Radio { choices: options }) => options
            .iter()
            .map(|o| o.value.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

/// The request that submits `form` as it stands with `values` (element →
/// value) chosen, by its button; or, with `postback`, the request the
/// choice of `values`' last element sends.
pub fn submit(form: &Form, values: &[(String, String)], postback: Option<&Postback>) -> Request {
    let plan = QueryPlan::build(
        Some(form),
        &Metadata::default(),
        &form.action,
        form.encoding,
        None,
    );
    let mut values = values.to_vec();
    let plan = match (plan, postback) {
        (Err(_), _) => {
            // Only a form whose action is no HTTP URL: sent as a GET of
            // the action, which the fetcher refuses with a clear error.
            return Request::get(form.action.clone());
        }
        (Ok(plan), None | Some(Postback::Button)) => plan,
        (Ok(plan), Some(Postback::Submit)) => plan.unpressed(),
        (Ok(plan), Some(Postback::Event { target, argument })) => {
            values.push(("__EVENTTARGET".into(), target.clone()));
            values.push(("__EVENTARGUMENT".into(), argument.clone()));
            plan.unpressed()
        }
    };
    plan.query_with(0, values).request
}

/// Why a request could not be built from the latest page.
#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("{0}")]
    Fetch(#[from] FetchError),
    #[error("{url}: the answer to choosing {chosen} holds no form like the one submitted")]
    NoForm { url: Url, chosen: String },
}

/// The pages a stateful form's requests follow: the form page, and the
/// answer to each value of the parents (the elements whose choice posts
/// the form back, or whose answer a dependent element reads), kept by
/// those values.
#[derive(Debug)]
pub struct Chain {
    form_page: Url,
    like: Form,
    /// The parents, in the plan's order.
    parents: Vec<String>,
    pages: Mutex<HashMap<Vec<(String, String)>, Response>>,
    /// Held while pages are fetched: one session's pages at a time, so
    /// that two queries never start two sessions at once.
    fetching: tokio::sync::Mutex<()>,
    /// Times the pages were read again after a refused query.
    renewed: std::sync::atomic::AtomicU64,
}

impl Chain {
    /// The chain of a form read from `page`, whose `parents` post it back.
    pub fn new(page: Response, form: Form, parents: Vec<String>) -> Chain {
        Chain {
            form_page: page.url.clone(),
            like: form,
            parents,
            pages: Mutex::new(HashMap::from([(Vec::new(), page)])),
            fetching: tokio::sync::Mutex::new(()),
            renewed: Default::default(),
        }
    }

    /// The parents, in the plan's order.
    pub fn parents(&self) -> &[String] {
        &self.parents
    }

    fn cached(&self, key: &[(String, String)]) -> Option<Response> {
        self.pages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    /// The page that follows choosing `chosen` (parent → value, in the
    /// plan's order): the form page for none, else the answer to the last
    /// parent's post-back from the page of the ones before. Pages are
    /// fetched once and kept.
    pub async fn page(
        &self,
        fetcher: &Fetcher,
        chosen: &[(String, String)],
    ) -> Result<Response, LiveError> {
        if let Some(page) = self.cached(chosen) {
            return Ok(page);
        }
        let _one = self.fetching.lock().await;
        let mut known = chosen.len();
        let mut page = loop {
            if let Some(page) = self.cached(&chosen[..known]) {
                break page;
            }
            if known == 0 {
                let page = fetcher.get(&self.form_page).await?;
                self.keep(Vec::new(), page.clone());
                break page;
            }
            known -= 1;
        };
        for n in known + 1..=chosen.len() {
            let form = form_in(&page, &self.like).ok_or_else(|| LiveError::NoForm {
                url: page.url.clone(),
                chosen: describe(&chosen[..n - 1]),
            })?;
            let (parent, _) = &chosen[n - 1];
            let how = form
                .element(parent)
                .map(postback)
                .unwrap_or(Postback::Button);
            let request = submit(&form, &chosen[..n], Some(&how));
            page = fetcher.fetch(&request).await?;
            self.keep(chosen[..n].to_vec(), page.clone());
        }
        Ok(page)
    }

    /// Keeps `page` as the page that follows choosing `key`.
    pub fn keep(&self, key: Vec<(String, String)>, page: Response) {
        self.pages
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, page);
    }

    /// The request of a query (element → value): the form as the page of
    /// its parents' values shows it, submitted with `values`; and the
    /// pages' generation it was built in ([`Chain::renew`]).
    pub async fn request(
        &self,
        fetcher: &Fetcher,
        values: &[(String, String)],
    ) -> Result<(Request, u64), LiveError> {
        let generation = self.renewed();
        let chosen: Vec<(String, String)> = values
            .iter()
            .filter(|(n, _)| self.parents.contains(n))
            .cloned()
            .collect();
        let page = self.page(fetcher, &chosen).await?;
        let form = form_in(&page, &self.like).ok_or_else(|| LiveError::NoForm {
            url: page.url.clone(),
            chosen: describe(&chosen),
        })?;
        Ok((submit(&form, values, None), generation))
    }

    /// Forgets every page kept, unless another query did since
    /// `generation`: the next request starts again from the form page (a
    /// state token the provider refused, a session that ended).
    pub fn renew(&self, generation: u64) {
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if self.renewed() == generation {
            pages.clear();
            self.renewed
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// How many times the pages were read again.
    pub fn renewed(&self) -> u64 {
        self.renewed.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// `author=Ada Lovelace, tag=maths`, for messages.
fn describe(chosen: &[(String, String)]) -> String {
    if chosen.is_empty() {
        return "nothing".into();
    }
    chosen
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form_of(html: &str) -> Form {
        let page = crate::page::Page::parse(html);
        let url = Url::parse("http://x.test/Search.aspx").unwrap();
        forms(&page, &url, encoding_rs::UTF_8).unwrap().remove(0)
    }

    const PAGE: &str = r#"<form method="post" action="Search.aspx" id="f">
        <input type="hidden" name="__EVENTTARGET" value="">
        <input type="hidden" name="__EVENTARGUMENT" value="">
        <input type="hidden" name="__VIEWSTATE" value="t1">
        <select name="author" onchange="javascript:setTimeout('__doPostBack(\'author\',\'\')', 0)">
          <option value="">choose</option><option value="a">A</option></select>
        <select name="tag" onchange="this.form.submit()"><option value="">first an author</option></select>
        <input type="submit" name="go" value="Search"></form>"#;

    #[test]
    fn a_choice_that_posts_back_is_read_from_its_script() {
        let form = form_of(PAGE);
        assert_eq!(
            postback(form.element("author").unwrap()),
            Postback::Event {
                target: "author".into(),
                argument: String::new()
            }
        );
        assert_eq!(postback(form.element("tag").unwrap()), Postback::Submit);
        assert!(is_stateful(&form));
        assert!(state_tokens(&form).contains(&"__VIEWSTATE".to_string()));
        assert_eq!(options(&form, "tag"), Vec::<String>::new());
        assert_eq!(options(&form, "author"), vec!["a".to_string()]);
    }

    #[test]
    fn a_post_back_leaves_the_button_out_and_names_its_target() {
        let form = form_of(PAGE);
        let how = postback(form.element("author").unwrap());
        let request = submit(&form, &[("author".into(), "a".into())], Some(&how));
        let body = String::from_utf8(request.body.unwrap()).unwrap();
        assert_eq!(
            body,
            "__EVENTTARGET=author&__EVENTARGUMENT=&__VIEWSTATE=t1&author=a&tag="
        );
        let request = submit(
            &form,
            &[("author".into(), "a".into()), ("tag".into(), "x".into())],
            None,
        );
        let body = String::from_utf8(request.body.unwrap()).unwrap();
        assert_eq!(
            body,
            "__EVENTTARGET=&__EVENTARGUMENT=&__VIEWSTATE=t1&author=a&tag=x&go=Search"
        );
    }

    #[test]
    fn a_tree_plan_sends_its_rows_with_the_state_tokens_left_to_the_page() {
        let form = form_of(PAGE);
        let mut metadata = Metadata {
            query_elements: vec!["author".into(), "tag".into()],
            ..Metadata::default()
        };
        metadata.domains.insert(
            "tag".into(),
            crate::metadata::Domain::Values(vec!["x".into(), "y".into(), "z".into()]),
        );
        let plan = QueryPlan::build(Some(&form), &metadata, &form.action, form.encoding, Some(2))
            .unwrap()
            .blanking(state_tokens(&form))
            .with_rows(vec![
                vec!["a".into(), "x".into()],
                vec!["a".into(), "y".into()],
                vec!["b".into(), "z".into()],
            ]);
        assert!(plan.is_tree());
        // The user's limit cuts the tree like any plan.
        assert_eq!((plan.total(), plan.len()), (3, 2));
        let second = plan.query(1).unwrap();
        assert_eq!(
            second.values,
            vec![("author".into(), "a".into()), ("tag".into(), "y".into())]
        );
        let body = String::from_utf8(second.request.body.unwrap()).unwrap();
        assert!(body.contains("__VIEWSTATE=&"), "{body}");
        assert!(plan.query(2).is_none());
    }
}
