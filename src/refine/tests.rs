use super::*;
use crate::metadata::{Entry, Origin};
use crate::page::Page;

fn metadata(pairs: &[(&str, &str)]) -> Metadata {
    let entries: Vec<Entry> = pairs
        .iter()
        .map(|(n, v)| Entry {
            name: n.to_string(),
            value: v.to_string(),
            origin: Origin::MetaTag {
                page: "http://h.test/".into(),
                line: None,
            },
            hint: None,
        })
        .collect();
    Metadata::parse(&entries).unwrap()
}

const FORM: &str = r#"<form action="/s"><input type=radio name=region value=Nord checked>
<input type=radio name=region value=Sued>
<select name=preis><option value="" selected>alle Preise<option value=1>bis 50<option value=2>bis 100<option value=3>teuer</select>
<select name=sort><option value=name>Name<option value=ort>Ort</select>
<input name=q></form>"#;

fn form() -> Form {
    let url = url::Url::parse("http://h.test/").unwrap();
    crate::form::forms(&Page::parse(FORM), &url, encoding_rs::UTF_8)
        .unwrap()
        .remove(0)
}

fn answer(shown: u64) -> Answer {
    Answer {
        shown,
        ..Answer::default()
    }
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn a_region_is_split_by_the_price_it_leaves_open() {
    let md = metadata(&[("DB.QueryElement", "region")]);
    let refiner = Refiner::new(Some(&form()), &md);
    let parent = pairs(&[("region", "Nord")]);
    let children = refiner.children(&parent, &answer(50));
    assert_eq!(
        children,
        vec![
            pairs(&[("region", "Nord"), ("preis", "1")]),
            pairs(&[("region", "Nord"), ("preis", "2")]),
            pairs(&[("region", "Nord"), ("preis", "3")]),
        ]
    );
    // With the price fixed, no way is left: the sort select has no "any"
    // option and its default is a real value; the region is fixed.
    assert!(refiner.children(&children[0], &answer(50)).is_empty());
    // DB.Refine names the ways: without preis, nothing is left.
    let md = metadata(&[("DB.QueryElement", "region"), ("DB.Refine", "sort")]);
    assert!(Refiner::new(Some(&form()), &md)
        .children(&parent, &answer(50))
        .is_empty());
}

#[test]
fn a_prefix_grows_by_the_patterns_alphabet_and_the_space() {
    let md = metadata(&[("DB.QueryElement", "q"), ("DB.QueryElement.q", "/[A-C1]%/")]);
    let refiner = Refiner::new(None, &md);
    let got: Vec<String> = refiner
        .children(&pairs(&[("q", "B%")]), &answer(50))
        .into_iter()
        .map(|c| c[0].1.clone())
        .collect();
    assert_eq!(got, ["B", "B %", "B1%", "BA%", "BB%", "BC%"]);
}

#[test]
fn sorted_answers_skip_the_extensions_shown_whole() {
    let md = metadata(&[("DB.QueryElement", "q"), ("DB.QueryElement.q", "/[A-D]%/")]);
    let refiner = Refiner::new(None, &md);
    let shown = Answer {
        shown: 50,
        sorted: vec![Sorted {
            attribute: "title".into(),
            first: "Baal".into(),
            last: "Bcher".into(),
        }],
        ..Answer::default()
    };
    let got: Vec<String> = refiner
        .children(&pairs(&[("q", "B%")]), &shown)
        .into_iter()
        .map(|c| c[0].1.clone())
        .collect();
    // "B", "B ", "BA", "BB" sort before "BC…": all their hits were shown.
    assert_eq!(got, ["BC%", "BD%"]);
    // Values of another field tell nothing about the prefix.
    let other = Answer {
        sorted: vec![Sorted {
            attribute: "year".into(),
            first: "1901".into(),
            last: "1999".into(),
        }],
        ..shown
    };
    assert_eq!(refiner.children(&pairs(&[("q", "B%")]), &other).len(), 6);
}

#[test]
fn truncation_by_page_limit_count_cap_and_common_count() {
    let counted = Refiner::new(
        None,
        &metadata(&[
            ("DB.QueryElement", "q"),
            ("DB.ResultCount", "html.body.p[0].txt"),
            ("DB.MaxResults", "50"),
        ]),
    );
    let with_hits = |hits, shown| Answer {
        hits: Some(hits),
        shown,
        ..Answer::default()
    };
    let none = Census::default();
    assert_eq!(
        counted.truncation(&with_hits(312, 50), &none),
        Some(Truncation::MoreHits {
            hits: 312,
            shown: 50
        })
    );
    assert_eq!(counted.truncation(&with_hits(50, 50), &none), None);
    let capped = Refiner::new(
        None,
        &metadata(&[("DB.QueryElement", "q"), ("DB.MaxResults", "50")]),
    );
    assert_eq!(
        capped.truncation(&answer(50), &none),
        Some(Truncation::AtCap { cap: 50 })
    );
    assert_eq!(capped.truncation(&answer(49), &none), None);
    let paged = Answer {
        cut_short: true,
        ..answer(7)
    };
    assert_eq!(
        capped.truncation(&paged, &none),
        Some(Truncation::PageLimit)
    );
    // Without a count or a cap: three answers at the largest count.
    let silent = Refiner::new(None, &metadata(&[("DB.QueryElement", "q")]));
    let answers = [answer(20), answer(20), answer(7), answer(20)];
    let census = silent.census(&answers);
    assert_eq!(
        silent.truncation(&answer(20), &census),
        Some(Truncation::CommonCap { shown: 20 })
    );
    assert_eq!(silent.truncation(&answer(7), &census), None);
    let two = silent.census(&answers[..2]);
    assert_eq!(silent.truncation(&answer(20), &two), None);
    let told = capped.census(&answers);
    assert_eq!(told, Census::default(), "the provider told its cap");
    // The same count on every answer (a legend) is no cap.
    let same = silent.census(&[answer(20), answer(20), answer(20)]);
    assert_eq!(silent.truncation(&answer(20), &same), None);
}

#[test]
fn a_tally_counts_rows_and_keeps_the_sorted_fields() {
    let mut tally = AnswerTally::default();
    tally.hits(first_number(
        "Ihre Suche nach A% ergab 1.234 Treffer. Es werden nur die ersten 50 angezeigt",
    ));
    let list = |attribute: &str, values: &[&str]| {
        (
            attribute.to_string(),
            values.iter().map(|v| v.to_string()).collect::<Vec<_>>(),
        )
    };
    tally.page(&[
        list("title", &["Abend", "anker"]),
        list("year", &["1999", "1901"]),
    ]);
    tally.page(&[list("title", &["Axt"]), list("year", &[])]);
    let a = tally.answer();
    assert_eq!(a.hits, Some(1234));
    assert_eq!(a.shown, 3);
    assert_eq!(
        a.sorted,
        vec![Sorted {
            attribute: "title".into(),
            first: "Abend".into(),
            last: "Axt".into()
        }]
    );
    assert_eq!(first_number("12 von 3,456"), Some(12));
    assert_eq!(first_number("keine"), None);
}

fn counted(shown: u64, counts: &[(&str, u64)], stated: Vec<(String, u64)>) -> Answer {
    Answer {
        shown,
        counts: counts.iter().map(|(a, c)| (a.to_string(), *c)).collect(),
        stated,
        ..Answer::default()
    }
}

#[test]
fn a_cap_shows_in_any_one_rule_that_repeats_its_largest_count() {
    // 50 titles each, with one to three authors a title: the authors'
    // count never repeats, the titles' does.
    let silent = Refiner::new(None, &metadata(&[("DB.QueryElement", "q")]));
    let answers = [
        counted(50, &[("title", 50), ("author", 61)], vec![]),
        counted(50, &[("title", 50), ("author", 72)], vec![]),
        counted(31, &[("title", 31), ("author", 40)], vec![]),
        counted(50, &[("title", 50), ("author", 54)], vec![]),
    ];
    let census = silent.census(&answers);
    assert_eq!(
        silent.truncation(&answers[1], &census),
        Some(Truncation::CommonCap { shown: 50 })
    );
    assert_eq!(silent.truncation(&answers[2], &census), None);
}

#[test]
fn the_hit_count_is_the_stated_number_that_differs_and_exceeds_the_rows() {
    let silent = Refiner::new(None, &metadata(&[("DB.QueryElement", "q")]));
    let page = |shown: u64, hits: u64| {
        let text = format!(
            "Jobs in 2024 Showing 1\u{2013}{shown} of {} results page 1 of 3",
            if hits >= 1000 {
                format!("{},{:03}", hits / 1000, hits % 1000)
            } else {
                hits.to_string()
            }
        );
        counted(shown, &[], stated_numbers(&text))
    };
    let answers = [page(20, 1234), page(20, 57), page(12, 12), page(20, 20)];
    let census = silent.census(&answers);
    assert_eq!(
        silent.truncation(&answers[0], &census),
        Some(Truncation::MoreHits {
            hits: 1234,
            shown: 20
        })
    );
    assert_eq!(census.hits(&answers[1]), Some(57));
    assert_eq!(silent.truncation(&answers[2], &census), None);
    assert_eq!(silent.truncation(&answers[3], &census), None);
    // A number next to no word of counting is none.
    assert!(stated_numbers("Stand 2024, Seite 3").is_empty());
    assert_eq!(
        stated_numbers("Ihre Suche ergab 1.234 Treffer")
            .into_iter()
            .map(|(_, n)| n)
            .collect::<Vec<_>>(),
        vec![1234]
    );
}

#[test]
fn a_count_is_read_whatever_word_stands_before_it() {
    // The query's own word stands before the count, so every answer
    // words it differently; the noun after it is the same.
    let silent = Refiner::new(None, &metadata(&[("DB.QueryElement", "mots")]));
    let page = |word: &str, hits: u64| {
        let shown = hits.min(20);
        let count = if hits >= 1000 {
            format!("{}\u{202f}{:03}", hits / 1000, hits % 1000)
        } else {
            hits.to_string()
        };
        let text =
            format!("Accueil « {word} » : {count} résultats – les 20 moins chers Page 1 sur 1");
        counted(shown, &[], stated_numbers(&text))
    };
    let answers = [
        page("vélo", 1234),
        page("armoire", 57),
        page("lampe", 12),
        page("table", 20),
    ];
    let census = silent.census(&answers);
    assert_eq!(census.hits(&answers[0]), Some(1234));
    assert_eq!(census.hits(&answers[1]), Some(57));
    assert_eq!(
        silent.truncation(&answers[1], &census),
        Some(Truncation::MoreHits {
            hits: 57,
            shown: 20
        })
    );
    assert_eq!(silent.truncation(&answers[2], &census), None);
}

#[test]
fn an_open_text_field_named_like_an_attribute_takes_its_gathered_values() {
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.q", "html.body.ul.li[*].txt"),
    ]);
    let mut refiner = Refiner::new(Some(&form()), &md);
    // preis first; q only once no select is left open.
    let parent = pairs(&[("region", "Nord"), ("preis", "2")]);
    assert_eq!(refiner.children(&parent, &answer(50)), Vec::<Vec<_>>::new());
    assert_eq!(refiner.text_attributes(), vec!["q"]);
    refiner.gathered("q", vec!["Binz".into(), "Baabe".into(), "Binz".into()]);
    assert_eq!(
        refiner.children(&parent, &answer(50)),
        vec![
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "Baabe")]),
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "Binz")]),
        ]
    );
    // Without an attribute of its name, a text field refines nothing.
    let other = Refiner::new(Some(&form()), &metadata(&[("DB.QueryElement", "region")]));
    assert!(other.text_attributes().is_empty());
}

#[test]
fn a_heading_counted_once_a_page_betrays_no_cap() {
    // Answers of one or two pages, each page with one heading: the
    // heading's count is the number of pages, not a cap on the rows.
    let silent = Refiner::new(None, &metadata(&[("DB.QueryElement", "q")]));
    let walk = |pages: u64, rows: u64| Answer {
        shown: rows,
        pages,
        counts: vec![("section".into(), pages), ("name".into(), rows)],
        ..Answer::default()
    };
    let answers = [walk(2, 9), walk(2, 12), walk(2, 10), walk(1, 3), walk(1, 8)];
    let census = silent.census(&answers);
    assert!(census.caps.is_empty(), "{census:?}");
    assert_eq!(silent.truncation(&walk(2, 9), &census), None);
}

#[test]
fn an_open_text_field_is_refined_by_prefixes_once_a_wildcard_is_seen_to_narrow() {
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.q", "html.body.ul.li[*].txt"),
    ]);
    let mut refiner = Refiner::new(Some(&form()), &md);
    refiner.gathered("q", vec!["Binz".into(), "Baabe".into(), "Sellin".into()]);
    let parent = pairs(&[("region", "Nord"), ("preis", "2")]);
    // Probed with a letter the query is known to find, once per wildcard.
    assert_eq!(
        refiner.wildcard_probes(&parent, 'B'),
        vec![
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "B%")]),
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "B*")]),
        ]
    );
    // A probe that shows rows and fewer hits than its parent narrows; one
    // without rows, or with the parent's hits, does not; a query of a
    // whole value is no probe.
    let probe = pairs(&[("region", "Nord"), ("preis", "2"), ("q", "B*")]);
    assert_eq!(
        refiner.probe_result(&probe, &answer(7), Some(40), Some(7)),
        Some(('*', true))
    );
    assert_eq!(
        refiner.probe_result(&probe, &answer(0), Some(40), Some(0)),
        Some(('*', false))
    );
    assert_eq!(
        refiner.probe_result(&probe, &answer(30), Some(40), Some(40)),
        Some(('*', false))
    );
    let exact = pairs(&[("region", "Nord"), ("preis", "2"), ("q", "Binz")]);
    assert_eq!(refiner.probe_result(&exact, &answer(3), None, None), None);
    // First letters: every letter A–Z (and any other a gathered value
    // starts with); then the characters gathered values hold next.
    let first = refiner.text_prefixes(&parent, '*');
    assert_eq!(first.len(), 26);
    assert_eq!(first[1][2], ("q".to_string(), "B*".to_string()));
    assert_eq!(
        refiner.text_prefixes(&probe, '*'),
        vec![
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "Ba*")]),
            pairs(&[("region", "Nord"), ("preis", "2"), ("q", "Bi*")]),
        ]
    );
    // A whole value is no prefix to extend.
    assert!(refiner.text_prefixes(&exact, '*').is_empty());
}

#[test]
fn a_query_a_split_or_prefix_refines_whatever_it_shows_is_refined_at_once() {
    let md = metadata(&[("DB.QueryElement", "region")]);
    let splits = Refiner::new(Some(&form()), &md).splits();
    // The price is left open ("alle Preise"): the region is split by it.
    assert!(splits.applies(&pairs(&[("region", "Nord")])));
    assert!(splits.applies(&pairs(&[("region", "Nord"), ("preis", "")])));
    // Every select set: nothing left to split by.
    assert!(!splits.applies(&pairs(&[
        ("region", "Nord"),
        ("preis", "2"),
        ("sort", "ort")
    ])));
    let md = metadata(&[
        ("DB.QueryElement", "q"),
        ("DB.QueryElement.q", "/[A-C]%/"),
        ("DB.Refine", "q"),
    ]);
    let splits = Refiner::new(None, &md).splits();
    assert!(splits.applies(&pairs(&[("q", "A%")])));
    assert!(!splits.applies(&pairs(&[("q", "A")])));
    // A text field first: its values depend on what was gathered, so
    // nothing is decided before the answers are in.
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.q", "html.body.p[*].txt"),
        ("DB.Refine", "q, preis"),
    ]);
    let refiner = Refiner::new(Some(&form()), &md);
    assert_eq!(refiner.text_attributes(), vec!["q"]);
    assert!(!refiner.splits().applies(&pairs(&[("region", "Nord")])));
    // The shared plan keeps them as JSON.
    let json = serde_json::to_string(&refiner.splits()).unwrap();
    assert_eq!(
        serde_json::from_str::<Splits>(&json).unwrap(),
        refiner.splits()
    );
}

#[test]
fn a_walk_stopped_after_its_first_page_counts_as_the_page_limit_would_end_it() {
    let refiner = Refiner::new(None, &metadata(&[("DB.QueryElement", "region")]));
    // Ten rows a page, DB.MaxPages 4: walks cut by the limit show 40.
    let mut tally = AnswerTally::default();
    tally.page(&[("nr".to_string(), (0..10).map(|n| n.to_string()).collect())]);
    tally.early(4);
    let early = tally.answer();
    assert!(early.cut_short);
    assert_eq!((early.shown, early.pages, early.early), (10, 1, 4));
    assert_eq!(
        refiner.truncation(&early, &Census::default()),
        Some(Truncation::PageLimit)
    );
    let whole = |n: u64| counted(n, &[("nr", n)], Vec::new());
    let answers = [
        early.clone(),
        early.clone(),
        early,
        whole(40),
        whole(12),
        whole(7),
    ];
    let census = refiner.census(&answers);
    // They betray the common count of 40 rows as three walks cut by the
    // limit would have: the walk that read 40 rows may be cut too.
    assert_eq!(
        refiner.truncation(&whole(40), &census),
        Some(Truncation::CommonCap { shown: 40 })
    );
    assert_eq!(refiner.truncation(&whole(12), &census), None);
    assert!(refiner.judged(&whole(7), &census));
}

#[test]
fn a_stated_hit_count_chooses_the_split_expected_to_cost_the_fewest_queries() {
    let html = r#"<form action="/s"><select name=subject><option value=fic>Fiction<option value=his>History</select>
<select name=format><option value="">Any format<option value=pb>Paperback<option value=hc>Hardcover<option value=au>Audio<option value=eb>E-book</select>
<select name=decade><option value="">Any decade<option value=1>1<option value=2>2<option value=3>3<option value=4>4<option value=5>5<option value=6>6<option value=7>7<option value=8>8<option value=9>9<option value=10>10</select></form>"#;
    let url = url::Url::parse("http://h.test/").unwrap();
    let form = crate::form::forms(&Page::parse(html), &url, encoding_rs::UTF_8)
        .unwrap()
        .remove(0);
    let refiner = Refiner::new(Some(&form), &metadata(&[("DB.QueryElement", "subject")]));
    let parent = pairs(&[("subject", "his")]);
    let split_by = |answer: &Answer| {
        let children = refiner.children(&parent, answer);
        (children.len(), children[0][1].0.clone())
    };
    let capped = |hits: Option<u64>| Answer { hits, ..answer(50) };
    // 270 hits under a cap of 50: 10 decades of 27 are whole at once; 4
    // formats of 67 would each be split again.
    assert_eq!(split_by(&capped(Some(270))), (10, "decade".to_string()));
    // 520 hits: decades of 52 would each need the 4 formats (50 queries),
    // formats of 130 each the 10 decades (44).
    assert_eq!(split_by(&capped(Some(520))), (4, "format".to_string()));
    // 150 hits: 4 formats of 38 are whole.
    assert_eq!(split_by(&capped(Some(150))), (4, "format".to_string()));
    // Without a hit count, the form's order.
    assert_eq!(split_by(&capped(None)), (4, "format".to_string()));
    // DB.Refine's order is kept.
    let ordered = Refiner::new(
        Some(&form),
        &metadata(&[
            ("DB.QueryElement", "subject"),
            ("DB.Refine", "format, decade"),
        ]),
    );
    assert_eq!(ordered.children(&parent, &capped(Some(270))).len(), 4);
}

#[test]
fn a_capped_prefix_whose_rows_whole_exact_answers_hold_is_covered() {
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.q", "html.body.ul.li[*].txt"),
    ]);
    let refiner = Refiner::new(Some(&form()), &md);
    let prefix = pairs(&[("region", "Nord"), ("preis", ""), ("q", "B*")]);
    let exact = |region: &str, preis: &str, q: &str, hits: u64| {
        (
            pairs(&[("region", region), ("preis", preis), ("q", q)]),
            hits,
        )
    };
    // Binz under each price, Baabe under one: 14 rows starting with B.
    // Sellin starts otherwise, Bansin is in another region.
    let mut whole = vec![
        exact("Nord", "1", "Binz", 4),
        exact("Nord", "2", "Binz", 5),
        exact("Nord", "3", "Binz", 3),
        exact("Nord", "1", "Baabe", 2),
        exact("Nord", "2", "Sellin", 9),
        exact("Sued", "1", "Bansin", 7),
    ];
    assert!(refiner.prefix_covered(&prefix, '*', 14, &whole));
    assert!(!refiner.prefix_covered(&prefix, '*', 15, &whole));
    // The same prefix under one price holds only that price's rows.
    let narrower = pairs(&[("region", "Nord"), ("preis", "1"), ("q", "b*")]);
    assert!(refiner.prefix_covered(&narrower, '*', 6, &whole));
    assert!(!refiner.prefix_covered(&narrower, '*', 7, &whole));
    // Binz with every price overlaps Binz under one price: the larger
    // counts, not the sum.
    whole.push(exact("Nord", "", "Binz", 12));
    assert!(refiner.prefix_covered(&prefix, '*', 14, &whole));
    assert!(!refiner.prefix_covered(&prefix, '*', 15, &whole));
    // Not a prefix: nothing to cover.
    assert!(!refiner.prefix_covered(&pairs(&[("region", "Nord"), ("q", "Binz")]), '*', 1, &whole));
}

#[test]
fn a_capped_prefix_is_split_by_a_select_left_open_unless_prefixes_are_expected_cheaper() {
    let md = metadata(&[
        ("DB.QueryElement", "region"),
        ("DB.Result.q", "html.body.ul.li[*].txt"),
    ]);
    let refiner = Refiner::new(Some(&form()), &md);
    let prefix = pairs(&[("region", "Nord"), ("q", "B*")]);
    let capped = |hits: Option<u64>| Answer {
        hits,
        shown: 15,
        ..Answer::default()
    };
    let by_price = vec![
        pairs(&[("region", "Nord"), ("q", "B*"), ("preis", "1")]),
        pairs(&[("region", "Nord"), ("q", "B*"), ("preis", "2")]),
        pairs(&[("region", "Nord"), ("q", "B*"), ("preis", "3")]),
    ];
    // 40 hits: three prices make it whole at once, letters take 26.
    assert!(refiner.leaves_select_open(&prefix));
    assert_eq!(
        refiner.split_before_prefixes(&prefix, &capped(Some(40)), 2),
        Some(by_price.clone())
    );
    // 300 hits: letters make it whole at once (26), each price would need
    // every letter too (3 + 3 x 26).
    assert_eq!(
        refiner.split_before_prefixes(&prefix, &capped(Some(300)), 2),
        None
    );
    // No hit count: the select, whose values partition the answer.
    assert_eq!(
        refiner.split_before_prefixes(&prefix, &capped(None), 2),
        Some(by_price)
    );
    // No select left open.
    let fixed = pairs(&[("region", "Nord"), ("preis", "2"), ("q", "B*")]);
    assert!(!refiner.leaves_select_open(&fixed));
    assert_eq!(
        refiner.split_before_prefixes(&fixed, &capped(Some(40)), 2),
        None
    );
}

#[test]
fn values_are_compared_for_order_as_their_upper_case() {
    let values = [
        "", "a", "A", "ab", "aB", "Ab", "b", "ß", "SS", "ss", "st", "Straße", "STRASSE", "strasse",
        "ǆ", "Ǆ", "ﬀ", "FF", "ı", "I", "i", "Ärger", "ärger", "Zug", "zz", "ς", "Σ", "σ",
    ];
    for a in values {
        for b in values {
            assert_eq!(
                folded_le(a, b),
                fold(a) <= fold(b),
                "{a:?} <= {b:?} case folded"
            );
        }
    }
}
