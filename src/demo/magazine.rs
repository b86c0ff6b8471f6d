//! The CityWorld travel magazine (`/magazin/`): ordinary pages as sites
//! build them today, for navigation detection and boilerplate removal.
//! Every page has a main menu, a tag cloud and a footer; section and
//! article pages a breadcrumb, and a section menu of their own; the index
//! lists the articles over three pages with a pager above and below the
//! list. The section pages list their articles newest first, the section
//! menus in reading order.
//!
//! The classes of the page's blocks say what the links are for:
//! `nav.haupt`, `nav.rubrik`, `p.pfad` (breadcrumb), `div.themen` (tag
//! cloud) and `div.fuss` (footer) hold site navigation, `p.seiten` the
//! pagers, everything else is content. The magazine is not linked from the
//! start page; it starts at `/magazin/`.

use std::fmt::Write;

use super::pages::esc;

/// (path segment, name) of the sections.
const SECTIONS: &[(&str, &str)] = &[("kueste", "Küste"), ("seen", "Seen"), ("staedte", "Städte")];

/// (slug, title, text) of the articles, four per section in section order.
const ARTICLES: &[(&str, &str, &str)] = &[
    ("kap-arkona", "Kap Arkona im Frühling", "Die Kreidefelsen leuchten über der Ostsee, und vom Leuchtturm reicht der Blick bis nach Hiddensee."),
    ("darss-weststrand", "Der Weststrand am Darß", "Windflüchter säumen den wilden Strand, an dem Baden nur an wenigen bewachten Stellen erlaubt ist."),
    ("hiddensee-autofrei", "Hiddensee ohne Auto", "Pferdekutschen und Fahrräder ersetzen hier den Verkehr; die Fähre legt in Vitte und Kloster an."),
    ("usedom-seebruecken", "Seebrücken auf Usedom", "Zwischen Ahlbeck und Heringsdorf reihen sich Bäderarchitektur und drei lange Seebrücken aneinander."),
    ("mueritz-kanu", "Mit dem Kanu über die Müritz", "Auf dem größten Binnensee Deutschlands paddeln Gäste von Waren bis zu den stillen Buchten im Nationalpark."),
    ("plauer-see-radweg", "Rund um den Plauer See", "Der Radweg führt fünfzig Kilometer am Ufer entlang, vorbei an Schilf, Badestellen und kleinen Fischräuchereien."),
    ("feldberg-buchen", "Buchenwälder bei Feldberg", "Die alten Wälder um den Schmalen Luzin gehören zum Weltnaturerbe und sind am schönsten im Oktober."),
    ("schweriner-see-segeln", "Segeln auf dem Schweriner See", "Vom Schloss aus starten Segelkurse für Anfänger, die Flaute am Abend nutzen die Fortgeschrittenen."),
    ("stralsund-altstadt", "Die Altstadt von Stralsund", "Backsteingotik, das Ozeaneum und der Hafen machen die Hansestadt zum Ziel für einen langen Tag."),
    ("wismar-hafen", "Fischbrötchen am Wismarer Hafen", "Direkt vom Kutter verkaufen die Fischer ihren Fang, daneben liegt die alte Kogge Wissemara."),
    ("rostock-warnemuende", "Von Rostock nach Warnemünde", "Die S-Bahn bringt Gäste in zwanzig Minuten vom Rathaus an den Alten Strom und zum Leuchtturm."),
    ("greifswald-wieck", "Die Holzbrücke in Wieck", "Die Klappbrücke über den Ryck stammt aus dem Jahr 1887 und wird noch immer von Hand geöffnet."),
];

/// (slug, name) of the themes of the tag cloud.
const THEMES: &[(&str, &str)] = &[
    ("baden", "Baden"),
    ("radfahren", "Radfahren"),
    ("segeln", "Segeln und Paddeln"),
    ("natur", "Natur"),
    ("architektur", "Architektur"),
    ("essen", "Essen und Trinken"),
];

/// Articles on one index page.
const PER_PAGE: usize = 5;

/// The themes of article `i`.
fn themes_of(i: usize) -> [usize; 2] {
    [i % THEMES.len(), (i * 5 + 1) % THEMES.len()]
}

fn section_of(i: usize) -> usize {
    i / 4
}

fn article_path(i: usize) -> String {
    format!(
        "/magazin/{}/{}.html",
        SECTIONS[section_of(i)].0,
        ARTICLES[i].0
    )
}

/// The pages of the article list.
pub(crate) fn index_pages() -> usize {
    ARTICLES.len().div_ceil(PER_PAGE)
}

fn layout(title: &str, breadcrumb: &str, side: &str, content: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"de\"><head><meta charset=\"iso-8859-1\"><title>{}</title></head><body>\n\
         <div class=\"kopf\"><b>CityWorld Magazin</b> Reiseideen für Mecklenburg-Vorpommern</div>\n\
         <nav class=\"haupt\"><ul><li><a href=\"/magazin/\">Magazin</a></li>",
        esc(title)
    );
    for (slug, name) in SECTIONS {
        let _ = write!(
            out,
            "<li><a href=\"/magazin/{slug}/\">{}</a></li>",
            esc(name)
        );
    }
    out.push_str("<li><a href=\"/cityworld/\">Hotelsuche</a></li></ul></nav>\n");
    out.push_str(breadcrumb);
    out.push_str(side);
    let _ = writeln!(out, "<div class=\"inhalt\">{content}</div>");
    out.push_str("<div class=\"themen\"><h3>Themen</h3>\n");
    for (i, (slug, name)) in THEMES.iter().enumerate() {
        let _ = writeln!(
            out,
            "<a href=\"/magazin/thema/{slug}.html\" style=\"font-size:{}%\">{}</a>",
            90 + 15 * (i % 4),
            esc(name)
        );
    }
    out.push_str(
        "</div>\n<div class=\"fuss\"><a href=\"/about.html\">Über CityWorld</a> | \
         <a href=\"/kontakt.html\">Kontakt</a> · © CityWorld Informationsdienste GmbH</div>\n\
         </body></html>\n",
    );
    out
}

fn breadcrumb(section: usize, title: Option<&str>) -> String {
    let (slug, name) = SECTIONS[section];
    match title {
        Some(title) => format!(
            "<p class=\"pfad\"><a href=\"/magazin/\">Magazin</a> › <a href=\"/magazin/{slug}/\">{}</a> › {}</p>\n",
            esc(name),
            esc(title)
        ),
        None => format!(
            "<p class=\"pfad\"><a href=\"/magazin/\">Magazin</a> › {}</p>\n",
            esc(name)
        ),
    }
}

/// The section menu: the section's overview, then its articles in order.
fn section_menu(section: usize) -> String {
    let (slug, name) = SECTIONS[section];
    let mut out = format!(
        "<nav class=\"rubrik\"><h3>{}</h3><ul><li><a href=\"/magazin/{slug}/\">Übersicht</a></li>",
        esc(name)
    );
    for i in (0..ARTICLES.len()).filter(|&i| section_of(i) == section) {
        let _ = write!(
            out,
            "<li><a href=\"{}\">{}</a></li>",
            article_path(i),
            esc(ARTICLES[i].1)
        );
    }
    out.push_str("</ul></nav>\n");
    out
}

fn teaser(i: usize) -> String {
    let (_, title, text) = ARTICLES[i];
    format!(
        "<li><a href=\"{}\">{}</a> {}</li>",
        article_path(i),
        esc(title),
        esc(text.split(',').next().unwrap_or(text))
    )
}

fn pager(page: usize) -> String {
    let pages = index_pages();
    let mut out = String::from("<p class=\"seiten\">Seite: ");
    let link = |n: usize| {
        if n == 1 {
            "/magazin/".to_string()
        } else {
            format!("/magazin/?seite={n}")
        }
    };
    if page > 1 {
        let _ = write!(out, "<a href=\"{}\">« zurück</a> ", link(page - 1));
    }
    for n in 1..=pages {
        if n == page {
            let _ = write!(out, "<b>{n}</b> ");
        } else {
            let _ = write!(out, "<a href=\"{}\">{n}</a> ", link(n));
        }
    }
    if page < pages {
        let _ = write!(out, "<a href=\"{}\">weiter »</a>", link(page + 1));
    }
    out.push_str("</p>\n");
    out
}

/// `/magazin/` (page 1) and `/magazin/?seite=N`; `None` past the last page.
pub(crate) fn index_page(page: usize) -> Option<String> {
    if page == 0 || page > index_pages() {
        return None;
    }
    let mut content = String::from(
        "<h1>Reiseideen für Mecklenburg-Vorpommern</h1>\n\
         <p>Unsere Redaktion stellt jede Woche neue Ausflüge vor, von der Küste bis zur Seenplatte.</p>\n",
    );
    content.push_str(&pager(page));
    content.push_str("<ul class=\"artikel\">");
    let first = (page - 1) * PER_PAGE;
    for i in first..(first + PER_PAGE).min(ARTICLES.len()) {
        content.push_str(&teaser(i));
    }
    content.push_str("</ul>\n");
    content.push_str(&pager(page));
    Some(layout(
        &format!("CityWorld Magazin - Seite {page}"),
        "",
        "",
        &content,
    ))
}

/// `/magazin/SECTION/`: the section's articles, newest first.
pub(crate) fn section_page(slug: &str) -> Option<String> {
    let section = SECTIONS.iter().position(|s| s.0 == slug)?;
    let name = SECTIONS[section].1;
    let mut content = format!(
        "<h1>{}</h1>\n<p>Die neuesten Beiträge aus der Rubrik {} zuerst.</p>\n<ul class=\"artikel\">",
        esc(name),
        esc(name)
    );
    for i in (0..ARTICLES.len())
        .filter(|&i| section_of(i) == section)
        .rev()
    {
        content.push_str(&teaser(i));
    }
    content.push_str("</ul>\n");
    Some(layout(
        &format!("CityWorld Magazin - {name}"),
        &breadcrumb(section, None),
        &section_menu(section),
        &content,
    ))
}

/// `/magazin/SECTION/ARTICLE.html`.
pub(crate) fn article_page(section_slug: &str, file: &str) -> Option<String> {
    let slug = file.strip_suffix(".html")?;
    let i = ARTICLES.iter().position(|a| a.0 == slug)?;
    let section = section_of(i);
    if SECTIONS[section].0 != section_slug {
        return None;
    }
    let (_, title, text) = ARTICLES[i];
    let related = (i + 1) % ARTICLES.len();
    let mut content = format!(
        "<h1>{}</h1>\n<p>{}</p>\n<p>Passend dazu: <a href=\"{}\">{}</a>. Mehr Auskünfte gibt die \
         <a href=\"https://www.auf-nach-mv.de/\">Tourismuszentrale</a>.</p>\n<p>Themen: ",
        esc(title),
        esc(text),
        article_path(related),
        esc(ARTICLES[related].1)
    );
    let names: Vec<String> = themes_of(i).iter().map(|&t| esc(THEMES[t].1)).collect();
    content.push_str(&names.join(", "));
    content.push_str(".</p>\n");
    Some(layout(
        &format!("{title} - CityWorld Magazin"),
        &breadcrumb(section, Some(title)),
        &section_menu(section),
        &content,
    ))
}

/// `/magazin/thema/THEME.html`: the articles of one theme.
pub(crate) fn theme_page(file: &str) -> Option<String> {
    let slug = file.strip_suffix(".html")?;
    let theme = THEMES.iter().position(|t| t.0 == slug)?;
    let name = THEMES[theme].1;
    let mut content = format!("<h1>Thema: {}</h1>\n<ul class=\"artikel\">", esc(name));
    for i in (0..ARTICLES.len()).filter(|&i| themes_of(i).contains(&theme)) {
        content.push_str(&teaser(i));
    }
    content.push_str("</ul>\n");
    Some(layout(
        &format!("CityWorld Magazin - Thema {name}"),
        "",
        "",
        &content,
    ))
}

/// What a magazine link is for, read from the block around it (see the
/// module docs): `Some(true)` for site navigation, `Some(false)` for a
/// pager, `None` for content; `path` is the link's path of start tags.
pub fn link_role(path: &str) -> Option<bool> {
    const NAVIGATION: &[&str] = &[
        "class=\"haupt\"",
        "class=\"rubrik\"",
        "class=\"pfad\"",
        "class=\"themen\"",
        "class=\"fuss\"",
    ];
    if NAVIGATION.iter().any(|c| path.contains(c)) {
        Some(true)
    } else if path.contains("class=\"seiten\"") {
        Some(false)
    } else {
        None
    }
}
