//! The Quotation Register (`/quotes/Search.aspx`): a search built like an
//! ASP.NET WebForms page, for stateful forms. The form posts back to
//! itself with a `__VIEWSTATE` token that every page issues anew and that
//! the provider checks (a missing or unknown token, or a token of another
//! session, answers an error page with HTTP 400), inside a session kept
//! by a cookie. An answer of more than [`PAGE_SIZE`] quotations is paged
//! as a GridView pages: its pager's page numbers are post-backs
//! (`javascript:__doPostBack('gvQuotes','Page$2')`), and a page is given
//! only for a token whose page showed that answer and offered that page
//! number. Choosing an author posts the form back (`__doPostBack`)
//! and the answer fills the tag select with that author's tags; the tag
//! select of the form page holds only its placeholder. Only an author and
//! one of their tags together list quotations, and only a tag the page of
//! the token offered is accepted (event validation). A session answers
//! [`SESSION_REQUESTS`] requests and then ends, as an idle one would: the
//! next request with its cookie gets the error page, and the form page
//! starts a new session.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::sync::{Arc, LazyLock, Mutex};

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use rand::prelude::*;
use rand_chacha::ChaCha8Rng;

use super::pages::esc;

/// Where the search page is.
pub const PATH: &str = "/quotes/Search.aspx";
/// The requests a session answers before it ends.
pub const SESSION_REQUESTS: u32 = 12;
/// The quotations one result page shows.
pub const PAGE_SIZE: usize = 3;
/// The grid whose pager posts back.
const GRID: &str = "gvQuotes";

/// The authors (value, name).
pub const AUTHORS: [(&str, &str); 6] = [
    ("17", "Ada Whitcombe"),
    ("23", "Bertram Lisle"),
    ("31", "Cora Penhallow"),
    ("42", "Dmitri Vasko"),
    ("56", "Elspeth Graine"),
    ("64", "Florian Achterberg"),
];
/// The tags (value, label).
pub const TAGS: [(&str, &str); 8] = [
    ("courage", "Courage"),
    ("doubt", "Doubt"),
    ("friendship", "Friendship"),
    ("labour", "Labour"),
    ("memory", "Memory"),
    ("sea", "The sea"),
    ("time", "Time"),
    ("wit", "Wit"),
];

/// One quotation of the register.
#[derive(Debug, Clone)]
pub struct Quote {
    pub text: String,
    pub author: &'static str,
    pub tag: &'static str,
}

const OPENINGS: &[&str] = &[
    "Every",
    "No",
    "A quiet",
    "The last",
    "Each small",
    "An honest",
    "The oldest",
    "One",
];
const NOUNS: &[&str] = &[
    "harbour", "lamp", "letter", "bridge", "garden", "promise", "window", "ledger", "compass",
    "road", "song", "winter",
];
const ENDS: &[&str] = &[
    "is kept by those who wait",
    "asks more than it gives",
    "outlives the hand that made it",
    "is nearer than the map says",
    "remembers what we forget",
    "was never meant to be finished",
];

/// The register's quotations: the same every time.
pub fn quotes() -> &'static [Quote] {
    static QUOTES: LazyLock<Vec<Quote>> = LazyLock::new(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x9a07e);
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (author, _) in AUTHORS {
            let mut tags: Vec<&'static str> = TAGS.iter().map(|t| t.0).collect();
            tags.shuffle(&mut rng);
            tags.truncate(rng.gen_range(2..=4));
            tags.sort_unstable();
            for tag in tags {
                for _ in 0..rng.gen_range(1..=7) {
                    let base = format!(
                        "{} {} {}",
                        OPENINGS[rng.gen_range(0..OPENINGS.len())],
                        NOUNS[rng.gen_range(0..NOUNS.len())],
                        ENDS[rng.gen_range(0..ENDS.len())]
                    );
                    let mut text = format!("{base}.");
                    let mut n = 2;
                    while !seen.insert(text.clone()) {
                        text = format!("{base} ({n}).");
                        n += 1;
                    }
                    out.push(Quote { text, author, tag });
                }
            }
        }
        out
    });
    &QUOTES
}

/// The tags an author's quotations carry, in the tags' order.
pub fn tags_of(author: &str) -> Vec<&'static str> {
    TAGS.iter()
        .map(|t| t.0)
        .filter(|t| quotes().iter().any(|q| q.author == author && q.tag == *t))
        .collect()
}

/// What a complete gathering finds: every quotation's text.
pub fn expected_texts() -> BTreeSet<String> {
    quotes().iter().map(|q| q.text.clone()).collect()
}

fn author_name(value: &str) -> &'static str {
    AUTHORS.iter().find(|a| a.0 == value).map_or("", |a| a.1)
}

fn tag_label(value: &str) -> &'static str {
    TAGS.iter().find(|t| t.0 == value).map_or("", |t| t.1)
}

/// What the page of a token showed: the author chosen, and the answer
/// listed (its tag and the pages its pager offered; none without an
/// answer).
#[derive(Default, Clone)]
struct Shown {
    author: String,
    tag: String,
    pages: usize,
}

/// One session: the tokens its pages issued (token → what their page
/// showed) and the requests it answered.
#[derive(Default)]
struct Session {
    tokens: HashMap<String, Shown>,
    requests: u32,
}

#[derive(Default)]
struct Sessions {
    by_id: HashMap<String, Session>,
    next: u64,
    /// Turns tokens and session ids into values that do not show a count.
    rng: Option<ChaCha8Rng>,
}

impl Sessions {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        let rng = self
            .rng
            .get_or_insert_with(|| ChaCha8Rng::seed_from_u64(0x5e55));
        format!("{prefix}{:x}{:08x}", self.next, rng.gen::<u32>())
    }
}

type Shared = Arc<Mutex<Sessions>>;

/// The provider's routes.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(PATH, get(form_page).post(post_back))
        .with_state(Shared::default())
}

fn session_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| c.trim().strip_prefix("ASP.NET_SessionId="))
        .map(str::to_string)
}

/// The form page: a new session unless the cookie names a live one.
async fn form_page(State(sessions): State<Shared>, headers: HeaderMap) -> Response {
    let mut all = sessions.lock().unwrap_or_else(|e| e.into_inner());
    let known = session_of(&headers).filter(|id| all.by_id.contains_key(id));
    let (id, new) = match known {
        Some(id) => (id, false),
        None => {
            let id = all.fresh("s");
            all.by_id.insert(id.clone(), Session::default());
            (id, true)
        }
    };
    let Some(token) = issue(&mut all, &id, Shown::default()) else {
        return error_page("Your session has ended.");
    };
    let body = page(&token, "", "", "");
    let mut response = html(body);
    if new {
        if let Ok(v) = format!("ASP.NET_SessionId={id}; path=/; HttpOnly").parse() {
            response.headers_mut().insert(header::SET_COOKIE, v);
        }
    }
    response
}

/// Counts a request of the session and issues a token for a page showing
/// `shown`; `None` when the session has ended.
fn issue(all: &mut Sessions, id: &str, shown: Shown) -> Option<String> {
    let token = all.fresh("/wEPDwUK");
    let session = all.by_id.get_mut(id)?;
    session.requests += 1;
    if session.requests > SESSION_REQUESTS {
        all.by_id.remove(id);
        return None;
    }
    session.tokens.insert(token.clone(), shown);
    Some(token)
}

/// A post-back: the author's choice (`__EVENTTARGET=ddlAuthor`), the
/// search button, or a page of the grid's pager
/// (`__EVENTTARGET=gvQuotes`, `__EVENTARGUMENT=Page$2`).
async fn post_back(State(sessions): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let form: BTreeMap<String, String> = super::pages::parse_form(body.as_bytes())
        .into_iter()
        .collect();
    let field = |name: &str| {
        form.get(name)
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    let mut all = sessions.lock().unwrap_or_else(|e| e.into_inner());
    let Some(id) = session_of(&headers).filter(|id| all.by_id.contains_key(id)) else {
        return error_page("Your session has ended. Open the search page again.");
    };
    let state = all
        .by_id
        .get(&id)
        .and_then(|s| s.tokens.get(&field("__VIEWSTATE")).cloned());
    let Some(shown) = state else {
        return error_page(
            "The state information is invalid for this page and might be corrupted.",
        );
    };
    let author = field("ddlAuthor");
    if !author.is_empty() && author_name(&author).is_empty() {
        return error_page("Invalid postback or callback argument.");
    }
    let tag = field("ddlTag");
    let event = field("__EVENTTARGET");
    // A page of the grid: one its pager offered, of the answer the
    // token's page listed (event validation).
    let paged = if event == GRID {
        let number = field("__EVENTARGUMENT")
            .strip_prefix("Page$")
            .and_then(|n| n.parse::<usize>().ok());
        match number {
            Some(n)
                if (1..=shown.pages).contains(&n) && shown.author == author && shown.tag == tag =>
            {
                Some(n)
            }
            _ => return error_page("Invalid postback or callback argument."),
        }
    } else {
        None
    };
    let search = paged.is_some() || (event != "ddlAuthor" && form.contains_key("btnSearch"));
    // Event validation: the tag must be one the token's page offered.
    if search && !tag.is_empty() && !tags_of(&shown.author).contains(&tag.as_str()) {
        return error_page("Invalid postback or callback argument.");
    }
    let found: Vec<&Quote> = quotes()
        .iter()
        .filter(|q| q.author == author && q.tag == tag)
        .collect();
    let answered = search && !found.is_empty();
    let pages = if answered {
        found.len().div_ceil(PAGE_SIZE)
    } else {
        0
    };
    let now = Shown {
        author: author.clone(),
        tag: if answered { tag.clone() } else { String::new() },
        pages,
    };
    let Some(token) = issue(&mut all, &id, now) else {
        return error_page("Your session has ended. Open the search page again.");
    };
    drop(all);
    if !search {
        return html(page(&token, &author, "", ""));
    }
    let mut results = String::new();
    if !answered {
        results.push_str(
            "<p class=\"hint\">Choose an author and one of their tags, then press Search.</p>",
        );
    } else {
        let number = paged.unwrap_or(1);
        let from = (number - 1) * PAGE_SIZE;
        let shown_here = &found[from..(from + PAGE_SIZE).min(found.len())];
        let _ = write!(
            results,
            "<p id=\"lblCount\">{n} quotations found ({}–{} of {n})</p>\n<table id=\"gvQuotes\" class=\"grid\">\n<tr><th>Quote</th><th>Author</th><th>Tag</th></tr>\n",
            from + 1,
            from + shown_here.len(),
            n = found.len()
        );
        for q in shown_here {
            let _ = writeln!(
                results,
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&q.text),
                esc(author_name(q.author)),
                esc(tag_label(q.tag))
            );
        }
        results.push_str("</table>\n");
        if pages > 1 {
            results.push_str(&pager(number, pages));
        }
    }
    html(page(&token, &author, &tag, &results))
}

/// The grid's pager: the page numbers, the page shown as text, the others
/// as post-backs.
fn pager(number: usize, pages: usize) -> String {
    let mut out = String::from("<div class=\"pager\">");
    for n in 1..=pages {
        if n == number {
            let _ = write!(out, "<span>{n}</span> ");
        } else {
            let _ = write!(
                out,
                "<a href=\"javascript:__doPostBack(&#39;{GRID}&#39;,&#39;Page${n}&#39;)\">{n}</a> "
            );
        }
    }
    out.push_str("</div>\n");
    out
}

/// The search page with its form showing `author` (and their tags) and
/// `tag`, then `results`.
fn page(token: &str, author: &str, tag: &str, results: &str) -> String {
    let mut authors = String::from("<option value=\"\">(choose an author)</option>");
    for (value, name) in AUTHORS {
        let selected = if value == author {
            " selected=\"selected\""
        } else {
            ""
        };
        let _ = write!(
            authors,
            "<option value=\"{value}\"{selected}>{name}</option>"
        );
    }
    let mut tags = String::new();
    if author.is_empty() {
        tags.push_str("<option value=\"\">(choose an author first)</option>");
    } else {
        tags.push_str("<option value=\"\">(choose a tag)</option>");
        for value in tags_of(author) {
            let selected = if value == tag {
                " selected=\"selected\""
            } else {
                ""
            };
            let _ = write!(
                tags,
                "<option value=\"{value}\"{selected}>{}</option>",
                tag_label(value)
            );
        }
    }
    format!(
        r#"<!DOCTYPE html>
<html><head><title>Quotation Register - Search</title></head>
<body>
<h1>Quotation Register</h1>
<form method="post" action="./Search.aspx" id="form1">
<div class="aspNetHidden">
<input type="hidden" name="__EVENTTARGET" id="__EVENTTARGET" value="" />
<input type="hidden" name="__EVENTARGUMENT" id="__EVENTARGUMENT" value="" />
<input type="hidden" name="__VIEWSTATE" id="__VIEWSTATE" value="{token}" />
</div>
<script type="text/javascript">
function __doPostBack(t, a) {{ var f = document.forms['form1']; f.__EVENTTARGET.value = t; f.__EVENTARGUMENT.value = a; f.submit(); }}
</script>
<p><label for="ddlAuthor">Author</label>
<select name="ddlAuthor" id="ddlAuthor" onchange="javascript:setTimeout('__doPostBack(\'ddlAuthor\',\'\')', 0)">{authors}</select></p>
<p><label for="ddlTag">Tag</label>
<select name="ddlTag" id="ddlTag">{tags}</select></p>
<p><input type="submit" name="btnSearch" value="Search" id="btnSearch" /></p>
</form>
{results}
<p class="footer">Quotation Register</p>
</body></html>
"#
    )
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

fn error_page(message: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        format!(
            "<!DOCTYPE html><html><head><title>Runtime Error</title></head><body><h1>Server Error</h1><p>{}</p></body></html>",
            esc(message)
        ),
    )
        .into_response()
}
