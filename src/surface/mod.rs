//! Surfacing a form that carries no metadata (`gather spec --induce URL`,
//! and plain `gather URL` on such a form): which inputs to query, with
//! which values, and the rules that read the answers — all found by
//! sending a few probe queries (Madhavan et al., VLDB 2008: informative
//! query templates found by probing, keywords for text boxes by probing).
//!
//! 0. **The form.** Of a page's forms, the one that looks like a search
//!    ([`surfaced_form`]): not a login, contact or newsletter form.
//! 0. **The page's own listing** ([`default::page_listing`]). A form page
//!    that lists records with a pager or a stated total, whose pager walk
//!    reaches every row: the page itself is the plan (a script without
//!    form fields, its next links as the navigation pattern); no form is
//!    sent. Only where the search answers on the page itself (a search
//!    form's action is the page), or no form may be searched: a page's
//!    listing beside a site search box that answers elsewhere is one page
//!    of the site, not the search's default answer.
//! 0. **The default answer first** ([`default`]). The form as it stands,
//!    read as one page ([`crate::listing`]): when it lists records, no
//!    select without an "any" choice moves them, and walking its pager
//!    reaches its stated total (or nothing says it is cut short), the plan
//!    is that one query, read by the listing's rules: no probe.
//! 1. **Probes.** The form as it stands (every input at its default), then
//!    each input alone: a select or radio group with `per_input` of its
//!    other values (spread over its choices; one more while its answers
//!    and the default hold fewer than two sets of rows), a text field with
//!    a first letter and each wildcard (`S%`, `S*`); with a wildcard that
//!    works (its rows start with the letter or hold a word that does, do
//!    not all hold the probe as typed, and do not all hold the letter as
//!    a word of its own) a second letter and a digit
//!    (more letters while no two answers show rows); unless a wildcard
//!    works, the values the form page names in an enumeration, all of
//!    them, then its most frequent words ([`crate::words::seed_words`]);
//!    when answers hold rows but no two
//!    different ones, words of those rows. The others
//!    keep their defaults. A select without an "any" choice that brought
//!    nothing while the text fields were empty is probed again with the
//!    field filled. Every probe's answer is kept: a query of the
//!    gathering that sends the same request takes it
//!    ([`InducedSpec::answers`]).
//! 2. **Rules.** The template of the distinct answers gives the rules
//!    ([`crate::induce`]); the rule that reads the most rows (a `[*]` rule)
//!    tells, per answer, which rows it holds. An answer without rows is
//!    empty. The rules are then induced again on the answers that hold rows.
//! 3. **Inputs chosen by what they return.** An input is *informative*
//!    when its probes bring at least two different non-empty sets of rows,
//!    and not only more of the rows the form as it stands shows (a page
//!    size). Informative selects without a
//!    choice meaning "any" partition the database: they are the query
//!    elements, together (a template of several inputs only when none
//!    reaches the rows alone). Those with such a choice only narrow what
//!    another input gives: they become refinement elements (`refine:`),
//!    used when an answer is cut short. When no select partitions, a text
//!    field whose probes bring rows is the query element: with a wildcard
//!    that works, its domain is the letters followed by it (and the
//!    digits when `1%`/`1*` brought rows); otherwise it is a keyword
//!    field, queried with the words that brought rows, and the gatherer
//!    learns its other values from the answers ([`crate::refine::learn`]).
//!    A select that answered only with the field filled, with other rows
//!    than the field alone, is queried together with it. When neither,
//!    the one informative select that varies most is the query element.
//!    A keyword field whose records a page of the site lists, every one
//!    the probes found, from one list (a wiki's page index, an
//!    encyclopedia's "all articles"), is not queried at all: that list is
//!    read instead, its pager walked ([`index`]); where the form page links
//!    to such an index, its words are probed before the form page's own.
//!    A line of every answer that repeats the query's words around a
//!    count (the answer's summary) is left out of the rules, and so is a
//!    line that does not vary with the data (a timing, a pager's "Next",
//!    one value the same on every answer).
//! 4. **Values without their template words.** Where every value of a
//!    slot starts with the same words (a heading "Films filed under
//!    Drama", a label "Company: Acme"), those words are template: the rule
//!    cuts them off (`, match/^Films filed under (.+?)$/`). A common end of
//!    two words or more is cut too; a unit ("50 EUR") stays. In a rule
//!    over rows only a label ("Company:") is cut, and no end: the probes'
//!    rows are a sample, and words every sampled row starts or ends with
//!    may be a value they share ("USA, …"), which the rows beyond the
//!    sample do not hold.
//! 5. **Names from the page.** A slot that shows the value a probe sent is
//!    named after that input; else after the form field whose choices hold
//!    all its values; else the column header over it, the definition-list
//!    term before it, a label before it ("Preis:"), or the last
//!    capitalised word of a phrase cut off in front ("…im Landkreis X");
//!    else `slot_N`.
//!
//! Nothing is silent: when no probe brings a row, or no rule is found, the
//! error lists every input, every probe and what it answered.

mod choose;
mod default;
mod dependent;
mod index;
mod naming;
mod plan_text;
mod probe;
mod search_form;

use std::collections::BTreeSet;

use url::Url;

use crate::fetch::{Fetcher, Request};
use crate::form::{forms, Choice, Form};
use crate::induce::{induce, Algorithm, InduceError, Induction};
use crate::metadata::classify;
use crate::page::Page;
use crate::spec::{FormRef, ResultItem, Spec, Values};

use choose::{choose, judge, listed_records, names, tried};
use default::{default_answer, DefaultAnswer};
use naming::{
    attribute_name, does_not_vary, echoes_query, name_by_choices, name_by_probes, name_of_words,
    name_on_page, states_total, unique, without_template_words,
};
pub use plan_text::plan_of_yaml;
use probe::{inputs_of, probe_plan, send_all_probes};
pub use search_form::{has_inputs, probed_inputs, surfaced_form};

/// Values of a select probed besides its default, unless told otherwise;
/// one more while its answers hold fewer than two sets of rows.
pub const DEFAULT_PER_INPUT: usize = 1;
/// Letters a text field is probed with: the first with each wildcard, the
/// others only with a wildcard the first showed to work.
const PROBE_LETTERS: [char; 2] = ['S', 'M'];
/// The digit a prefix search is probed with once its wildcard works: the
/// most frequent leading digit (Benford's law). When it brings no row, the
/// digits are left out of the domain.
const PROBE_DIGIT: char = '1';
const WILDCARDS: [char; 2] = ['%', '*'];
/// Words of the form page a text field is probed with, unless the page
/// lists more values (all of those are).
const PROBE_WORDS: usize = 8;
/// Words of the form page read for probing a text field (the first
/// `PROBE_WORDS` are sent).
const SEED_WORDS: usize = 20;

/// What an input became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A query element: its values are sent.
    Query,
    /// A refinement element: used where an answer is cut short.
    Refine,
    /// Left at its default.
    Unused,
}

/// An input of the form and why it got its role.
#[derive(Debug, Clone)]
pub struct InputReport {
    pub name: String,
    /// `select`, `radio`, `text`…
    pub kind: &'static str,
    pub role: Role,
    pub why: String,
}

/// One probe: the values it sent (besides the defaults) and what came back.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    pub values: Vec<(String, String)>,
    /// Rows the answer held (by the rule that reads the most rows).
    pub rows: usize,
    /// HTTP status of the answer.
    pub status: u16,
}

/// A spec written from a form page and the answers to its probes.
#[derive(Debug, Clone)]
pub struct InducedSpec {
    pub spec: Spec,
    /// The probes sent, in order.
    pub probes: Vec<ProbeReport>,
    /// Every input of the form with its role.
    pub inputs: Vec<InputReport>,
    /// The attributes named `slot_N`, with their values on the first answer.
    pub unnamed: Vec<(String, Vec<String>)>,
    /// Every attribute with its first values, in the spec's order.
    pub samples: Vec<(String, Vec<String>)>,
    /// The probes' answers (2xx only) with the requests that brought them:
    /// a query of the gathering that sends the same request takes its
    /// answer from here instead of asking again.
    pub answers: Vec<(Request, crate::fetch::Response)>,
    /// Lines of the answers left out because they repeat the query's own
    /// words around a count ("41 openings for “analyst”"): one example each.
    pub left_out: Vec<String>,
    /// The pages a dependent select's queries follow, by the parents'
    /// values ([`crate::plan::live::Chain`]): the gathering starts from
    /// them instead of asking again.
    pub pages: crate::plan::live::Pages,
    /// Why no form is sent, when the form page itself lists every row
    /// ([`default::page_listing`]).
    pub page_listing: Option<String>,
}

/// Why no spec could be induced.
#[derive(Debug, thiserror::Error)]
pub enum SurfaceError {
    #[error("{0}")]
    Fetch(#[from] crate::fetch::FetchError),
    #[error("{url} carries DB.* metadata: `gather spec {url}` writes its spec")]
    HasMetadata { url: Url },
    #[error("{url}: {message}")]
    Form { url: Url, message: String },
    #[error("{url}: {0}", url = .1)]
    Induce(InduceError, Url),
    /// No probe brought rows, or no rule reads them: what was tried.
    #[error("{url}: {reason}; tried:\n{tried}")]
    Nothing {
        url: Url,
        reason: String,
        tried: String,
    },
}

/// Element → value pairs.
type Pairs = Vec<(String, String)>;

/// An input the probes vary.
struct Input {
    name: String,
    kind: &'static str,
    /// Values probed (not the default).
    probes: Vec<String>,
    /// The choices of a select or radio group (empty for a text field).
    choices: Vec<Choice>,
    /// Other values of a choice, sent one by one while its answers hold
    /// fewer than two different sets of rows (a choice is never judged
    /// on one value).
    more: Vec<String>,
    /// A choice means "any" (empty value, "all", "alle", "egal" …).
    any: bool,
    text: bool,
}

/// A probe sent: the input it varies (`None` for the form as it stands),
/// the value, the answer.
struct Sent {
    input: Option<usize>,
    values: Vec<(String, String)>,
    status: u16,
    body: Vec<u8>,
    page: Page,
    /// The request sent and its answer, for the gathering to take as the
    /// answer of the same query.
    answer: Option<(Request, crate::fetch::Response)>,
}

impl Sent {
    /// A page that no probe's values brought (a page of the default
    /// answer's pager, the form page itself), kept as an answer the
    /// gathering takes again.
    fn walked(request: Request, response: crate::fetch::Response, page: Page) -> Sent {
        Sent {
            input: None,
            values: Vec::new(),
            status: response.status,
            body: Vec::new(),
            page,
            answer: Some((request, response)),
        }
    }
}

/// Fetches the form page, probes its inputs and induces the spec (see the
/// module docs). `per_input` is how many values of each select are probed
/// besides its default.
pub async fn induce_spec(
    url: &Url,
    fetcher: &Fetcher,
    per_input: usize,
    named: &[String],
) -> Result<InducedSpec, SurfaceError> {
    let resp = fetcher.get(url).await?;
    induce_spec_from(resp, fetcher, per_input, named).await
}

/// [`induce_spec`] on a form page already fetched. Only a form the
/// operator named (`named`: positions, names or ids) or one judged a
/// search form that is safe to submit is probed
/// ([`crate::form::safe::submittable`]).
pub async fn induce_spec_from(
    resp: crate::fetch::Response,
    fetcher: &Fetcher,
    per_input: usize,
    named: &[String],
) -> Result<InducedSpec, SurfaceError> {
    let decoded = resp.text();
    let page = Page::parse(&decoded.text);
    if page.meta_tags().any(|(name, _)| classify(name).is_some()) {
        return Err(SurfaceError::HasMetadata { url: resp.url });
    }
    let form_url = resp.url.clone();
    let form_error = |message: String| SurfaceError::Form {
        url: form_url.clone(),
        message,
    };
    let all = forms(&page, &resp.url, decoded.encoding).map_err(|e| form_error(e.to_string()))?;
    let seeds = crate::words::seed_words(&page, SEED_WORDS);
    // The listing the form page itself shows, when its pager reaches every
    // row: no form is sent at all (unless the operator named one). It
    // stands for the search's default answer only when the page is where
    // the search answers (a table browser's filter, an issue tracker's
    // query page), or when no form may be searched: a shop's category
    // page with the site's search box in its header lists one category,
    // not what the search reaches.
    let allowed = crate::form::safe::submittable(&page, &all, named);
    let answers_here = allowed.as_ref().map_or(true, |forms| {
        forms.iter().any(|f| {
            f.action.host_str() == resp.url.host_str() && f.action.path() == resp.url.path()
        })
    });
    if named.is_empty() && answers_here {
        let base = Spec {
            url: resp.url.to_string(),
            ..Spec::default()
        };
        if let Some(induced) = default::page_listing(fetcher, &resp, &page, &base).await? {
            return Ok(induced);
        }
    }
    let allowed: Vec<Form> = allowed.map_err(form_error)?.into_iter().cloned().collect();
    let (form, mut inputs) = surfaced_form(&allowed)
        .map(|f| (f, inputs_of(f, per_input.max(1), &seeds)))
        .ok_or_else(|| {
            form_error(
                "no form has an input to query (a select, radio group or checkboxes with two or more values, or a text field)"
                    .into(),
            )
        })?;
    let mut spec = Spec {
        url: resp.url.to_string(),
        form: (form.index > 0).then_some(FormRef::Index(form.index)),
        ..Spec::default()
    };
    let plan =
        probe_plan(&spec, form, &inputs[0], &resp.url, decoded.encoding).map_err(form_error)?;

    // A select filled by the answer to another's value: its tree's probes
    // (no request unless a select offers only a placeholder).
    let mut dependent = dependent::probe(fetcher, &resp, form, &inputs).await?;
    inputs.extend(dependent.as_ref().map(|d| d.input()));
    let (sent, answers, walked, mut site) = match dependent.as_mut() {
        Some(d) => {
            let sent = std::mem::take(&mut d.sent);
            let answers = choose::answers_rows(&sent)
                .map_err(|e| SurfaceError::Induce(e, resp.url.clone()))?;
            (sent, answers, Vec::new(), Vec::new())
        }
        None => {
            // 0. The default answer first: when it reaches every row, it
            // is the plan.
            let (already, walked) =
                match default_answer(fetcher, &plan, form, &inputs, &spec).await? {
                    DefaultAnswer::Whole(induced) => return Ok(*induced),
                    DefaultAnswer::Partial(sent, walked) => (sent, walked),
                };
            // 1. Probes, and 2. the rules with the rows of every answer.
            let (sent, answers, site) =
                send_all_probes(fetcher, &plan, form, &inputs, &resp.url, &page, already).await?;
            (sent, answers, walked, site)
        }
    };
    let Answers {
        distinct,
        rows,
        reason,
    } = answers;
    let nothing = |reason: &str, rows: &[BTreeSet<String>]| SurfaceError::Nothing {
        url: resp.url.clone(),
        reason: reason.to_string(),
        tried: tried(&inputs, &sent, rows),
    };
    if !reason.is_empty() {
        return Err(nothing(reason, &rows));
    }

    // 3. Inputs chosen by what they return.
    let verdicts = judge(&inputs, &sent, &rows);
    let chosen = match &dependent {
        Some(d) => d.chosen(&inputs),
        None => choose(&inputs, &verdicts, &sent, &rows),
    };
    let Some(chosen) = chosen else {
        return Err(nothing("no probe brought a row", &rows));
    };
    let probes: Vec<ProbeReport> = sent
        .iter()
        .zip(&rows)
        .map(|(s, r)| ProbeReport {
            values: s.values.clone(),
            rows: r.len(),
            status: s.status,
        })
        .collect();
    // A keyword search whose every record found a page of the site lists:
    // that list is read instead of learning words ([`index`]).
    if index::keyword_search(&inputs, &chosen) {
        if let Some(found) = index::site_index(&site, &sent, &rows, &page, &resp.url) {
            let at = site.swap_remove(found.at);
            let listed = index::plan(fetcher, &resp.url, at, found, &inputs, probes.clone());
            if let Some(induced) = listed.await? {
                return Ok(induced);
            }
        }
    }
    let reports = input_reports(&inputs, &verdicts, &chosen);
    write_template(&mut spec, &inputs, &chosen);

    // The rules again, on the answers with rows: those of the query
    // elements' probes and the form as it stands first.
    let training = training_answers(&sent, &rows, &distinct, &chosen);
    let pages: Vec<Page> = training.iter().map(|&i| sent[i].page.clone()).collect();
    let training_sent: Vec<&Sent> = training.iter().map(|&i| &sent[i]).collect();
    let mut induction = induce(&pages, Algorithm::Approximate)
        .map_err(|e| SurfaceError::Induce(e, resp.url.clone()))?;
    let named =
        match listed_records(&training_sent).filter(|r| r.splits(&induction, &training_sent)) {
            // The records every answer lists, read alone, where the template
            // of the answers splits their fields.
            Some(reader) => Named {
                unnamed: Vec::new(),
                samples: reader.write_results(&mut spec, &pages[0]),
                left_out: Vec::new(),
            },
            None => {
                // 4. and 5. Values without template words, names from the page.
                name_by_probes(&mut induction, form, &training_sent);
                write_results(&mut spec, &induction, form, &pages, &training_sent, &inputs)
            }
        };
    if spec.results.is_empty() {
        return Err(nothing("no rule reads the answers", &rows));
    }
    let answers = sent
        .into_iter()
        .filter_map(|s| s.answer)
        .chain(walked)
        .filter(|(_, a)| (200..300).contains(&a.status))
        .collect();
    Ok(InducedSpec {
        spec,
        probes,
        inputs: reports,
        unnamed: named.unnamed,
        samples: named.samples,
        answers,
        left_out: named.left_out,
        pages: dependent.map(|d| d.pages).unwrap_or_default(),
        page_listing: None,
    })
}

/// Every input of the form with the role the template chosen gives it,
/// and why.
fn input_reports(inputs: &[Input], verdicts: &[Verdict], chosen: &Chosen) -> Vec<InputReport> {
    let mut reports: Vec<InputReport> = inputs
        .iter()
        .zip(verdicts)
        .map(|(input, v)| InputReport {
            name: input.name.clone(),
            kind: input.kind,
            role: Role::Unused,
            why: v.why.clone(),
        })
        .collect();
    for &i in &chosen.query {
        reports[i].role = Role::Query;
        reports[i].why = match chosen.beside.iter().find(|(s, _)| *s == i) {
            Some((_, why)) => why.clone(),
            None => format!("{}; {}", chosen.why, reports[i].why),
        };
    }
    for &i in &chosen.refine {
        reports[i].role = Role::Refine;
        reports[i].why = format!(
            "narrows what {} gives; {}",
            names(inputs, &chosen.query),
            reports[i].why
        );
    }
    reports
}

/// Writes the template chosen into the spec: its query elements, their
/// domains, its refinement elements.
fn write_template(spec: &mut Spec, inputs: &[Input], chosen: &Chosen) {
    let query_names: Vec<String> = chosen
        .query
        .iter()
        .map(|&i| inputs[i].name.clone())
        .collect();
    if let [one] = query_names.as_slice() {
        spec.query_element = Some(one.clone());
    } else {
        spec.query_elements = Some(Values::List(query_names.clone()));
    }
    for (name, domain) in &chosen.domains {
        spec.domains.insert(name.clone(), domain.clone());
    }
    if !chosen.refine.is_empty() {
        spec.refine = Some(Values::List(
            chosen
                .refine
                .iter()
                .map(|&i| inputs[i].name.clone())
                .collect(),
        ));
    }
}

/// The answers the rules are induced on again: the distinct answers with
/// rows of the query elements' probes and the form as it stands; all the
/// distinct answers with rows when those are fewer than two; all the
/// distinct answers when even those are.
fn training_answers(
    sent: &[Sent],
    rows: &[BTreeSet<String>],
    distinct: &[usize],
    chosen: &Chosen,
) -> Vec<usize> {
    let with_rows: Vec<usize> = distinct
        .iter()
        .copied()
        .filter(|&i| !rows[i].is_empty())
        .collect();
    let mut training: Vec<usize> = with_rows
        .iter()
        .copied()
        .filter(|&i| sent[i].input.is_none_or(|k| chosen.query.contains(&k)))
        .collect();
    if training.len() < 2 {
        training = with_rows;
    }
    if training.len() >= 2 {
        training
    } else {
        distinct.to_vec()
    }
}

/// What naming the slots left: the slots without a name, every
/// attribute's first values, the lines left out as the answers' summary.
struct Named {
    unnamed: Vec<(String, Vec<String>)>,
    samples: Vec<(String, Vec<String>)>,
    left_out: Vec<String>,
}

/// Writes a result rule into the spec for every slot of the induction
/// that is not the answers' summary: its values without template words,
/// named from the probes, the form's choices or the page, else `slot_N`.
fn write_results(
    spec: &mut Spec,
    induction: &Induction,
    form: &Form,
    pages: &[Page],
    training_sent: &[&Sent],
    inputs: &[Input],
) -> Named {
    let mut used: Vec<String> = Vec::new();
    let mut named = Named {
        unnamed: Vec::new(),
        samples: Vec::new(),
        left_out: Vec::new(),
    };
    for (n, slot) in induction.slots.iter().enumerate() {
        if echoes_query(slot, training_sent, inputs) {
            let shown = slot.values.iter().flatten().next().cloned();
            named.left_out.push(shown.unwrap_or_default());
            continue;
        }
        if does_not_vary(slot) || states_total(slot, pages, training_sent) {
            let shown = slot.values.iter().flatten().next().cloned();
            named.left_out.push(shown.unwrap_or_default());
            continue;
        }
        let (slot, cut) = without_template_words(slot, pages);
        let name = slot
            .name
            .clone()
            .or_else(|| name_by_choices(form, &slot))
            .or_else(|| name_on_page(pages, &slot))
            .or_else(|| cut.as_deref().and_then(name_of_words))
            .map(|n| attribute_name(&n))
            .filter(|n| !n.is_empty());
        let name = match name {
            Some(name) => unique(name, &used),
            None => {
                let name = unique(format!("slot_{}", n + 1), &used);
                named.unnamed.push((name.clone(), slot.values[0].clone()));
                name
            }
        };
        used.push(name.clone());
        named.samples.push((
            name.clone(),
            slot.values.iter().flatten().take(5).cloned().collect(),
        ));
        spec.results.push(ResultItem {
            attribute: Some(name),
            rule: Some(slot.rule.clone()),
            ..ResultItem::default()
        });
    }
    named
}

/// The distinct answers, the rows of every answer, and why there are no
/// rows (empty when there are).
struct Answers {
    distinct: Vec<usize>,
    rows: Vec<BTreeSet<String>>,
    reason: &'static str,
}

/// What the probes of one input showed.
struct Verdict {
    informative: bool,
    /// Distinct non-empty row sets.
    variety: usize,
    /// Rows of all its answers.
    rows: usize,
    why: String,
}

/// The template chosen: query elements (with domains for text fields) and
/// refinement elements.
struct Chosen {
    query: Vec<usize>,
    refine: Vec<usize>,
    domains: Vec<(String, Values)>,
    why: String,
    /// Selects queried together with a text field, with why
    /// ([`beside_text`]).
    beside: Vec<(usize, String)>,
}

#[cfg(test)]
mod tests {
    use super::naming::common_words;
    use super::*;
    use crate::induce::Slot;

    fn owned(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    /// A slot of two answers, a value each.
    fn slot(rule: &str, values: [&str; 2]) -> Slot {
        Slot {
            name: None,
            rule: rule.into(),
            values: values.iter().map(|v| vec![v.to_string()]).collect(),
            precision: 1.0,
        }
    }

    #[test]
    fn template_words_in_front_are_cut_and_a_unit_at_the_end_stays() {
        let values = owned(&["Preis: 50-80 EUR", "Preis: bis 50 EUR", "Preis: 90 EUR"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Preis: ".to_string(), String::new()))
        );
        let values = owned(&[
            "Unterkünfte in der Region Rügen",
            "Unterkünfte in der Region Fischland-Darß-Zingst",
        ]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Unterkünfte in der Region ".to_string(), String::new()))
        );
        // Two words or more at the end are template too.
        let values = owned(&["12 films match here", "3 films match here"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(common_words(&refs), None, "nothing in front: no cut");
        let values = owned(&["Genre: Drama films listed", "Genre: Comedy films listed"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(
            common_words(&refs),
            Some(("Genre: ".to_string(), " films listed".to_string()))
        );
        // Values sharing only part of a word share no template word.
        let values = owned(&["1987", "1995"]);
        let refs: Vec<&String> = values.iter().collect();
        assert_eq!(common_words(&refs), None);
    }

    /// An answer of a search over cars laid out as Wagtail's project
    /// template lays out its search results: a title, then the page's
    /// search description as the text of the list item.
    fn cars_answer(cars: &[(&str, &str)]) -> Page {
        let items: String = cars
            .iter()
            .map(|(title, description)| {
                format!(
                    "<li>\n<h4><a href=\"/{}/\">{title}</a></h4>\n\n{description}\n\n</li>\n",
                    title.replace(' ', "-")
                )
            })
            .collect();
        Page::parse(&format!(
            "<html><body><h1>Search</h1><form action=\"/search/\" method=\"get\">\
             <input type=\"text\" name=\"query\"><input type=\"submit\" value=\"Search\"></form>\
             <ul>\n{items}</ul>\n<p>Page 1 of 1.</p></body></html>"
        ))
    }

    /// The slot of the induction over `pages` whose values hold `word`.
    fn slot_holding(pages: &[Page], word: &str) -> Slot {
        let induction = induce(pages, Algorithm::Approximate).unwrap();
        induction
            .slots
            .iter()
            .find(|s| s.values.iter().flatten().any(|v| v.contains(word)))
            .unwrap_or_else(|| panic!("no slot holds {word:?}: {:?}", induction.slots))
            .clone()
    }

    #[test]
    fn a_value_every_sampled_row_starts_with_is_data_not_template() {
        // Every row of the probes' answers is an American car: every
        // description starts "USA, ".
        let pages = [
            cars_answer(&[
                ("chevy s-10", "USA, 1982: 4 cylinders, 31 mpg"),
                ("chevrolet monte carlo s", "USA, 1973: 8 cylinders, 15 mpg"),
            ]),
            cars_answer(&[
                ("chevrolet impala", "USA, 1970: 8 cylinders, 14 mpg"),
                ("chevrolet vega", "USA, 1971: 4 cylinders, 22 mpg"),
                (
                    "chevrolet chevelle malibu",
                    "USA, 1970: 8 cylinders, 18 mpg",
                ),
            ]),
        ];
        let slot = slot_holding(&pages, "cylinders");
        assert!(slot.rule.contains("[*]"), "{}", slot.rule);
        let (kept, cut) = without_template_words(&slot, &pages);
        assert_eq!(cut, None, "{}", kept.rule);
        assert!(!kept.rule.contains("match/"), "{}", kept.rule);
        // The rule read on an answer the probes did not bring keeps every
        // description, the Japanese cars' too.
        let later = cars_answer(&[
            ("toyota corona", "Japan, 1974: 4 cylinders, 31 mpg"),
            ("chevrolet nova", "USA, 1975: 6 cylinders, 18 mpg"),
        ]);
        let rule = crate::hel::Rule::parse(&kept.rule).unwrap();
        assert_eq!(
            rule.eval(&later).flatten(),
            [
                "Japan, 1974: 4 cylinders, 31 mpg",
                "USA, 1975: 6 cylinders, 18 mpg"
            ]
        );
        // Nor is the attribute named after the words in front.
        assert_eq!(name_of_words("USA,"), None);
    }

    #[test]
    fn a_label_in_front_of_every_row_is_cut_and_names_the_attribute_but_its_end_stays() {
        // Every sampled company ends "& Co. KG": the label in front is
        // template, the words at the end are the sample's.
        let card = |company: &str, title: &str| {
            format!("<article><h3>{title}</h3><div><span>Company: {company}</span></div></article>")
        };
        let page = |cards: &[(&str, &str)]| {
            let cards: String = cards.iter().map(|(c, t)| card(c, t)).collect();
            Page::parse(&format!("<html><body><main>{cards}</main></body></html>"))
        };
        let pages = [
            page(&[
                ("Acme & Co. KG", "Analyst"),
                ("Initech & Co. KG", "Engineer"),
            ]),
            page(&[
                ("Globex & Co. KG", "Nurse"),
                ("Umbrella & Co. KG", "Chemist"),
                ("Hooli & Co. KG", "Clerk"),
            ]),
        ];
        let slot = slot_holding(&pages, "Globex");
        let (cut_slot, cut) = without_template_words(&slot, &pages);
        assert_eq!(cut.as_deref(), Some("Company:"));
        assert!(
            cut_slot.rule.contains("match/^Company: (.+?)$/"),
            "{}",
            cut_slot.rule
        );
        assert_eq!(
            cut_slot.values.concat(),
            [
                "Acme & Co. KG",
                "Initech & Co. KG",
                "Globex & Co. KG",
                "Umbrella & Co. KG",
                "Hooli & Co. KG"
            ]
        );
        assert_eq!(name_of_words("Company:").as_deref(), Some("Company"));
    }

    #[test]
    fn words_in_front_of_a_heading_on_every_answer_are_cut() {
        let page = |genre: &str, films: &[&str]| {
            let rows: String = films
                .iter()
                .map(|f| format!("<tr><td>{f}</td></tr>"))
                .collect();
            Page::parse(&format!(
                "<html><body><h2>Films filed under {genre}</h2><table>{rows}</table></body></html>"
            ))
        };
        let pages = [
            page("Drama", &["Vertigo", "Rebecca"]),
            page("Comedy", &["Playtime", "Mon Oncle", "Trafic"]),
            page("Western", &["Rio Bravo"]),
        ];
        let slot = slot_holding(&pages, "Films filed under");
        let (cut_slot, cut) = without_template_words(&slot, &pages);
        assert_eq!(cut.as_deref(), Some("Films filed under"));
        assert_eq!(cut_slot.values.concat(), ["Drama", "Comedy", "Western"]);
    }

    #[test]
    fn names_come_from_labels_and_capitalised_words_in_front() {
        assert_eq!(name_of_words("Verfasser:").as_deref(), Some("Verfasser"));
        assert_eq!(
            name_of_words("Unterkünfte in der Region").as_deref(),
            Some("Region")
        );
        assert_eq!(name_of_words("Films filed under"), None);
        assert_eq!(attribute_name("Preis pro Nacht"), "preis_pro_nacht");
        assert_eq!(attribute_name("Größe (m²):"), "groesse_m");
        assert_eq!(unique("ort".into(), &owned(&["ort", "ort_2"])), "ort_3");
    }

    fn sent(input: Option<usize>) -> Sent {
        Sent {
            input,
            values: Vec::new(),
            status: 200,
            body: Vec::new(),
            page: Page::parse("<html></html>"),
            answer: None,
        }
    }

    fn rows(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| v.to_string()).collect()
    }

    fn select(name: &str, any: bool) -> Input {
        Input {
            name: name.into(),
            kind: "select",
            probes: vec!["x".into()],
            choices: Vec::new(),
            more: Vec::new(),
            any,
            text: false,
        }
    }

    #[test]
    fn a_page_size_shows_more_of_the_same_and_a_filter_narrows() {
        let inputs = [select("per", false), select("decade", true)];
        let answers = [sent(None), sent(Some(0)), sent(Some(1))];
        let found = [rows(&["a", "b"]), rows(&["a", "b", "c", "d"]), rows(&["b"])];
        let verdicts = judge(&inputs, &answers, &found);
        assert!(!verdicts[0].informative, "{}", verdicts[0].why);
        assert!(verdicts[0].why.contains("more of the same rows"));
        assert!(verdicts[1].informative, "{}", verdicts[1].why);
    }

    #[test]
    fn selects_without_any_choice_are_queried_and_those_with_one_refine() {
        let mut region = select("region", false);
        region.choices = vec![Choice {
            value: "a".into(),
            label: "A".into(),
            selected: false,
        }];
        let mut price = select("preis", true);
        price.choices = ["", "1", "2"]
            .iter()
            .map(|v| Choice {
                value: v.to_string(),
                label: if v.is_empty() { "egal" } else { v }.to_string(),
                selected: v.is_empty(),
            })
            .collect();
        let inputs = [region, price];
        let answers = [sent(None), sent(Some(0)), sent(Some(1))];
        let found = [rows(&["a", "b"]), rows(&["c", "d"]), rows(&["a"])];
        let verdicts = judge(&inputs, &answers, &found);
        let chosen = choose(&inputs, &verdicts, &answers, &found).unwrap();
        assert_eq!(chosen.query, vec![0]);
        assert_eq!(chosen.refine, vec![1]);
        // Nothing brought a row: nothing is chosen.
        let empty = [rows(&[]), rows(&[]), rows(&[])];
        let verdicts = judge(&inputs, &answers, &empty);
        assert!(choose(&inputs, &verdicts, &answers, &empty).is_none());
    }

    fn page_forms(html: &str) -> Vec<Form> {
        let url = Url::parse("http://shop.example/").unwrap();
        forms(&Page::parse(html), &url, encoding_rs::UTF_8).unwrap()
    }

    #[test]
    fn the_search_form_is_picked_over_login_contact_and_newsletter_forms() {
        let html = r#"<html><body>
            <form action="/login" method="post"><input name="user"><input name="remember" type="text"><input type="password" name="pw"></form>
            <form action="/contact" method="post"><input name="name"><input name="subject"><textarea name="msg"></textarea></form>
            <form action="/news"><input name="your_email"><input name="first"></form>
            <form action="/catalogue"><input name="term"><button>Go</button></form>
            <form action="/find"><input type="search" name="q"></form>
            </body></html>"#;
        let all = page_forms(html);
        assert_eq!(all.len(), 5);
        // The one that calls itself a search (a search field) wins over
        // forms with more inputs that ask for a password, a message or an
        // e-mail address, and over a form that says nothing of a search.
        assert_eq!(surfaced_form(&all).map(|f| f.index), Some(4));
        assert_eq!(probed_inputs(&all[4]), vec![("q".to_string(), "text")]);
        // Without it, the plain form before the account and message forms.
        assert_eq!(surfaced_form(&all[..4]).map(|f| f.index), Some(3));
        // A login form alone is still the only form there is.
        assert_eq!(surfaced_form(&all[..1]).map(|f| f.index), Some(0));
    }

    #[test]
    fn a_line_repeating_the_query_words_around_a_count_is_the_answers_summary() {
        let inputs = [Input {
            name: "keywords".into(),
            kind: "text",
            probes: Vec::new(),
            choices: Vec::new(),
            more: Vec::new(),
            any: false,
            text: true,
        }];
        let with = |value: &str| Sent {
            values: vec![("keywords".into(), value.into())],
            ..sent(Some(0))
        };
        let answers = [with("analyst"), with("energy")];
        let refs: Vec<&Sent> = answers.iter().collect();
        let summary = slot(
            "html->p[0].txt",
            ["41 openings for “analyst”", "34 openings for “Energy”"],
        );
        assert!(echoes_query(&summary, &refs, &inputs));
        // The value itself (a heading naming what was asked) is data.
        let heading = slot("html->h2[0].txt", ["analyst", "energy"]);
        assert!(!echoes_query(&heading, &refs, &inputs));
        // A row rule is never the summary.
        let rows = slot(
            "html->article[*].h3.txt",
            ["Lead Data Analyst", "Energy Analyst"],
        );
        assert!(!echoes_query(&rows, &refs, &inputs));
    }

    #[test]
    fn a_line_stating_the_answers_total_is_the_answers_summary() {
        let url = Url::parse("http://quotes.test/Search.aspx").unwrap();
        let answer = |count: usize, author: &str| {
            let mut html = format!(
                "<html><body><p id=\"lblCount\">{count} quotations found (1–{count} of {count})</p><table>"
            );
            for i in 0..count {
                html.push_str(&format!(
                    "<tr><td>Quotation {i} of {author}, a line of its own</td><td>{author}</td></tr>"
                ));
            }
            html.push_str("</table><p>Ada Whitcombe's page</p></body></html>");
            let response = crate::fetch::Response {
                url: url.clone(),
                status: 200,
                content_type: Some("text/html".into()),
                body: html.clone().into_bytes(),
                attempts: 1,
                elapsed: std::time::Duration::ZERO,
            };
            let page = Page::parse(&html);
            Sent {
                page: page.clone(),
                answer: Some((Request::get(url.clone()), response)),
                ..sent(Some(0))
            }
        };
        let answers = [answer(2, "Ada Whitcombe"), answer(3, "Bo Lindqvist")];
        let refs: Vec<&Sent> = answers.iter().collect();
        let pages: Vec<Page> = answers.iter().map(|s| s.page.clone()).collect();
        let count = slot(
            "html->p[0].txt",
            [
                "2 quotations found (1–2 of 2)",
                "3 quotations found (1–3 of 3)",
            ],
        );
        assert!(states_total(&count, &pages, &refs));
        // A line beside it that states no total is data.
        let other = slot(
            "html->p[1].txt",
            ["Ada Whitcombe's page", "Ada Whitcombe's page"],
        );
        assert!(!states_total(&other, &pages, &refs));
        // A row rule is never the summary.
        let rows = slot(
            "html->table[0].tr[*].td[1].txt",
            ["Ada Whitcombe", "Bo Lindqvist"],
        );
        assert!(!states_total(&rows, &pages, &refs));
    }
}
