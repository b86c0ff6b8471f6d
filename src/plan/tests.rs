use super::*;
use crate::form::forms;
use crate::metadata::{Entry, Metadata};
use crate::page::Page;
use encoding_rs::{UTF_8, WINDOWS_1252};

fn page() -> Url {
    Url::parse("http://cityworld.test/hotels/").unwrap()
}

fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    let entries: Vec<Entry> = pairs
        .iter()
        .enumerate()
        .map(|(i, (n, v))| Entry {
            name: n.to_string(),
            value: v.to_string(),
            origin: Origin::ConfigLine {
                file: "test.txt".into(),
                line: i + 1,
            },
            hint: None,
        })
        .collect();
    Metadata::parse(&entries).unwrap()
}

fn form(html: &str) -> Form {
    forms(&Page::parse(html), &page(), UTF_8).unwrap().remove(0)
}

const FORM: &str = r#"<form action="suche.pl">
  <input type=hidden name=lang value=de>
  <select name=region><option>Fischland<option>Rügen<option>Usedom<option>Müritz</select>
  <input type=radio name=preis value=1 checked><input type=radio name=preis value=2><input type=radio name=preis value=3>
  <input type=checkbox name=fr value=ja><input type=checkbox name=fr value=nein>
  <input name=ort value="">
  <input type=submit value=Los><input type=submit name=b value=B>
</form>"#;

#[test]
fn three_elements_give_the_cartesian_product_in_a_stable_order() {
    let md = metadata(&[("DB.QueryElements", "region, preis, fr")]);
    let f = form(FORM);
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).unwrap();
    assert_eq!((plan.total(), plan.len()), (24, 24));
    assert!(!plan.cut_short());
    let qs: Vec<Query> = plan.queries().collect();
    assert_eq!(qs.len(), 24);
    let vals = |q: &Query| {
        q.values
            .iter()
            .map(|(_, v)| v.as_str())
            .collect::<Vec<_>>()
            .join("|")
    };
    assert_eq!(vals(&qs[0]), "Fischland|1|ja");
    assert_eq!(vals(&qs[1]), "Fischland|1|nein");
    assert_eq!(vals(&qs[2]), "Fischland|2|ja");
    assert_eq!(vals(&qs[23]), "Müritz|3|nein");
    // Non-query elements at their defaults; the unnamed first submit sends nothing.
    assert_eq!(
        qs[0].request.url.as_str(),
        "http://cityworld.test/hotels/suche.pl?lang=de&region=Fischland&preis=1&fr=ja&ort="
    );
    // Same plan, same queries and keys.
    let again = QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).unwrap();
    let keys: Vec<String> = again.queries().map(|q| q.key()).collect();
    assert_eq!(keys, qs.iter().map(Query::key).collect::<Vec<_>>());
    let mut unique = keys.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 24);
}

#[test]
fn a_named_first_submit_button_is_sent_and_query_values_replace_defaults() {
    let f = form(
        r#"<form method=post action="/q"><input name=ort><input type=submit name=go value="Suchen"><input type=submit name=no value=x></form>"#,
    );
    let md = metadata(&[
        ("DB.QueryElement", "ort"),
        ("DB.QueryElement.ort", "/[A-Z]%/"),
    ]);
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).unwrap();
    assert_eq!(plan.len(), 26);
    let last = plan.query(25).unwrap();
    assert_eq!(last.values, [("ort".to_string(), "Z%".to_string())]);
    assert_eq!(last.request.method, Method::Post);
    assert_eq!(last.request.url.as_str(), "http://cityworld.test/q");
    assert_eq!(
        last.request.body.as_deref(),
        Some(&b"ort=Z%25&go=Suchen"[..])
    );
}

#[test]
fn listed_values_replace_a_determined_domain() {
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.QueryElement.region", "Fischland, \"Rügen, Hiddensee\""),
    ]);
    let plan = QueryPlan::build(Some(&form(FORM)), &md, &page(), WINDOWS_1252, None).unwrap();
    let values: Vec<String> = plan.queries().map(|q| q.values[0].1.clone()).collect();
    assert_eq!(values, ["Fischland", "Rügen, Hiddensee"]);
}

#[test]
fn caps_take_the_smaller_limit_and_report_being_cut_short() {
    let f = form(FORM);
    let md = metadata(&[
        ("DB.QueryElements", "region, preis, fr"),
        ("DB.MaxQueries", "10"),
    ]);
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, Some(50)).unwrap();
    assert_eq!((plan.len(), plan.total()), (10, 24));
    assert!(plan.cut_short());
    assert_eq!(plan.cap().by, CapSource::Provider);
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, Some(3)).unwrap();
    assert_eq!(plan.len(), 3);
    assert_eq!(plan.cap().by, CapSource::User);
    assert_eq!(plan.queries().count(), 3);
}

#[test]
fn a_billion_queries_are_counted_not_built() {
    let f = form(r#"<form><input name=a><input name=b></form>"#);
    let md = metadata(&[
        ("DB.QueryElements", "a, b"),
        ("DB.QueryElement.a", "/[0-9]{5}/"),
        ("DB.QueryElement.b", "/[0-9]{4}/"),
    ]);
    // Past the default limit unless the user raises it.
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).unwrap();
    assert_eq!(
        (plan.len(), plan.total()),
        (DEFAULT_MAX_QUERIES, 1_000_000_000)
    );
    assert_eq!(plan.cap().by, CapSource::Default);
    assert!(plan.cut_short());
    let plan = QueryPlan::build(Some(&f), &md, &page(), UTF_8, Some(1_000_000_000)).unwrap();
    assert_eq!(plan.len(), 1_000_000_000);
    assert!(!plan.cut_short());
    let last = plan.query(999_999_999).unwrap();
    assert_eq!(last.request.url.query(), Some("a=99999&b=9999"));
    let q = plan.query(123_456_789).unwrap();
    assert_eq!(q.request.url.query(), Some("a=12345&b=6789"));
    assert_eq!(plan.queries().nth(5).unwrap().ordinal, 5);
}

#[test]
fn problems_are_all_reported() {
    let f = form(FORM);
    let md = metadata(&[
        ("DB.QueryElements", "region, stadt, ort, lang"),
        ("DB.MaxQueries", "5"),
        ("DB.QueryElement.lang", "/[a-z]{2}/"),
        ("DB.QueryElement.fr", "ja"),
    ]);
    let problems = QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).unwrap_err();
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    assert_eq!(problems.len(), 4, "{text:#?}");
    assert!(
        matches!(&problems[3].error, PlanError::NotAQueryElement { element, .. } if element == "fr")
    );
    assert!(matches!(
        problems[0].error,
        PlanError::UnknownElement { .. }
    ));
    assert!(
        text[0].contains("\"stadt\"") && text[0].contains("test.txt line 1"),
        "{}",
        text[0]
    );
    assert!(matches!(
        problems[1].error,
        PlanError::Undetermined {
            kind: "text field",
            ..
        }
    ));
    assert!(matches!(
        problems[2].error,
        PlanError::PatternTooLarge { count: 676, .. }
    ));
    assert!(
        text[2].contains("test.txt line 3") && text[2].contains("DB.MaxQueries 5"),
        "{}",
        text[2]
    );
}

#[test]
fn query_script_replaces_action_and_method() {
    let md = metadata(&[
        ("DB.QueryScript", "/cgi-bin/einfach.pl, POST"),
        ("DB.QueryElement", "region"),
    ]);
    let plan = QueryPlan::build(Some(&form(FORM)), &md, &page(), UTF_8, None).unwrap();
    let q = plan.query(0).unwrap();
    assert_eq!(q.request.method, Method::Post);
    assert_eq!(
        q.request.url.as_str(),
        "http://cityworld.test/cgi-bin/einfach.pl"
    );
    // Without a form, the script and the listed values are enough.
    let md = metadata(&[
        ("DB.QueryScript", "http://db.test/q"),
        ("DB.QueryElements", "r, p"),
        ("DB.QueryElement.r", "a, b"),
        ("DB.QueryElement.p", "/[12]/"),
    ]);
    let plan = QueryPlan::build(None, &md, &page(), UTF_8, None).unwrap();
    let urls: Vec<String> = plan.queries().map(|q| q.request.url.to_string()).collect();
    assert_eq!(
        urls,
        [
            "http://db.test/q?r=a&p=1",
            "http://db.test/q?r=a&p=2",
            "http://db.test/q?r=b&p=1",
            "http://db.test/q?r=b&p=2"
        ]
    );
    let md = metadata(&[("DB.QueryElement", "r")]);
    assert!(matches!(
        QueryPlan::build(None, &md, &page(), UTF_8, None).unwrap_err()[0].error,
        PlanError::NoForm { .. }
    ));
}

#[test]
fn no_query_elements_send_the_form_once_at_its_defaults() {
    let plan = QueryPlan::build(
        Some(&form(FORM)),
        &Metadata::default(),
        &page(),
        UTF_8,
        None,
    )
    .unwrap();
    assert_eq!(plan.len(), 1);
    assert_eq!(
        plan.query(0).unwrap().request.url.query(),
        Some("lang=de&region=Fischland&preis=1&ort=")
    );
}

#[test]
fn a_script_action_needs_a_query_script() {
    let f = form(r#"<form action="javascript:search()"><input name=q></form>"#);
    let problems =
        QueryPlan::build(Some(&f), &Metadata::default(), &page(), UTF_8, None).unwrap_err();
    assert!(
        problems[0].to_string().contains("javascript:search()"),
        "{}",
        problems[0]
    );
    let md = metadata(&[("DB.QueryScript", "/cgi-bin/q.pl")]);
    assert!(QueryPlan::build(Some(&f), &md, &page(), UTF_8, None).is_ok());
}

#[test]
fn six_selects_of_a_hundred_options_are_cut_to_the_default_limit() {
    let select = |name: &str| {
        let options: String = (0..100).map(|i| format!("<option>{i}</option>")).collect();
        format!("<select name={name}>{options}</select>")
    };
    let names = ["a", "b", "c", "d", "e", "f"];
    let html = format!(
        "<form>{}</form>",
        names.iter().map(|n| select(n)).collect::<String>()
    );
    let md = metadata(&[("DB.QueryElements", &names.join(", "))]);
    let plan = QueryPlan::build(Some(&form(&html)), &md, &page(), UTF_8, None).unwrap();
    assert_eq!(plan.total(), 1_000_000_000_000);
    assert_eq!(plan.len(), DEFAULT_MAX_QUERIES);
    assert_eq!(plan.queries().count() as u64, DEFAULT_MAX_QUERIES);
}

#[test]
fn an_answer_is_taken_again_for_its_address_with_or_without_an_empty_query() {
    let get = |u: &str| Request::get(url::Url::parse(u).unwrap());
    assert_eq!(
        answer_key(&get("http://h/all?")),
        answer_key(&get("http://h/all"))
    );
    assert_ne!(
        answer_key(&get("http://h/all?page=2")),
        answer_key(&get("http://h/all"))
    );
    // The query's own key, stored across runs, is not changed.
    assert_ne!(
        request_key(&get("http://h/all?")),
        request_key(&get("http://h/all"))
    );
    assert_eq!(
        answer_key(&get("http://h/all?page=2")),
        request_key(&get("http://h/all?page=2"))
    );
}
