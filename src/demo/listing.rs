//! Generated result pages and rules for measuring HEL (`gather bench hel`,
//! `benches/hel.rs`): product listings as a shop would show them.
//!
//! The pages imitate product listings of real shops: a head with scripts,
//! styles and meta tags, navigation menus, nested layout tables and divs, a
//! product table, inline attributes, entities and some malformed markup
//! (unclosed cells and list items, a stray end tag, `<font>` around rows).
//! They are generated, not crawled; about 40 KB each.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;

/// The five rules `gather bench hel` evaluates on every page.
pub const RULES: [&str; 5] = [
    // Product names, the product table found by its id.
    "html.body->table[t].tr[1-].td[1].a.txt WHERE html.body->table[t].getAttr(id) = 'products'",
    // Prices of the products in stock, split into euros and cents.
    "html.body->table[3].tr[r:*].td[3].txt, match/EUR ([0-9.]+),([0-9]{2})/ \
     WHERE html.body->table[3].tr[r].td[4].txt =~ '(?i)in stock'",
    // Every link with its text.
    "html.body->a[*](.txt # .getAttr(href))",
    // The entries of the main menu.
    "html.body->div[d].ul.li[*].a.txt WHERE html.body->div[d].getAttr(class) = 'menu'",
    // Per product: link, features, picture.
    "html.body->table[3].tr[1-](.td[1].a.getAttr(href) # .td[2].txt, split/\\s*;\\s*/ \
     # .td[0].img.getAttr(src))",
];

const WORDS: &[&str] = &[
    "Kaffeemaschine",
    "Edelstahl",
    "Wasserkocher",
    "Toaster",
    "Mixer",
    "Espresso",
    "Mühle",
    "Küchenwaage",
    "Thermoskanne",
    "Pfanne",
    "Topf-Set",
    "Messerblock",
    "Schneidebrett",
    "Salatschleuder",
    "Backform",
    "Dampfgarer",
    "Entsafter",
    "Milchaufschäumer",
    "Vakuumierer",
    "Reiskocher",
    "compact",
    "premium",
    "classic",
    "design",
    "pro",
    "XL",
    "mini",
    "eco",
];

const CATEGORIES: &[&str] = &[
    "Küche &amp; Haushalt",
    "Elektronik",
    "Garten",
    "Baumarkt",
    "Spielzeug",
    "Sport &amp; Freizeit",
    "Bücher",
    "Mode",
    "Schuhe",
    "Drogerie",
    "Lebensmittel",
    "Tierbedarf",
    "Auto &amp; Motorrad",
    "Büro",
    "Musik",
    "Filme",
    "Computer",
    "Handys",
    "Foto",
    "Möbel",
    "Beleuchtung",
    "Heimtextilien",
    "Kinder",
    "Baby",
    "Schmuck",
    "Uhren",
    "Koffer",
    "Outdoor",
    "Fitness",
    "Angebote",
];

/// A product-listing page of about `target` bytes, the same for the same `seed`.
pub fn generate_page(seed: u64, target: usize) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut h = String::with_capacity(target + 8192);
    let shop = ["Haushalt24", "KüchenWelt", "CasaShop", "Kochprofi"][rng.gen_range(0..4)];
    let category = CATEGORIES[rng.gen_range(0..CATEGORIES.len())];
    head(&mut h, &mut rng, shop, category);
    // Layout: header table (table[0]), body table (table[1]) holding the
    // product table (table[3], after the sidebar box).
    let _ = write!(
        h,
        "<BODY BGCOLOR=\"#ffffff\" onload=\"init()\">\n<div id=top><a name=top></a>\n\
         <table width=\"100%\" cellpadding=0 cellspacing=0 border=0 class=header><tr>\
         <td width=200><a href=\"/\"><img src=\"/img/logo.gif\" alt=\"{shop}\" width=180 height=60 border=0></a></td>\
         <td align=center><form action=\"/suche\" method=get name=search>\
         <input type=text name=q size=40 value=\"\" placeholder=\"Suchbegriff\">\
         <select name=cat><option value=0>Alle Kategorien"
    );
    for (i, c) in CATEGORIES.iter().enumerate().take(12) {
        let _ = write!(h, "<option value={}>{c}", i + 1);
    }
    h.push_str(
        "</select><input type=submit value=\"Suchen\"></form></td>\
         <td align=right><a href=\"/konto\">Mein Konto</a> | <a href=\"/warenkorb\">Warenkorb (0)</a></td></tr></table>\n</div>\n",
    );
    // Main menu.
    h.push_str("<div class=menu><ul>\n");
    for (i, c) in CATEGORIES.iter().enumerate() {
        // Some list items are left open.
        let close = if i % 3 == 0 { "" } else { "</li>" };
        let _ = writeln!(
            h,
            "  <li class=\"cat cat-{i}\"><a href=\"/kategorie/{i}/\" title=\"{c}\">{c}</a>{close}"
        );
    }
    h.push_str("</ul></div>\n");
    let _ = writeln!(
        h,
        "<div class=breadcrumb><a href=\"/\">Startseite</a> &raquo; <a href=\"/kategorie/\">{category}</a> &raquo; <b>Seite {}</b></div>",
        rng.gen_range(1..20)
    );
    h.push_str(
        "<table width=\"100%\" border=0 cellspacing=0 cellpadding=4 class=layout><tr>\n<td valign=top width=180 class=sidebar>\n",
    );
    sidebar(&mut h, &mut rng);
    h.push_str("</td>\n<td valign=top>\n<h1>");
    h.push_str(category);
    h.push_str(
        "</h1>\n<p class=intro>Unsere Auswahl &ndash; versandkostenfrei ab 29&nbsp;&euro;.\n",
    );
    h.push_str(
        "<table id=products class=\"list striped\" width=\"100%\" border=0 cellpadding=3>\n\
         <tr class=head><th>Bild</th><th>Artikel</th><th>Merkmale</th><th>Preis</th><th>Verf&uuml;gbarkeit</th><th></th></tr>\n",
    );
    let mut n = 0;
    while h.len() + 3000 < target {
        product_row(&mut h, &mut rng, n);
        n += 1;
    }
    h.push_str("</table>\n");
    let pages = rng.gen_range(3..30);
    h.push_str("<div class=pager>Seite: ");
    for p in 1..=pages.min(10) {
        let _ = write!(h, "<a href=\"?seite={p}\">{p}</a> ");
    }
    h.push_str("<a href=\"?seite=2\">weiter &raquo;</a></div>\n</td></tr></table>\n");
    footer(&mut h);
    h
}

/// A long product listing of `rows` short list items (about 55 bytes
/// each: a linked name and a price), the same for the same `seed`: a shop's "show
/// all" page, for measuring induction on large pages (`gather bench
/// induce --large`). Returns the page and, per row, the name and the price.
pub fn generate_long_page(seed: u64, rows: usize) -> (String, Vec<(String, String)>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut h = String::with_capacity(rows * 60 + 4096);
    let shop = ["Haushalt24", "KüchenWelt", "CasaShop", "Kochprofi"][rng.gen_range(0..4)];
    let category = CATEGORIES[rng.gen_range(0..CATEGORIES.len())];
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=de><head><meta charset=utf-8><title>{category} | {shop}</title></head>\n\
         <body><div class=menu><ul>"
    );
    for (i, c) in CATEGORIES.iter().enumerate().take(8) {
        let _ = write!(h, "<li><a href=/k/{i}>{c}</a>");
    }
    let _ = write!(
        h,
        "</ul></div>\n<h1>{category}</h1>\n<p>Alle Artikel auf einer Seite.</p>\n<ul id=all>\n"
    );
    let mut values = Vec::with_capacity(rows);
    for _ in 0..rows {
        let id = rng.gen_range(100_000..999_999);
        let name = format!(
            "{} {}",
            WORDS[rng.gen_range(0..20)],
            rng.gen_range(10..9999)
        );
        let price = format!("{},{:02} EUR", rng.gen_range(1..999), rng.gen_range(0..100));
        let _ = writeln!(h, "<li><a href=/a/{id}>{name}</a> <b>{price}</b>");
        values.push((name, price));
    }
    h.push_str("</ul>\n<p class=copy>&copy; Shop GmbH</p></body></html>\n");
    (h, values)
}

fn head(h: &mut String, rng: &mut ChaCha8Rng, shop: &str, category: &str) {
    let _ = write!(
        h,
        "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Transitional//EN\">\n<HTML lang=de>\n<HEAD>\n\
         <meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">\n\
         <title>{category} g&uuml;nstig kaufen | {shop}</title>\n\
         <meta name=\"description\" content=\"{category} bei {shop}: gro&szlig;e Auswahl, schneller Versand.\">\n\
         <meta name=\"keywords\" content=\"{category}, kaufen, online, shop, angebote\">\n\
         <meta name=\"robots\" content=\"index,follow\">\n\
         <meta name=viewport content=\"width=device-width, initial-scale=1\">\n\
         <link rel=stylesheet href=\"/css/main.css?v={}\" type=\"text/css\">\n\
         <link rel=\"shortcut icon\" href=\"/favicon.ico\">\n<style type=\"text/css\">\n",
        rng.gen_range(100..999)
    );
    for i in 0..40 {
        let _ = writeln!(
            h,
            ".c{i} {{ margin: {}px {}px; padding: 0 {}px; color: #{:06x}; font: 12px/1.4 Verdana, Arial, sans-serif }}",
            i % 7,
            i % 5,
            i % 3,
            rng.gen_range(0..0xffffff)
        );
    }
    h.push_str("</style>\n<script type=\"text/javascript\">\nvar shopConfig = {\n");
    for i in 0..60 {
        let _ = writeln!(
            h,
            "  \"key{i}\": {{ \"id\": {}, \"label\": \"<b>{}</b>\", \"enabled\": {} }},",
            rng.gen_range(1000..99999),
            WORDS[i % WORDS.len()],
            i % 2 == 0
        );
    }
    h.push_str(
        "};\nfunction init() { if (document.images && shopConfig.key1.id < 5000) { preload('/img/a.gif'); } \
         for (var i = 0; i < 10; i++) { if (i < 3 && i > 0) { document.write('<img src=\"/t/' + i + '.gif\">'); } } }\n\
         </script>\n<script src=\"/js/jquery.min.js\"></script>\n\
         <script>(function(i,s,o,g,r,a,m){i['GoogleAnalyticsObject']=r;i[r]=i[r]||function(){(i[r].q=i[r].q||[]).push(arguments)}})(window,document,'script','//www.google-analytics.com/analytics.js','ga');</script>\n\
         <!-- end of head -->\n</HEAD>\n",
    );
}

fn sidebar(h: &mut String, rng: &mut ChaCha8Rng) {
    h.push_str("<div class=filter><h3>Filtern nach</h3>\n<form action=\"\" method=get>\n<b>Marke</b><br>\n");
    for brand in [
        "Bosch", "Siemens", "WMF", "Tefal", "Philips", "Krups", "Rowenta", "Braun",
    ] {
        let _ = writeln!(
            h,
            "<input type=checkbox name=marke value=\"{brand}\"> {brand} ({})<br>",
            rng.gen_range(1..120)
        );
    }
    h.push_str("<b>Preis</b><br>\n");
    for (lo, hi) in [(0, 25), (25, 50), (50, 100), (100, 250), (250, 1000)] {
        let _ = writeln!(
            h,
            "<input type=radio name=preis value=\"{lo}-{hi}\"> {lo} &ndash; {hi}&nbsp;&euro;<br>"
        );
    }
    h.push_str("<input type=submit value=Filtern></form></div>\n");
    // A layout table left with unclosed cells, a stray end tag and <font>
    // wrapped around its rows.
    h.push_str("<table class=box><font face=Verdana size=1><tr><td>Newsletter<td><a href=\"/newsletter\">Jetzt anmelden</a></tr></font></span>\n");
    h.push_str("<tr><td colspan=2><div class=badge>Trusted Shop<br><img src=\"/img/siegel.png\" alt=\"Siegel\"></div></table>\n");
}

fn product_row(h: &mut String, rng: &mut ChaCha8Rng, n: usize) {
    let id = rng.gen_range(10000..99999);
    let name = format!(
        "{} {} {}",
        WORDS[rng.gen_range(0..20)],
        WORDS[rng.gen_range(0..WORDS.len())],
        rng.gen_range(100..9999)
    );
    let euros = rng.gen_range(5..2500);
    let cents = rng.gen_range(0..100);
    let price = if euros >= 1000 {
        format!("{}.{:03}", euros / 1000, euros % 1000)
    } else {
        euros.to_string()
    };
    let stock = match rng.gen_range(0..4) {
        0 => "<span class=no>Nicht lieferbar</span>",
        1 => "<span class=few>Nur noch wenige</span> in Stock",
        _ => "<span class=yes>In Stock</span> &ndash; Lieferung in 1&ndash;3 Tagen",
    };
    let class = if n.is_multiple_of(2) { "even" } else { "odd" };
    // Every fourth row leaves its cells unclosed.
    let (td_end, tr_end) = if n % 4 == 3 {
        ("", "")
    } else {
        ("</td>", "</tr>")
    };
    let _ = write!(
        h,
        "<tr class=\"{class}\" id=\"p{id}\" data-sku=\"SKU-{id}\">\n\
         <td class=img><a href=\"/artikel/{id}.html\"><img src=\"/bilder/{id}_k.jpg\" width=80 height=80 alt=\"{name}\" border=0></a>{td_end}\n\
         <td class=name><a href=\"/artikel/{id}.html\" title=\"{name}\">{name}</a><br><small>Art.-Nr. {id}</small>{td_end}\n\
         <td class=features>{} Watt; {}&nbsp;Liter; Farbe: {}; {}{td_end}\n\
         <td class=price align=right><b>EUR {price},{cents:02}</b><br><small>inkl. MwSt., zzgl. <a href=\"/versand\">Versand</a></small>{td_end}\n\
         <td class=stock>{stock}{td_end}\n\
         <td><form action=\"/warenkorb\" method=post><input type=hidden name=id value={id}><input type=text name=menge value=1 size=2><input type=image src=\"/img/korb.gif\" alt=\"In den Warenkorb\"></form>{td_end}\n\
         {tr_end}\n<!-- product {id} -->\n",
        rng.gen_range(200..2400),
        rng.gen_range(1..5),
        ["schwarz", "wei&szlig;", "edelstahl", "rot", "cr&egrave;me"][rng.gen_range(0..5)],
        ["Spülmaschinenfest", "BPA-frei", "&Uuml;berhitzungsschutz", "Timer &amp; Display"][rng.gen_range(0..4)],
    );
}

fn footer(h: &mut String) {
    h.push_str("<div id=footer><table width=\"100%\"><tr>\n");
    for col in ["Service", "Über uns", "Rechtliches", "Zahlung"] {
        let _ = write!(h, "<td valign=top><b>{col}</b><ul>");
        for i in 0..6 {
            let _ = write!(h, "<li><a href=\"/info/{i}\">{col} {i}</a>");
        }
        h.push_str("</ul></td>\n");
    }
    h.push_str(
        "</tr></table>\n<p class=copy>&copy; 2001&ndash;2024 Shop GmbH &middot; Alle Preise in &euro; inkl. MwSt.</p></div>\n\
         <script>init();</script>\n</BODY>\n</HTML>\n",
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hel::{Nsl, Rule};
    use crate::page::Page;

    #[test]
    fn generated_pages_answer_every_rule() {
        let html = generate_page(7, 40_000);
        assert!((38_000..44_000).contains(&html.len()), "{}", html.len());
        assert_eq!(html, generate_page(7, 40_000));
        let page = Page::parse(&html);
        let values: Vec<Nsl> = RULES
            .iter()
            .map(|r| Rule::parse(r).unwrap_or_else(|e| panic!("{e}")).eval(&page))
            .collect();
        let rows = html.matches("<tr class=\"").count();
        assert_eq!(values[0].flatten().len(), rows);
        assert!(!values[1].flatten().is_empty());
        assert!(values[1]
            .flatten()
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_digit() || c == '.')));
        assert!(values[2].flatten().len() > 100);
        assert_eq!(values[3].flatten().len(), CATEGORIES.len());
        assert_eq!(values[3].flatten()[0], "Küche & Haushalt");
        let Nsl::List(products) = &values[4] else {
            panic!("{:?}", values[4])
        };
        assert_eq!(products.len(), rows);
        assert!(
            page.heap_bytes() <= 3 * html.len(),
            "{} > 3 × {}",
            page.heap_bytes(),
            html.len()
        );
    }
}
