//! The guide's pages, written the way a 1999 CityWorld site wrote them
//! (HTML 4 with `font`, layout tables, upper-case meta tags), and the
//! ISO-8859-1 encoding they are sent in.

use std::fmt::Write as _;

use encoding_rs::WINDOWS_1252;

use super::db::{price_category, Found, Hotel, Search, PRICE_CATEGORIES};

/// Text as ISO-8859-1 bytes. Characters outside Latin-1 become numeric
/// character references, as browsers do; the rest is encoded with
/// encoding_rs's windows-1252, which is byte-identical to ISO-8859-1 for the
/// characters that remain (ASCII and U+00A0–U+00FF).
pub(crate) fn latin1(text: &str) -> Vec<u8> {
    let mut safe = String::with_capacity(text.len());
    for c in text.chars() {
        let code = u32::from(c);
        if code > 0xFF || (0x80..0xA0).contains(&code) {
            let _ = write!(safe, "&#{code};");
        } else {
            safe.push(c);
        }
    }
    let (bytes, _, _) = WINDOWS_1252.encode(&safe);
    bytes.into_owned()
}

/// Text decoded from ISO-8859-1 bytes (every byte is the code point of the same value).
pub(crate) fn from_latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// `application/x-www-form-urlencoded` pairs from ISO-8859-1 bytes, as a
/// browser sends them from a Latin-1 page (`R%FCgen`, `+` for a space).
pub(crate) fn parse_form(raw: &[u8]) -> Vec<(String, String)> {
    raw.split(|&b| b == b'&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = match pair.iter().position(|&b| b == b'=') {
                Some(eq) => (&pair[..eq], &pair[eq + 1..]),
                None => (pair, &[][..]),
            };
            (form_decode(name), form_decode(value))
        })
        .collect()
}

fn form_decode(part: &[u8]) -> String {
    let spaced: Vec<u8> = part
        .iter()
        .map(|&b| if b == b'+' { b' ' } else { b })
        .collect();
    let bytes: Vec<u8> = percent_encoding::percent_decode(&spaced).collect();
    from_latin1(&bytes)
}

/// A value encoded for a query string in ISO-8859-1 (`Rügen` → `R%FCgen`).
pub(crate) fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(&latin1(value)).collect()
}

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

/// The colour that marks a town in the result table (seed §4.4).
pub(crate) const TOWN_COLOR: &str = "#FF8000";

/// Variant 1's rule for towns (metadata.md §3).
pub(crate) const ORT_RULE: &str = "html.body->table[1].tr[i:*].td[1].txt\n  where html.body->table[1].tr[i].td[1].font.getAttr(color) = \"#FF8000\"";
/// Variant 1's rule for hotel names (metadata.md §3).
pub(crate) const NAME_RULE: &str = "html.body->table[1].tr[j:*].td[1].b.txt\n  where html.body->table[1].tr[j].td[0].small.input.getAttr(name) = \"hotel_id\"";
/// Variant 2's rule for the region, read after the `Seitenanfang` anchor.
pub(crate) const REGION_RULE: &str =
    "html.body->A[i]->pcdata[1].txt\n  where html.body->A[i].getAttr(name) = 'Seitenanfang'";
/// Variant 2's common prefix.
pub(crate) const RESULT_PREFIX: &str = "html.body->table[1].";
/// Variant 2's relative rule for towns.
pub(crate) const ORT_RULE_RELATIVE: &str =
    "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'";
/// Variant 2's relative rule for hotel names.
pub(crate) const NAME_RULE_RELATIVE: &str =
    "tr[k:*].td[1].b.txt\n  where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'";

pub(crate) const TITLE: &str = "CityWorld - Hotels und Pensionen";
pub(crate) const DESCRIPTION: &str = "Hotelführer M-V";
pub(crate) const KEYWORDS: &str = "Hotel, Zimmer, Unterkunft, Pension, Motel, Preis";

/// A `META NAME=… CONTENT=…` tag, quoted with whichever quote the content lacks.
fn meta(name: &str, content: &str) -> String {
    let content = content.replace('&', "&amp;");
    if content.contains('"') {
        format!(
            "<META NAME=\"{name}\" CONTENT='{}'>\n",
            content.replace('\'', "&#39;")
        )
    } else {
        format!("<META NAME=\"{name}\" CONTENT=\"{content}\">\n")
    }
}

/// A page of one of the site's search services (catalogue, archive): a
/// plain head with its title and `DB.*` tags, then `body`.
pub(crate) fn service_page(title: &str, db: &[(&str, String)], body: &str) -> String {
    let mut out = format!(
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0 Transitional//EN\">\n<HTML>\n<HEAD>\n\
         <META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=iso-8859-1\">\n\
         <TITLE>{}</TITLE>\n",
        esc(title)
    );
    for (name, content) in db {
        let _ = writeln!(out, "<META NAME=\"{name}\" CONTENT=\"{}\">", esc(content));
    }
    let _ = write!(out, "</HEAD>\n<BODY>\n{body}</BODY>\n</HTML>\n");
    out
}

/// The notice above a search service's answer: "Ihre Suche nach „A%“ ergab
/// 1.234 Treffer.", and when not all are shown, how many are.
pub(crate) fn hit_notice(query: &str, hits: u64, max_shown: usize) -> String {
    let digits = hits.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(c);
    }
    let mut out = format!(
        "<P>Ihre Suche nach „{}“ ergab {grouped} Treffer.",
        esc(query)
    );
    if hits > max_shown as u64 {
        let _ = write!(out, " Es werden nur die ersten {max_shown} angezeigt.");
    }
    out.push_str("</P>\n");
    out
}

/// The head of every page: content type, title, description, keywords and
/// the page's `DB.*` tags.
fn head(title: &str, description: &str, db: &[(String, String)]) -> String {
    let mut out = String::from(
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.0 Transitional//EN\">\n<HTML>\n<HEAD>\n\
         <META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=iso-8859-1\">\n",
    );
    let _ = writeln!(out, "<TITLE>{}</TITLE>", esc(title));
    out.push_str(&meta("description", description));
    out.push_str(&meta("keywords", KEYWORDS));
    for (name, content) in db {
        out.push_str(&meta(name, content));
    }
    out.push_str("</HEAD>\n<BODY BGCOLOR=\"#FFFFFF\" TEXT=\"#000000\" LINK=\"#003399\">\n");
    out
}

/// The layout table at the top of every page (the page's `table[0]`; it holds
/// no nested table, so the result table is `table[1]`).
fn banner(search_page: &str) -> String {
    format!(
        "<TABLE WIDTH=\"100%\" BORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"4\" BGCOLOR=\"#003399\">\n\
         <TR><TD><FONT SIZE=\"5\" COLOR=\"#FFFFFF\"><B>CityWorld</B></FONT><BR>\
         <FONT SIZE=\"2\" COLOR=\"#FFFFFF\">Hotels und Pensionen in Mecklenburg-Vorpommern</FONT></TD>\n\
         <TD ALIGN=\"right\"><FONT SIZE=\"2\"><A HREF=\"/\"><FONT COLOR=\"#FFFFFF\">Startseite</FONT></A> | \
         <A HREF=\"{search_page}\"><FONT COLOR=\"#FFFFFF\">Hotelsuche</FONT></A> | \
         <A HREF=\"/about.html\"><FONT COLOR=\"#FFFFFF\">Über CityWorld</FONT></A> | \
         <A HREF=\"/kontakt.html\"><FONT COLOR=\"#FFFFFF\">Kontakt</FONT></A></FONT></TD></TR>\n\
         </TABLE>\n"
    )
}

const FOOTER: &str = "<HR SIZE=\"1\">\n<FONT SIZE=\"1\">© 1999 CityWorld Informationsdienste GmbH, Rostock</FONT>\n</BODY>\n</HTML>\n";

/// The form pages the start page links to, with their labels.
pub(crate) const FORM_PAGES: &[(&str, &str)] = &[
    ("/cityworld/", "Hotelsuche nach Regionen"),
    ("/cityworld2/", "Hotelsuche (neue Ergebnisseiten)"),
    ("/paged/", "Hotelsuche mit seitenweiser Ausgabe"),
    (
        "/navurl/",
        "Hotelsuche mit seitenweiser Ausgabe (für Suchmaschinen beschrieben)",
    ),
    ("/post/", "Hotelsuche (Formular mit POST)"),
    (
        "/secure/",
        "Hotelsuche (Metadaten für angemeldete Suchmaschinen)",
    ),
    ("/coop/", "Hotelsuche (Summarizer für Suchmaschinen)"),
    (
        "/limited/",
        "Hotelsuche mit höchstens wenigen Seiten je Anfrage",
    ),
    ("/katalog/", "Katalog der CityWorld-Bibliothek"),
    ("/archiv/", "Pressearchiv"),
];

pub(crate) fn start_page() -> String {
    let mut out = head(
        super::START_PAGE_TITLE,
        "CityWorld: Hotels, Pensionen und Ferienorte in Mecklenburg-Vorpommern - von Rügen bis zur Müritz.",
        &[],
    );
    out.push_str(&banner("/cityworld/"));
    out.push_str(
        "<H1>Willkommen bei CityWorld</H1>\n\
         <P>CityWorld ist Ihr Führer durch Mecklenburg-Vorpommern: Ostseebäder, \
         Hansestädte und die Mecklenburgische Seenplatte. In unserem Hotelführer finden \
         Sie Hotels und Pensionen aller Preisklassen mit Anschrift und Telefonnummer.</P>\n\
         <H2>Hotels und Pensionen suchen</H2>\n<UL>\n",
    );
    for (path, label) in FORM_PAGES {
        let _ = writeln!(out, "<LI><A HREF=\"{path}\">{}</A>", esc(label));
    }
    out.push_str(
        "</UL>\n<H2>Außerdem</H2>\n<UL>\n<LI><A HREF=\"/about.html\">Über CityWorld</A>\n\
         <LI><A HREF=\"/kontakt.html\">Kontakt und Impressum</A>\n</UL>\n",
    );
    out.push_str(FOOTER);
    out
}

/// An ordinary page of the site: banner, the given body, footer.
fn ordinary_page(title: &str, description: &str, body: &str) -> String {
    let mut out = head(title, description, &[]);
    out.push_str(&banner("/cityworld/"));
    out.push_str(body);
    out.push_str(FOOTER);
    out
}

pub(crate) fn about_page() -> String {
    ordinary_page(
        "Über CityWorld",
        "Wer hinter dem CityWorld-Hotelführer für Mecklenburg-Vorpommern steht.",
        "<H1>Über CityWorld</H1>\n\
         <P>CityWorld wurde 1996 in Rostock gegründet und informiert seitdem Gäste über \
         Unterkünfte zwischen Boltenhagen und Ahlbeck. Die Angaben im Hotelführer stammen \
         von den Häusern selbst und werden täglich aus unserer Datenbank erzeugt.</P>\n\
         <P>Für Reiseveranstalter bieten wir Schnittstellen zu unserer Datenbank an; \
         Suchmaschinen finden die Beschreibung unseres Anfrageformulars in seinen Metadaten.</P>\n",
    )
}

pub(crate) fn contact_page() -> String {
    ordinary_page(
        "CityWorld - Kontakt und Impressum",
        "Anschrift, Telefon und E-Mail der CityWorld-Redaktion in Rostock.",
        "<H1>Kontakt</H1>\n\
         <P>CityWorld Informationsdienste GmbH<BR>Lange Straße 12<BR>18055 Rostock<BR>\
         Telefon 0381/4 56 78 90<BR>E-Mail: redaktion@cityworld.example</P>\n\
         <P>Sie möchten Ihr Haus in den Hotelführer aufnehmen lassen? Schreiben Sie uns.</P>\n",
    )
}

/// How a form page is built: where it sends its queries, with which method,
/// and the `DB.*` meta tags in its head.
pub(crate) struct FormPage<'a> {
    pub path: &'a str,
    pub method: &'a str,
    pub action: &'a str,
    pub db_meta: Vec<(String, String)>,
}

/// A CityWorld query form (seed Abbildung 2): `region` radio buttons (the
/// first checked), an `ort` text field and a `preis` select ("alle" selected).
pub(crate) fn form_page(form: &FormPage<'_>, regions: &[String]) -> String {
    let mut out = head(
        TITLE,
        "Hotelführer M-V: Hotels und Pensionen in Mecklenburg-Vorpommern nach Region, Ort und Zimmerpreis suchen.",
        &form.db_meta,
    );
    out.push_str(&banner(form.path));
    let _ = write!(
        out,
        "<H2>Hotels und Pensionen in Mecklenburg-Vorpommern</H2>\n\
         <P>Wählen Sie eine Region und, wenn Sie möchten, einen Ort und eine Preisklasse.</P>\n\
         <FORM METHOD=\"{}\" ACTION=\"{}\">\n<P><B>Region:</B><BR>\n",
        form.method, form.action
    );
    for (i, region) in regions.iter().enumerate() {
        let checked = if i == 0 { " CHECKED" } else { "" };
        let _ = writeln!(
            out,
            "<INPUT TYPE=\"radio\" NAME=\"region\" VALUE=\"{0}\"{checked}> {0}<BR>",
            esc(region)
        );
    }
    out.push_str(
        "<P><B>Ort:</B> <INPUT TYPE=\"text\" NAME=\"ort\" SIZE=\"30\" MAXLENGTH=\"40\">\n\
         <P><B>Zimmerpreis:</B> <SELECT NAME=\"preis\">\n",
    );
    for (i, category) in PRICE_CATEGORIES.iter().enumerate() {
        let selected = if i == 0 { " SELECTED" } else { "" };
        let _ = writeln!(
            out,
            "<OPTION VALUE=\"{}\"{selected}>{}",
            category.value,
            esc(category.label)
        );
    }
    out.push_str(
        "</SELECT>\n<P><INPUT TYPE=\"submit\" VALUE=\"Suchen\"> <INPUT TYPE=\"reset\" VALUE=\"Zurücksetzen\">\n</FORM>\n",
    );
    out.push_str(FOOTER);
    out
}

/// The page links below a paged result.
pub(crate) struct Pager<'a> {
    /// The script the links point to (`/cgi-bin/liste.pl`).
    pub script: &'a str,
    /// 1-based number of this page.
    pub page: usize,
    pub page_size: usize,
}

/// A result page (seed Abbildung 3): the banner table, the `Seitenanfang`
/// anchor followed by the region, then the result table, `html.body->table[1]`:
/// per town a row whose second cell holds the town in `#FF8000`, per hotel a
/// row with the `hotel_id` checkbox, the name in bold with the address, and
/// the price. With a pager, only that page's hotels and the page links.
pub(crate) fn result_page(
    search: &Search,
    found: &Found,
    form_path: &str,
    pager: Option<&Pager<'_>>,
) -> String {
    let region_label = match (&found.region, search.region.is_empty()) {
        (Some(region), _) => region.clone(),
        (None, true) => "alle Regionen".to_string(),
        (None, false) => search.region.clone(),
    };
    let total = found.hotels.len();
    let (shown, first): (&[Hotel], usize) = match pager {
        Some(p) => {
            let start = (p.page - 1).saturating_mul(p.page_size).min(total);
            let end = start.saturating_add(p.page_size).min(total);
            (&found.hotels[start..end], start)
        }
        None => (&found.hotels, 0),
    };
    let mut out = head(
        &format!("CityWorld - Suchergebnis: {region_label}"),
        "Suchergebnis des CityWorld-Hotelführers",
        &[],
    );
    out.push_str(&banner(form_path));
    let _ = writeln!(
        out,
        "<A NAME=\"Seitenanfang\"></A><FONT SIZE=\"2\">Region:</FONT> <B>{}</B>",
        esc(&region_label)
    );
    let price_label = price_category(&search.preis).map_or("alle Preise", |c| c.label);
    let ort_label = if search.ort.trim().is_empty() {
        "alle Orte".to_string()
    } else {
        format!(
            "Orte, die mit &quot;{}&quot; beginnen",
            esc(search.ort.trim())
        )
    };
    let _ = writeln!(
        out,
        "<P><FONT SIZE=\"2\">Ihre Suche: {ort_label}, {}.<BR>",
        esc(price_label)
    );
    if shown.is_empty() {
        out.push_str("Leider wurden keine Hotels oder Pensionen gefunden, die Ihren Suchkriterien entsprechen.</FONT></P>\n");
    } else if pager.is_some() {
        let _ = writeln!(
            out,
            "Treffer {} bis {} von {total}.</FONT></P>",
            first + 1,
            first + shown.len()
        );
    } else {
        let _ = writeln!(out, "{total} Hotels und Pensionen gefunden.</FONT></P>");
    }
    out.push_str(
        "<FORM METHOD=\"POST\" ACTION=\"/cgi-bin/reservierung.pl\">\n\
         <TABLE BORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" WIDTH=\"100%\">\n\
         <TR><TH>Anfrage</TH><TH>Hotel / Pension</TH><TH>Preis pro Nacht</TH></TR>\n",
    );
    let mut town: Option<&str> = None;
    for hotel in shown {
        if town != Some(hotel.ort.as_str()) {
            town = Some(hotel.ort.as_str());
            let _ = writeln!(
                out,
                "<TR><TD></TD><TD><FONT COLOR=\"{TOWN_COLOR}\">{}</FONT></TD></TR>",
                esc(&hotel.ort)
            );
        }
        let _ = writeln!(
            out,
            "<TR><TD><SMALL><INPUT TYPE=\"checkbox\" NAME=\"hotel_id\" VALUE=\"{}\"></SMALL></TD>\
             <TD><B>{}</B><BR>{}, {} {}, Tel. {}</TD><TD ALIGN=\"right\">{} DM</TD></TR>",
            hotel.id,
            esc(&hotel.name),
            esc(&hotel.strasse),
            esc(&hotel.plz),
            esc(&hotel.ort),
            esc(&hotel.telefon),
            hotel.preis
        );
    }
    out.push_str("</TABLE>\n");
    if !shown.is_empty() {
        out.push_str("<P><INPUT TYPE=\"submit\" VALUE=\"Reservierungsanfrage senden\"></P>\n");
    }
    out.push_str("</FORM>\n");
    if let Some(p) = pager {
        out.push_str(&page_links(search, p, total));
    }
    out.push_str("<P><A HREF=\"#Seitenanfang\">nach oben</A></P>\n");
    out.push_str(FOOTER);
    out
}

/// "Seite: « zurück 1 2 3 weiter »" below a paged result.
fn page_links(search: &Search, pager: &Pager<'_>, total: usize) -> String {
    let pages = total.div_ceil(pager.page_size.max(1));
    if pages <= 1 && pager.page <= 1 {
        return String::new();
    }
    let link = |n: usize| {
        let mut href = format!("{}?region={}", pager.script, form_encode(&search.region));
        if !search.preis.is_empty() && search.preis != "alle" {
            let _ = write!(href, "&amp;preis={}", form_encode(&search.preis));
        }
        if !search.ort.is_empty() {
            let _ = write!(href, "&amp;ort={}", form_encode(&search.ort));
        }
        let _ = write!(href, "&amp;seite={n}");
        href
    };
    let mut out = String::from("<P ALIGN=\"center\">Seite: ");
    if pager.page > 1 && pager.page <= pages {
        let _ = write!(out, "<A HREF=\"{}\">« zurück</A> ", link(pager.page - 1));
    }
    for n in 1..=pages {
        if n == pager.page {
            let _ = write!(out, "<B>{n}</B> ");
        } else {
            let _ = write!(out, "<A HREF=\"{}\">{n}</A> ", link(n));
        }
    }
    if pager.page < pages {
        let _ = write!(out, "<A HREF=\"{}\">weiter »</A>", link(pager.page + 1));
    }
    out.push_str("</P>\n");
    out
}

/// The answer to a reservation request (the result table's checkboxes).
pub(crate) fn reservation_page(count: usize) -> String {
    ordinary_page(
        "CityWorld - Reservierungsanfrage",
        "Reservierungsanfrage",
        &format!(
            "<H2>Vielen Dank</H2>\n<P>Ihre Anfrage wurde an {count} Häuser weitergeleitet.</P>\n"
        ),
    )
}

/// A page for an error status (not found, not authorised, bad request).
pub(crate) fn error_page(title: &str, text: &str) -> String {
    let mut out = head(title, title, &[]);
    let _ = writeln!(out, "<H1>{}</H1>\n<P>{}</P>", esc(title), esc(text));
    out.push_str("</BODY>\n</HTML>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_bytes_and_references_for_the_rest() {
        assert_eq!(latin1("Rügen, Darß"), b"R\xFCgen, Dar\xDF");
        assert_eq!(latin1("7 € ☺"), b"7 &#8364; &#9786;");
        assert_eq!(latin1("\u{80}"), b"&#128;");
        let all: Vec<u8> = (0..=255).collect();
        let text = from_latin1(&all);
        assert_eq!(text.chars().count(), 256);
        let printable: Vec<u8> = all
            .iter()
            .copied()
            .filter(|b| !(0x80..0xA0).contains(b))
            .collect();
        assert_eq!(latin1(&from_latin1(&printable)), printable);
    }

    #[test]
    fn forms_are_read_and_written_in_latin1() {
        assert_eq!(
            parse_form(b"region=R%FCgen&ort=Waren+%28M%FCritz%29&leer&preis="),
            vec![
                ("region".to_string(), "Rügen".to_string()),
                ("ort".to_string(), "Waren (Müritz)".to_string()),
                ("leer".to_string(), String::new()),
                ("preis".to_string(), String::new()),
            ]
        );
        assert_eq!(form_encode("Rostock und Umgebung"), "Rostock+und+Umgebung");
        assert_eq!(
            form_encode("Fischland-Darß-Zingst"),
            "Fischland-Dar%DF-Zingst"
        );
        assert_eq!(form_encode("a&b=c"), "a%26b%3Dc");
        let round = parse_form(format!("x={}", form_encode("Röbel/Müritz + Plau")).as_bytes());
        assert_eq!(round[0].1, "Röbel/Müritz + Plau");
    }

    #[test]
    fn meta_tags_keep_quotes_intact() {
        assert_eq!(
            meta("DB.Result.ort", "a = \"#FF8000\""),
            "<META NAME=\"DB.Result.ort\" CONTENT='a = \"#FF8000\"'>\n"
        );
        assert_eq!(
            meta("DB.Result.x", "b = 'y' & c"),
            "<META NAME=\"DB.Result.x\" CONTENT=\"b = 'y' &amp; c\">\n"
        );
    }
}
