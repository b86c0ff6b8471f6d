use super::*;

fn url() -> Url {
    Url::parse("http://h/list?q=1").unwrap()
}

const HOTELS: &str = "<html><body><p><a href=/>Home</a> <a href=/about>About</a></p>\
<p>Ihre Suche: alle Orte.<br>5 Hotels und Pensionen gefunden.</p>\
<form><table><tr><th>Anfrage</th><th>Hotel / Pension</th><th>Preis pro Nacht</th></tr>\
<tr><td></td><td><font color=#FF8000>Baabe</font></td></tr>\
<tr><td><small><input type=checkbox name=hotel_id value=39></small></td><td><b>Granitz</b><br>Fischerweg 1, Baabe</td><td>55 DM</td></tr>\
<tr><td><small><input type=checkbox name=hotel_id value=31></small></td><td><b>Villa Baabe</b><br>Wilhelmstr. 1, Baabe</td><td>140 DM</td></tr>\
<tr><td></td><td><font color=#FF8000>Binz</font></td></tr>\
<tr><td><small><input type=checkbox name=hotel_id value=49></small></td><td><b>Mönchgut</b><br>Wilhelmstr. 28, Binz</td><td>55 DM</td></tr>\
<tr><td><small><input type=checkbox name=hotel_id value=15></small></td><td><b>Jasmund</b><br>Hauptstr. 1, Binz</td><td>120 DM</td></tr>\
<tr><td><small><input type=checkbox name=hotel_id value=16></small></td><td><b>Rügen</b><br>Hauptstr. 2, Binz</td><td>180 DM</td></tr>\
</table></form><p>Seite: <b>1</b> <a href='?q=1&p=2'>2</a> <a href='?q=1&p=3'>3</a> <a href='?q=1&p=2'>weiter</a></p></body></html>";

#[test]
fn table_rows_under_header_rows_are_records_named_by_the_table_header() {
    let page = Page::parse(HOTELS);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a data region");
    assert_eq!(main.records.len(), 5);
    let names: Vec<&str> = main.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["hotel_pension", "hotel_pension_2", "preis_pro_nacht"]
    );
    let rules = listing.rules(&page).expect("rules");
    assert_eq!(rules.prefix, "html.body.form.table.");
    let records = listing.records(&page, &url());
    assert_eq!(records.len(), 5, "{}\n{records:?}", rules.to_yaml());
    let first = &records[0].fields;
    assert_eq!(first.get("hotel_pension").unwrap().values(), ["Granitz"]);
    assert_eq!(first.get("preis_pro_nacht").unwrap().values(), ["55 DM"]);
    assert_eq!(first.get("heading").unwrap().values(), ["Baabe"]);
    assert_eq!(records[4].fields.get("heading").unwrap().values(), ["Binz"]);
    let total = listing.total.expect("a total");
    assert_eq!((total.count, total.kind), (5, TotalKind::Records));
    assert_eq!(
        listing.pager.next.unwrap().as_str(),
        "http://h/list?q=1&p=2"
    );
}

#[test]
fn cards_are_named_by_their_labels_and_classes_and_menus_are_navigation() {
    let card = |n: usize| {
        format!(
            "<div class=card><h3 class=title><a href=/p/{n}>Product {n}</a></h3>\
             <p>Price: <span class=amount>{n}.99 €</span></p><span itemprop=brand>Acme {n}</span></div>"
        )
    };
    let cards: String = (1..=4).map(card).collect();
    let html = format!(
        "<body><nav><ul><li><a href=/a>Shoes</a></li><li><a href=/b>Hats</a></li><li><a href=/c>Bags</a></li></ul></nav>\
         <div class=results>{cards}</div><footer><p>Showing 1-4 of 57 products</p></footer></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().unwrap();
    assert_eq!(main.records.len(), 4);
    let names: Vec<&str> = main.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["title", "price", "brand"]);
    assert_eq!(main.values[1][1].as_deref(), Some("2.99 €"));
    assert!(listing
        .regions
        .iter()
        .any(|r| r.kind == RegionKind::Navigation && r.records.len() == 3));
    let total = listing.total.clone().unwrap();
    assert_eq!((total.count, total.shown), (57, Some((1, 4))));
    let records = listing.records(&page, &url());
    assert_eq!(records.len(), 4);
    assert_eq!(records[3].fields.get("brand").unwrap().values(), ["Acme 4"]);
}

#[test]
fn a_record_of_two_alternating_rows_is_one_record() {
    let rows: String = (1..=3)
        .map(|n| {
            format!(
                "<tr class=athing><td>{n}.</td><td><a href=/i/{n}>Story number {n}</a></td></tr>\
                 <tr><td></td><td><span>{n}0 points</span> by user{n}</td></tr>"
            )
        })
        .collect();
    let page = Page::parse(&format!("<body><table>{rows}</table></body>"));
    let listing = Listing::read(&page, &url());
    let main = listing.main().unwrap();
    assert_eq!(main.records.len(), 3);
    assert_eq!(main.records[0].len(), 2);
    assert_eq!(
        main.record_text(&page, 2),
        "3. Story number 3 30 points by user3"
    );
}

#[test]
fn a_frame_around_lists_gives_way_to_the_lists() {
    let section = |s: usize| {
        let items: String = (1..=5)
            .map(|i| format!("<li><a href=/{s}/{i}>Item {s}-{i} with a longer name</a> <span>{i} €</span></li>"))
            .collect();
        format!("<section><h2>S{s}</h2><ul>{items}</ul></section>")
    };
    let html = format!("<body><div>{}{}</div></body>", section(1), section(2));
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let data: Vec<&Region> = listing.data().collect();
    assert_eq!(
        data.len(),
        2,
        "{:?}",
        data.iter().map(|r| r.records.len()).collect::<Vec<_>>()
    );
    assert!(data.iter().all(|r| r.records.len() == 5));
}

#[test]
fn a_list_in_a_table_laid_out_in_a_cell_of_another_is_found() {
    // A news page laid out in nested tables: the stories are the rows of
    // a table that sits in a cell of the page's own layout table.
    let rows: String = (1..=4)
        .map(|n| {
            format!(
                "<tr class=athing><td>{n}.</td><td><a href=/i/{n}>Story number {n} about tables</a></td></tr>\
                 <tr><td></td><td><span>{n}0 points</span> by user{n} | <a href=/c/{n}>{n} comments</a></td></tr>\
                 <tr class=spacer style=height:5px></tr>"
            )
        })
        .collect();
    let html = format!(
        "<body><center><table id=main><tr><td><b>News</b> <a href=/new>new</a> | <a href=/ask>ask</a></td></tr>\
         <tr><td><table>{rows}</table></td></tr>\
         <tr><td><a href=/faq>FAQ</a> | <a href=/contact>Contact</a></td></tr></table></center></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a data region");
    assert_eq!(main.records.len(), 4);
    assert_eq!(
        main.record_text(&page, 3),
        "4. Story number 4 about tables 40 points by user4 | 4 comments"
    );
}

#[test]
fn cards_that_each_hold_two_alike_blocks_are_the_records() {
    // Product rows of a shop, each with its price now and before (two
    // alike blocks of some text each): the products are the records,
    // the two prices fields of them, not lists the products frame.
    let card = |n: usize| {
        format!(
            "<div class=slide><div class=product><h3><a href=/p/{n}>Garden chair model {n}</a></h3>\
             <div class=prices><div class=price><span>Now only</span> <span>{n}9.99 EUR, VAT and delivery to your door included</span></div>\
             <div class=price><span>Before</span> <span>{n}4.99 EUR, VAT and delivery to your door included</span></div></div></div></div>"
        )
    };
    let row: String = (1..=6).map(card).collect();
    let html = format!("<body><h1>Garden</h1><div class=carousel>{row}</div></body>");
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a data region");
    assert_eq!(main.records.len(), 6);
    assert_eq!(page.attribute(main.records[0][0], "class"), Some("slide"));
}

#[test]
fn beside_the_main_list_only_lists_of_records_are_kept() {
    // Beside the results: a list of related searches (records of several
    // words: kept), a row of one-word tags, and two teasers.
    let results: String = (1..=6)
        .map(|n| {
            format!(
                "<li class=result><h3><a href=/r/{n}>Result {n}: a flat in the old town</a></h3>\
                 <p>Two rooms, balcony, {n}00 m from the station, ready in May.</p></li>"
            )
        })
        .collect();
    let related: String = [
        "flats with a garden in town",
        "flats near the station for rent",
        "small flats in the old town",
        "new flats by the river bank",
    ]
    .iter()
    .map(|t| {
        format!(
            "<li><a href=/s?q={n}>{t}</a> <small>(about 40 results)</small></li>",
            n = t.len()
        )
    })
    .collect();
    let tags: String = [
        "Balcony", "Garden", "Lift", "Garage", "Cellar", "Terrace", "Parquet", "Sauna", "Kitchen",
        "Bathtub",
    ]
    .iter()
    .map(|t| format!("<span class=tag><b>{t}</b> <i>12</i></span>"))
    .collect();
    let html = format!(
        "<body><ul class=results>{results}</ul>\
         <aside><ul class=related>{related}</ul><div class=tags>{tags}</div>\
         <div class=teasers><div class=teaser><h4>Moving soon?</h4><p>Our removal service packs for you, from the first box to the last lamp.</p></div>\
         <div class=teaser><h4>Insure your flat</h4><p>Household insurance from 3 EUR a month, with no paperwork at all.</p></div></div></aside></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let data: Vec<&Region> = listing.data().collect();
    let classes: Vec<Option<&str>> = data
        .iter()
        .map(|r| page.attribute(r.parent, "class"))
        .collect();
    assert_eq!(classes, [Some("results"), Some("related")]);
}

#[test]
fn cards_that_each_hold_a_few_short_tags_are_the_records_not_their_tags() {
    // A shop's result cards, each with a short list of its features: the
    // cards are the records, the features fields of them.
    let card = |n: usize| {
        let tags: String = ["Wi-Fi", "Parking", "Pool", "Sauna", "Garden"]
            .iter()
            .skip(n % 2)
            .map(|t| format!("<li class=tag>{t}</li>"))
            .collect();
        format!(
            "<div class=hotel><h3><a href=/h/{n}>Hotel {n}</a></h3><ul class=tags>{tags}</ul></div>"
        )
    };
    let cards: String = (1..=6).map(card).collect();
    let html = format!("<body><div class=results>{cards}</div></body>");
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a data region");
    assert_eq!(main.records.len(), 6);
    assert_eq!(page.attribute(main.records[0][0], "class"), Some("hotel"));
    assert_eq!(
        main.record_text(&page, 2),
        "Hotel 3 Parking Pool Sauna Garden"
    );
}

#[test]
fn totals_in_their_usual_forms() {
    let t = |s: &str| total::total_in(s).map(|t| (t.count, t.kind));
    assert_eq!(t("3,376 rows"), Some((3376, TotalKind::Records)));
    assert_eq!(t("Jobs 1-20 of 100"), Some((100, TotalKind::Records)));
    assert_eq!(t("350 Treffer"), Some((350, TotalKind::Records)));
    assert_eq!(t("Seite 1 von 12"), Some((12, TotalKind::Pages)));
    assert_eq!(
        t("only the newest 100 are shown"),
        Some((100, TotalKind::Cap))
    );
    assert_eq!(
        t("Ergebnisse 21 bis 40 von 1.234"),
        Some((1234, TotalKind::Records))
    );
    assert_eq!(t("Call us on 0800 123"), None);
    assert_eq!(t("Opened in 1999, 12 rooms"), None);
}

#[test]
fn a_column_under_its_own_header_is_data_even_when_every_row_holds_the_same_value() {
    let rows: String = ["Anchorage", "Boston", "Chicago", "Denver"]
        .iter()
        .enumerate()
        .map(|(i, city)| format!("<tr><td>{i}</td><td>{city}</td><td>USA</td></tr>"))
        .collect();
    let html = format!(
        "<body><table><tr><th>id</th><th>city</th><th>country</th></tr>{rows}</table></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let names: Vec<&str> = listing
        .main()
        .expect("a data region")
        .columns
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["id", "city", "country"]);
    let records = listing.records(&page, &url());
    assert_eq!(records[3].fields.get("country").unwrap().values(), ["USA"]);
}

#[test]
fn a_group_row_that_stands_alone_on_its_page_heads_the_records_below_it() {
    let rows: String = (1..=5)
        .map(|i| format!("<tr><td>{i}</td><td class=date>today</td><td><a href=issue{i}>car {i}</a></td></tr>"))
        .collect();
    let html = format!(
        "<body><table class=list><tr><th>ID</th><th>Activity</th><th>Title</th></tr>\
         <tr><th class=group colspan=3> bug </th></tr>{rows}</table></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let records = listing.records(&page, &url());
    assert_eq!(records.len(), 5);
    assert_eq!(records[4].fields.get("heading").unwrap().values(), ["bug"]);
    assert_eq!(records[4].fields.get("title").unwrap().values(), ["car 5"]);
    // The heading rule reads the group's cell, not the column headings.
    let rules = listing.rules(&page).unwrap();
    let heading: Vec<String> = rules
        .parsed()
        .iter()
        .filter(|(a, _)| a == "heading")
        .flat_map(|(_, r)| r.eval(&page).flatten())
        .collect();
    assert_eq!(heading, ["bug"]);
}

#[test]
fn a_title_broken_by_highlighted_words_is_one_field() {
    let hits: String = [
        ("Anthony <span class=hit>Garcia</span>", "Garcia"),
        ("<span class=hit>Howard</span> Epps", "Howard"),
        ("Jose <span class=hit>Garcia</span> Rivera", "Garcia"),
        ("Edward <span class=hit>Travens</span>", "Travens"),
    ]
    .iter()
    .map(|(title, word)| {
        format!(
            "<div class=hit-page><h2><a href=/p>{title}</a> (1 match found)</h2><p>… the <b>{word}</b> family …</p></div>"
        )
    })
    .collect();
    let page = Page::parse(&format!("<body><div class=results>{hits}</div></body>"));
    let listing = Listing::read(&page, &url());
    let records = listing.records(&page, &url());
    assert_eq!(records.len(), 4);
    let titles: Vec<String> = records
        .iter()
        .flat_map(|r| {
            r.fields
                .0
                .iter()
                .find(|(_, f)| {
                    f.values()[0].contains("Garcia")
                        || f.values()[0].contains("Epps")
                        || f.values()[0].contains("Edward")
                })
                .map(|(_, f)| f.values()[0].clone())
        })
        .collect();
    assert_eq!(
        titles,
        [
            "Anthony Garcia",
            "Howard Epps",
            "Jose Garcia Rivera",
            "Edward Travens"
        ]
    );
}

#[test]
fn headings_each_followed_by_a_snippet_are_records_of_one_field_and_the_snippets_values() {
    let hits: String = [
        ("Ana <mark>Lopez</mark>", "Ohio"),
        ("Bea <mark>Lopez</mark> Ruiz", "Utah"),
        ("Carla <mark>Lopez</mark>", "Iowa"),
    ]
    .iter()
    .map(|(title, state)| {
        format!("<h2 class=hit><a href=/p>{title}</a></h2><p>born in {state}, <mark>Lopez</mark> family</p>")
    })
    .collect();
    let html = format!(
        "<body><form><input name=q><label><input type=checkbox name=cs> Match case</label>\
         <label><input type=checkbox name=re> Regular expression</label></form>\
         <div class=results><h1>Search matched 3 pages:</h1>{hits}</div></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let records = listing.records(&page, &url());
    let titles: Vec<&str> = records
        .iter()
        .map(|r| r.fields.0[0].1.values()[0].as_str())
        .collect();
    assert_eq!(titles, ["Ana Lopez", "Bea Lopez Ruiz", "Carla Lopez"]);
    // The snippets are read too, as values of their own.
    let rules = listing.rules(&page).unwrap();
    assert_eq!(rules.record_rules, 1, "{}", rules.to_yaml());
    let snippets: Vec<String> = rules.parsed()[1..]
        .iter()
        .flat_map(|(_, r)| r.eval(&page).flatten())
        .collect();
    assert_eq!(
        snippets,
        [
            "born in Ohio, Lopez family",
            "born in Utah, Lopez family",
            "born in Iowa, Lopez family"
        ],
        "{}",
        rules.to_yaml()
    );
}

#[test]
fn the_last_and_the_first_page_are_neither_next_nor_previous() {
    let html = "<html><body><div class=pages><a href='/page/1/'>« First</a> \
        <a href='/page/2/'>‹</a> <a href='/page/2/'>2</a> <b>3</b> <a href='/page/4/'>4</a> \
        <a href='/page/4/'>Next »</a> <a href='/page/65/'>Última »</a> \
        <a href='/page/66/'>&gt;|</a></div></body></html>";
    let page = Page::parse(html);
    let links = crate::links::PageLinks::of(&page, &Url::parse("http://h/page/3/").unwrap());
    let pager = Pager::of(&links);
    let roles: Vec<PagerRole> = pager.links.iter().map(|l| l.role).collect();
    assert_eq!(
        roles,
        [
            PagerRole::First,
            PagerRole::Previous,
            PagerRole::Page(2),
            PagerRole::Page(4),
            PagerRole::Next,
            PagerRole::Last,
            PagerRole::Last
        ]
    );
    assert_eq!(pager.next.unwrap().as_str(), "http://h/page/4/");
}

#[test]
fn rows_of_one_table_with_the_same_cells_are_one_list_whatever_their_class() {
    // A league's franchises: a franchise's full row, then rows of the
    // names it played under, if any (another class, a heading cell without
    // a link), and rows whose result cell holds more markup than others.
    let mut rows = String::new();
    for f in 1..=4 {
        rows.push_str(&format!(
            "<tr class=full_table><th scope=row><a href=/f/{f}>Franchise {f} Club</a></th>\
             <td>NL</td><td>19{f}0</td><td><b>{f}2</b>-<a href=/s/{f}>40</a> <small>(1st)</small></td></tr>"
        ));
        for o in 0..(f % 2) * 2 {
            rows.push_str(&format!(
                "<tr class=partial_table><th scope=row>Old name {f}{o} Club</th>\
                 <td>AL</td><td>18{f}{o}</td><td>3{f}-50</td></tr>"
            ));
        }
    }
    let html = format!(
        "<body><h1>Franchises</h1><table><thead><tr><th>Franchise</th><th>Lg</th><th>From</th>\
         <th>W-L</th></tr></thead><tbody>{rows}</tbody></table></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let data: Vec<&Region> = listing.data().collect();
    assert_eq!(data.len(), 1);
    assert_eq!(data[0].records.len(), 8);
    assert_eq!(
        data[0].record_text(&page, 1),
        "Old name 10 Club AL 1810 31-50"
    );
}

#[test]
fn records_alike_in_shape_outweigh_an_articles_paragraphs_of_more_text() {
    // A guide's page: an article of paragraphs of one class but of many
    // shapes (a link, a list, a quote, bold words), and beside it a list of
    // drug cards of one shape with less text.
    let paragraphs = [
        "<div class=typo>Antidepressants come in several classes; here is a brief overview of your choices and what each of them does to the levels of serotonin in the brain.</div>",
        "<div class=typo><b>Selective serotonin reuptake inhibitors:</b> these medications primarily affect serotonin levels in the brain and are prescribed first.</div>",
        "<div class=typo><span>» READ:</span> <a href=/a/1>Advantages and disadvantages of a long treatment with one medication</a></div>",
        "<div class=typo><ul><li>Take 200 mg every four to six hours as needed</li><li>Effective for pain relief and fever reduction</li><li>Ask a doctor first</li></ul></div>",
        "<div class=typo><blockquote><p>Consult your doctor if symptoms persist for more than three days, and inform them of any allergies before use.</p></blockquote></div>",
        "<div class=typo><h3>How to check prescription drug prices</h3><p>Prices depend on the type of medication and the pharmacy, and on the plan you hold.</p><p>Ask for the generic.</p></div>",
    ]
    .concat();
    let cards: String = [
        "Ibuprofen",
        "Amoxicillin",
        "Paracetamol",
        "Cetirizine",
        "Omeprazole",
    ]
    .iter()
    .enumerate()
    .map(|(i, name)| {
        format!(
            "<div class=card><h4><a href=/d/{i}>{name}</a></h4><span class=dose>{i}00 mg</span>\
                 <span class=price>{i}.99 €</span></div>"
        )
    })
    .collect();
    let html = format!(
        "<body><main><div class=article>{paragraphs}</div>\
         <section class=drugs>{cards}</section></main></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.data().next().unwrap();
    assert_eq!(page.attribute(main.parent, "class"), Some("drugs"));
    assert_eq!(main.records.len(), 5);
}

/// A table of a few rows under a header of sort buttons: `rows` are
/// (provider, prices).
fn priced_table(rows: &[(&str, [u32; 3])], sort_buttons: bool) -> String {
    let head = if sort_buttons {
        ["Provider", "Minimum cover", "Full cover", "Premium cover"]
            .iter()
            .map(|h| {
                format!(
                    "<th><div><button><span>{h}</span> <span>Chevron pointing upwards: order ascending</span></button></div></th>"
                )
            })
            .collect::<String>()
    } else {
        String::new()
    };
    let body: String = rows
        .iter()
        .map(|(name, [a, b, c])| {
            format!("<tr><td><b>{name}</b></td><td>${a}</td><td>${b}</td><td>${c}</td></tr>")
        })
        .collect();
    format!("<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
}

const PROVIDERS: [(&str, [u32; 3]); 5] = [
    ("State Farm", [520, 603, 752]),
    ("Progressive", [498, 611, 790]),
    ("Geico Direct", [455, 580, 701]),
    ("Allstate", [610, 702, 880]),
    ("Nationwide", [530, 640, 815]),
];

#[test]
fn table_rows_under_a_header_of_sort_buttons_are_the_records_not_the_tables() {
    // Two tables side by side whose headers (sort buttons with their
    // icons' titles) hold more text than their rows: the rows are the
    // records, not the two tables.
    let html = format!(
        "<body><main><h2>Monthly rates by provider</h2><div class=compare>\
         <div class=pane>{}</div><div class=pane>{}</div></div></main></body>",
        priced_table(&PROVIDERS, true),
        priced_table(&PROVIDERS[1..], true)
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let counts: Vec<(usize, &str)> = listing
        .data()
        .map(|r| (r.records.len(), page.label_name(r.records[0][0])))
        .collect();
    assert_eq!(counts, [(5, "tr"), (4, "tr")]);
}

/// `n` results of a quotes search, long records of one shape.
fn quotes(n: usize) -> String {
    (1..=n)
        .map(|n| {
            format!(
                "<li class=result><h3><a href=/q/{n}>Quote {n}: full cover for a family car</a></h3>\
                 <p>Liability, collision and comprehensive cover with roadside help, a rental car \
                 while yours is repaired and a deductible of {n}00 dollars.</p></li>"
            )
        })
        .collect()
}

#[test]
fn small_tables_one_in_each_section_of_a_kind_are_judged_together_beside_the_main_list() {
    // The results, then a section per state, each with a small table of
    // the same columns: each table alone is far smaller than the results,
    // together they are a list of their own.
    let results = quotes(6);
    let sections: String = ["Ohio", "Texas", "Maine", "Idaho"]
        .iter()
        .enumerate()
        .map(|(i, state)| {
            format!(
                "<section class=state><h3>Rates in {state}</h3><div class=scroll>{}</div></section>",
                priced_table(&[&PROVIDERS[i..], &PROVIDERS[..i]].concat(), false)
            )
        })
        .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul><div class=states>{sections}</div></main></body>"
    );
    let rows = beside_the_results(&html, |page, r| {
        page.label_of(r.records[0][0]) == crate::page::TR
    });
    assert_eq!(rows, (5, 20));
}

/// The data regions of a page whose main list is the `results` list, and
/// the records of the other regions that `side` picks.
fn beside_the_results(html: &str, side: impl Fn(&Page, &Region) -> bool) -> (usize, usize) {
    let page = Page::parse(html);
    let listing = Listing::read(&page, &url());
    let data: Vec<&Region> = listing.data().collect();
    assert_eq!(
        page.attribute(data[0].parent, "class"),
        Some("results"),
        "the results are the main list"
    );
    let records = data[1..]
        .iter()
        .filter(|r| side(&page, r))
        .map(|r| r.records.len())
        .sum();
    (data.len(), records)
}

#[test]
fn small_lists_one_in_each_section_of_a_kind_are_judged_together_beside_the_main_list() {
    // A page of sections of one class: the first holds the results, each
    // other one a short forecast list. Each forecast alone is far smaller
    // than the results; together they are a list of their own.
    let results = quotes(40);
    let towns: String = ["Akron", "Austin", "Bangor", "Boise"]
        .iter()
        .map(|town| {
            let days: String = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
                .iter()
                .map(|day| {
                    format!(
                        "<li class=day><b>{day} in {town}</b> <span>sunny spells in the morning, \
                         showers later, high 21, low 12</span> <span>wind 10 km/h</span></li>"
                    )
                })
                .collect();
            format!("<section class=box><h3>Weather in {town}</h3><div><ul class=days>{days}</ul></div></section>")
        })
        .collect();
    let html = format!(
        "<body><main><section class=box><h3>Quotes</h3><div><ul class=results>{results}</ul></div></section>\
         {towns}</main></body>"
    );
    let days = beside_the_results(&html, |page, r| {
        page.attribute(r.parent, "class") == Some("days")
    });
    assert_eq!(days, (5, 20));
}

#[test]
fn link_cards_of_a_title_and_a_count_in_blocks_of_their_own_are_data_not_a_menu() {
    // A carousel of cards, each one link holding a title and, in a block
    // of its own below it, a count: no space parts the two texts in the
    // source, yet they are two texts, and the card is more than a menu's
    // link. A list of topics, one or two words each, stays a menu.
    let cards: String = [
        ("Recently launched tech ventures", 30),
        ("Top profitable small ventures", 25),
        ("Best investment strategies today", 40),
        ("Effective marketing strategies online", 15),
        ("Proven growth plans explained", 12),
    ]
    .iter()
    .map(|(title, n)| {
        format!(
            "<section class=slide><a href=/v/{n} class=card><div><img alt=\"{title}\"></div>\
             <section><p>{title}</p><div><h6>{n} Strategies</h6></div></section></a></section>"
        )
    })
    .collect();
    let topics: String = [
        "Accounting",
        "Advertising",
        "Analytics",
        "Auditing",
        "Law firms",
    ]
    .iter()
    .map(|t| format!("<li><a href=/t/{t}>{t}</a></li>"))
    .collect();
    let html = format!(
        "<body><main><ul class=results>{}</ul><div class=carousel>{cards}</div>\
         <ul class=topics>{topics}</ul></main></body>",
        quotes(5)
    );
    let carousel = beside_the_results(&html, |page, r| {
        page.attribute(r.parent, "class") == Some("carousel")
    });
    assert_eq!(carousel, (2, 5));
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let topics = listing
        .regions
        .iter()
        .find(|r| page.attribute(r.parent, "class") == Some("topics"))
        .unwrap();
    assert_eq!(topics.kind, RegionKind::Navigation);
}

#[test]
fn small_tables_in_sibling_sections_without_a_class_are_judged_together_beside_the_main_list() {
    // The results, then one table comparing models whose rows are grouped
    // in a `tbody` per topic, of no class and of a few rows each: each
    // group alone is far smaller than the results, together they are a
    // list of their own.
    let results = quotes(12);
    let groups: String = [("Pricing", 3), ("Features", 7), ("Dimensions", 15)]
        .iter()
        .map(|(topic, n)| {
            let rows: String = (1..=*n)
                .map(|r| {
                    format!(
                        "<tr><th>{topic} item {r}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
                        100 + r,
                        200 + r,
                        300 + r
                    )
                })
                .collect();
            format!("<tbody class=\"\" id={topic}>{rows}</tbody>")
        })
        .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul>\
         <table><thead><tr><th>Model</th><th>Base</th><th>Sport</th><th>Touring</th></tr></thead>\
         {groups}</table></main></body>"
    );
    let rows = beside_the_results(&html, |page, r| {
        page.label_of(r.records[0][0]) == crate::page::TR
    });
    assert_eq!(rows, (4, 25));
}

#[test]
fn a_filters_options_in_labels_are_no_records_though_a_result_may_hold_a_checkbox() {
    // Each result holds a checkbox to compare it, labelled "Compare"; the
    // filter beside them is a list of checkboxes whose labels hold all
    // its text, as long as a side list's.
    let results: String = (1..=8)
        .map(|n| {
            format!(
                "<li class=result><h3><a href=/q/{n}>Quote {n}: full cover for a family car</a></h3>\
                 <p>Liability, collision and comprehensive cover with roadside help and a \
                 deductible of {n}00 dollars.</p>\
                 <input type=checkbox id=c{n}><label for=c{n}>Compare</label></li>"
            )
        })
        .collect();
    let options: String = [
        "Collision cover",
        "Comprehensive cover",
        "Roadside help",
        "Rental car while repaired",
        "Glass repair",
        "New car replacement",
        "Gap insurance",
        "Uninsured drivers",
        "Personal injury protection",
        "Classic cars",
    ]
    .iter()
    .enumerate()
    .map(|(i, o)| {
        format!(
            "<li><input type=checkbox name=cover value={i} id=f{i}>\
             <label for=f{i}>{o} policies ({})</label></li>",
            10 + 7 * i
        )
    })
    .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul>\
         <aside><form action=/quotes><fieldset><legend>Cover</legend><ul class=facet>{options}</ul>\
         </fieldset></form></aside></main></body>"
    );
    let (regions, _) = beside_the_results(&html, |_, _| true);
    assert_eq!(regions, 1, "the filter's options are no data region");
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    assert_eq!(listing.main().map(|r| r.records.len()), Some(8));
}

#[test]
fn a_consent_dialogs_purposes_each_with_a_switch_are_no_records() {
    // The results, and a cookie dialog's purposes: a heading, a long
    // description and a checkbox shown as a switch in each.
    let results = quotes(6);
    let purposes: String = ["Performance", "Functional", "Targeting", "Social media"]
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "<div class=purpose><h4>{p} cookies</h4>\
                 <p>These cookies let us count visits and traffic sources so we can measure \
                 and improve the performance of our site, and see which pages are the most \
                 and least popular.</p>\
                 <input type=checkbox role=switch id=p{i} checked><label for=p{i}>{p}</label></div>"
            )
        })
        .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul></main>\
         <div id=consent role=dialog><section class=purposes>{purposes}</section></div></body>"
    );
    let (regions, _) = beside_the_results(&html, |_, _| true);
    assert_eq!(regions, 1, "the dialog's purposes are no data region");
}

#[test]
fn a_searchs_facets_named_so_are_no_records_though_their_container_may_name_the_results() {
    // The results in a container a facet library names, and beside them
    // the facets: groups each with a heading and options shown as links
    // with their counts, each group wrapped in an item of the side menu
    // and named a filter's.
    let results = quotes(6);
    let groups: String = [
        (
            "Cover",
            [
                "Collision",
                "Comprehensive",
                "Roadside help",
                "Glass repair",
            ],
        ),
        (
            "Insurer",
            ["Acme Mutual", "Harbor Life", "Northstar", "Plains Farm"],
        ),
        ("Payment", ["Monthly", "Quarterly", "Yearly", "At once"]),
        ("Deductible", ["None", "Up to 250", "Up to 500", "Over 500"]),
        ("Drivers", ["One", "Two", "Three", "Four or more"]),
        (
            "Rating",
            ["Five stars", "Four stars", "Three stars", "Any rating"],
        ),
    ]
    .iter()
    .enumerate()
    .map(|(g, (heading, options))| {
        let options: String = options
            .iter()
            .enumerate()
            .map(|(i, o)| {
                format!(
                    "<li><a href=/q?f{g}={i}>{o}</a> <span class=count>{}</span></li>",
                    12 + 5 * i
                )
            })
            .collect();
        format!(
            "<div class=item><div class=\"refine-group cover-filter\"><h4>{heading}</h4>\
             <ul class=options>{options}</ul></div></div>"
        )
    })
    .collect();
    let html = format!(
        "<body><main><ul class=results data-name=facetwp-template>{results}</ul>\
         <aside><div class=menu>{groups}</div></aside></main></body>"
    );
    let (regions, _) = beside_the_results(&html, |_, _| true);
    assert_eq!(regions, 1, "the facets are no data region");
    // Named so, the results' own container keeps them.
    let named = html.replace(
        "<ul class=results data-name=facetwp-template>",
        "<ul class=results id=facetwp-results>",
    );
    let page = Page::parse(&named);
    let listing = Listing::read(&page, &url());
    assert_eq!(listing.main().map(|r| r.records.len()), Some(6));
}

#[test]
fn a_questionnaires_steps_in_a_form_are_no_records() {
    // The results, and beside them a form asking for the reader's case
    // step by step: each step a question, a line of help and a field or
    // a choice to fill in, whose short labels hold little of its text.
    let results = quotes(6);
    let steps: String = [
        (
            "What is your zip code?",
            "<input type=text name=zip inputmode=numeric>",
        ),
        (
            "How old is the car?",
            "<select name=age><option>New</option><option>Older</option></select>",
        ),
        (
            "Who drives it?",
            "<input type=radio name=who id=w0><label for=w0>Me</label>\
          <input type=radio name=who id=w1><label for=w1>Family</label>",
        ),
        (
            "How far do you drive a year?",
            "<input type=number name=miles>",
        ),
        (
            "Any claims in five years?",
            "<input type=radio name=claims id=c0><label for=c0>Yes</label>\
          <input type=radio name=claims id=c1><label for=c1>No</label>",
        ),
        ("Your email for the quotes", "<input type=email name=email>"),
    ]
    .iter()
    .enumerate()
    .map(|(i, (question, field))| {
        format!(
            "<li class=step><h4>Step {}: {question}</h4>\
             <p>We ask so the quotes fit your case; nothing is shared.</p>{field}</li>",
            i + 1
        )
    })
    .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul>\
         <aside><form action=/quote><ol class=steps>{steps}</ol>\
         <input type=hidden name=t value=1><button type=submit>Get quotes</button></form></aside>\
         </main></body>"
    );
    let (regions, _) = beside_the_results(&html, |_, _| true);
    assert_eq!(regions, 1, "the questionnaire's steps are no data region");
}

#[test]
fn a_column_of_links_beside_menus_of_its_shape_is_a_menu_not_data() {
    // The results, then a directory of searches in columns: most columns
    // are menus of short names, one holds names of six words, too long
    // for a menu's; it is one more column of the directory.
    let results = quotes(6);
    let column = |names: &[String]| -> String {
        let items: String = names
            .iter()
            .enumerate()
            .map(|(i, n)| format!("<li><a href=/s/{i}>{n}</a></li>"))
            .collect();
        format!("<ul class=searches>{items}</ul>")
    };
    let short: Vec<String> = (1..=12).map(|i| format!("Gym in district {i}")).collect();
    let long: Vec<String> = [
        "Morning",
        "Indoor cycling",
        "Boxing",
        "Modern",
        "Quiet",
        "Large",
    ]
    .iter()
    .map(|k| format!("{k} workout gym in central London"))
    .collect();
    let html = format!(
        "<body><main><ul class=results>{results}</ul></main>\
         <div class=directory>{}{}{}</div></body>",
        column(&short),
        column(&long),
        column(&short[..8])
    );
    let (regions, _) = beside_the_results(&html, |_, _| true);
    assert_eq!(regions, 1, "the long names' column is no data region");
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let menus = listing
        .regions
        .iter()
        .filter(|r| r.kind == RegionKind::Navigation)
        .count();
    assert_eq!(menus, 3);
}

#[test]
fn an_articles_paragraphs_between_its_headings_are_worth_less_than_a_list_of_offers() {
    // A guide of twelve picks, each a heading, two paragraphs and a short
    // list of pros, with five offers above it: the paragraphs hold more
    // text, but they stand between headings and lists; the offers follow
    // each other.
    let offers: String = (0..5)
        .map(|i| {
            format!(
                "<div class=offer><h4>Bookshop {i}</h4><p>Free delivery within two days after \
                 your order, returns accepted for thirty days, gift wrapping on request, \
                 a loyalty card and a reading club</p>\
                 <a href=/go/{i}>Visit the shop</a></div>"
            )
        })
        .collect();
    let picks: String = (0..12)
        .map(|i| {
            format!(
                "<h3>Best pick number {i}</h3><p>Why pick {i} stands out: careful editions.</p>\
                 <p>Its prices are fair, its service quick.</p>\
                 <ul><li>Fair prices</li><li>Quick service</li></ul>"
            )
        })
        .collect();
    let html = format!(
        "<html><body><main><div class=article><h2>Where to buy books</h2>{offers}\
         <h2>Our picks</h2>{picks}</div></main></body></html>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a main list");
    assert_eq!(main.records.len(), 5);
    assert_eq!(page.attribute(main.records[0][0], "class"), Some("offer"));
}

/// A review page's cards, each its perks (long sentences) and its table of
/// specifications deep inside it, or, when `specs` is false, its perks
/// alone (a section of a page holding one list).
fn review_cards(specs: bool) -> String {
    let card = |n: usize| {
        let perks: String = (1..=6)
            .map(|p| {
                format!(
                    "<li class=perk>Perk {p} of product {n}: it keeps the skin soft all day long \
                     and earns twice the reward points on every order</li>"
                )
            })
            .collect();
        let table = if specs {
            let rows: String = ["Size", "Weight", "Origin"]
                .iter()
                .map(|k| format!("<tr><td>{k}</td><td>{n}0 units of it</td></tr>"))
                .collect();
            format!("<div class=specs><table><tbody>{rows}</tbody></table></div>")
        } else {
            String::new()
        };
        format!(
            "<div class=card><h2>Product {n}</h2>{table}<div class=body><div class=inner>\
             <div class=col><div class=box><div class=wrap><div class=perks>\
             <ul>{perks}</ul></div></div></div></div></div></div></div>"
        )
    };
    let cards: String = (1..=4).map(card).collect();
    let offers: String = (1..=5)
        .map(|n| {
            format!("<li class=offer><a href=/o/{n}>Offer {n}: the night cream at half price</a> until Sunday</li>")
        })
        .collect();
    format!("<body><ul class=offers>{offers}</ul><div class=cards>{cards}</div></body>")
}

#[test]
fn lists_repeated_deep_in_each_card_beside_another_list_are_fields_of_the_cards() {
    let page = Page::parse(&review_cards(true));
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("a data region");
    assert_eq!(page.attribute(main.records[0][0], "class"), Some("offer"));
    let perks = listing
        .data()
        .filter(|r| page.attribute(r.records[0][0], "class") == Some("perk"))
        .count();
    assert_eq!(perks, 0);
}

#[test]
fn lists_each_alone_in_a_section_of_a_page_are_still_records() {
    let page = Page::parse(&review_cards(false));
    let listing = Listing::read(&page, &url());
    let perks = listing
        .data()
        .filter(|r| page.attribute(r.records[0][0], "class") == Some("perk"))
        .count();
    assert_eq!(perks, 4);
}

#[test]
fn offers_in_an_order_form_each_with_its_quantity_are_still_records() {
    // A shop's answer: the whole list is one order form, each offer a
    // title, a price and the quantity to order.
    let offers: String = (0..8)
        .map(|i| {
            format!(
                "<tr class=offer><td><a href=/item/{i}>Garden chair model {i}</a></td>\
                 <td>{}.90 EUR</td><td><input type=number name=qty{i} value=0 min=0></td></tr>",
                20 + i
            )
        })
        .collect();
    let html = format!(
        "<body><main><form action=/basket method=post><table class=offers>{offers}</table>\
         <button type=submit>Add to basket</button></form></main></body>"
    );
    let page = Page::parse(&html);
    let listing = Listing::read(&page, &url());
    let main = listing.main().expect("the offers");
    assert_eq!(main.records.len(), 8);
}
