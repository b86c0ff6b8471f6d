//! Forms as old pages write them: bytes in ISO-8859-1 declared in a meta
//! tag, upper-case tags, unquoted attributes, a form opened inside a table,
//! options without end tags.

use gather::charset;
use gather::fetch::Method;
use gather::form::{forms, ElementKind, Enctype};
use gather::page::Page;
use url::Url;

const PAGE: &[u8] =
    b"<HTML><HEAD><META HTTP-EQUIV=\"Content-Type\" CONTENT=\"text/html; charset=iso-8859-1\">\n\
<TITLE>CityWorld</TITLE></HEAD><BODY BGCOLOR=#FFFFFF>\n\
<TABLE BORDER=0><FORM ACTION=\"auswahl.pl\" METHOD=POST ENCTYPE=\"multipart/form-data\">\n\
<TR><TD><B>Region</B></TD><TD>\n\
<INPUT TYPE=RADIO NAME=region VALUE=fischland CHECKED> Fischland/Dar\xdf\n\
<INPUT TYPE=RADIO NAME=region VALUE=ruegen> R\xfcgen\n\
</TD></TR>\n\
<TR><TD>Preisklasse</TD><TD><SELECT NAME=preis>\n\
<OPTION VALUE=1>bis 50,- DM\n<OPTION VALUE=2 SELECTED>50,- bis 100,- DM\n<OPTION>\xfcber 100,- DM\n\
</SELECT></TD></TR>\n\
<TR><TD COLSPAN=2><INPUT TYPE=IMAGE NAME=suchen SRC=\"los.gif\"></TD></TR>\n\
</FORM></TABLE></BODY></HTML>";

#[test]
fn an_old_iso_8859_1_page_with_a_form_inside_a_table() {
    let decoded = charset::decode(PAGE, None);
    let page = Url::parse("http://www.cityworld.test/cgi-bin/form.html").unwrap();
    let all = forms(&Page::parse(&decoded.text), &page, decoded.encoding).unwrap();
    assert_eq!(all.len(), 1);
    let f = &all[0];
    assert_eq!(
        f.action.as_str(),
        "http://www.cityworld.test/cgi-bin/auswahl.pl"
    );
    assert_eq!(f.method, Method::Post);
    assert_eq!(f.enctype, Enctype::Multipart);
    assert_eq!(f.encoding, encoding_rs::WINDOWS_1252);
    assert_eq!(f.element_names(), ["region", "preis"]);

    let region = f.element("region").unwrap();
    assert_eq!(region.label.as_deref(), Some("Region"));
    match &region.kind {
        ElementKind::Radio { choices } => {
            let labels: Vec<_> = choices.iter().map(|c| c.label.as_str()).collect();
            assert_eq!(labels, ["Fischland/Darß", "Rügen"]);
        }
        other => panic!("{other:?}"),
    }
    let preis = f.element("preis").unwrap();
    assert_eq!(preis.label.as_deref(), Some("Preisklasse"));
    assert_eq!(preis.domain().unwrap(), ["1", "2", "über 100,- DM"]);
    assert_eq!(preis.default_values(), ["2"]);
    assert!(f
        .elements
        .iter()
        .any(|e| e.name == "suchen" && matches!(e.kind, ElementKind::Submit { image: true, .. })));
}

#[test]
fn its_queries_are_multipart_with_the_image_button_coordinates() {
    use gather::metadata::{Entry, Metadata, Origin};
    use gather::plan::QueryPlan;
    let decoded = charset::decode(PAGE, None);
    let page = Url::parse("http://www.cityworld.test/cgi-bin/form.html").unwrap();
    let f = forms(&Page::parse(&decoded.text), &page, decoded.encoding)
        .unwrap()
        .remove(0);
    let md = Metadata::parse(&[Entry {
        name: "DB.QueryElement".into(),
        value: "preis".into(),
        origin: Origin::ConfigLine {
            file: "t".into(),
            line: 1,
        },
        hint: None,
    }])
    .unwrap();
    let plan = QueryPlan::build(Some(&f), &md, &page, decoded.encoding, None).unwrap();
    assert_eq!(plan.len(), 3);
    let q = plan.query(2).unwrap();
    let ct = q.request.content_type.clone().unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
    let body = q.request.body.unwrap();
    let part = |name: &str, value: &[u8]| {
        let mut p =
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n")
                .into_bytes();
        p.extend_from_slice(value);
        p.extend_from_slice(b"\r\n");
        p
    };
    let mut expected = Vec::new();
    expected.extend(part("region", b"fischland"));
    expected.extend(part("preis", b"\xfcber 100,- DM"));
    expected.extend(part("suchen.x", b"0"));
    expected.extend(part("suchen.y", b"0"));
    expected.extend(format!("--{boundary}--\r\n").into_bytes());
    assert_eq!(body, expected, "{}", String::from_utf8_lossy(&body));
}

#[test]
fn a_form_page_nested_60_000_divs_deep_gives_its_forms() {
    let depth = 60_000;
    let html = format!(
        "<html><body><form action=\"/q\" method=post><input name=top>{}\
         Preis <select name=preis><option value=1>billig<option value=2>teuer</select>\
         <input type=radio name=region value=r>R\u{fc}gen{}\
         <input name=after></form>\
         <form action=\"/r\"><input name=second></form></body></html>",
        "<div>".repeat(depth),
        "</div>".repeat(depth)
    );
    let page = Url::parse("http://www.cityworld.test/deep.html").unwrap();
    let all = forms(&Page::parse(&html), &page, encoding_rs::UTF_8).unwrap();
    assert_eq!(all.len(), 2);
    let f = &all[0];
    assert_eq!(f.action.as_str(), "http://www.cityworld.test/q");
    assert_eq!(f.element_names(), ["top", "preis", "region", "after"]);
    let preis = f.element("preis").unwrap();
    assert_eq!(preis.domain().unwrap(), ["1", "2"]);
    assert_eq!(preis.label.as_deref(), Some("Preis"));
    match &f.element("region").unwrap().kind {
        ElementKind::Radio { choices } => assert_eq!(choices[0].label, "Rügen"),
        other => panic!("{other:?}"),
    }
    assert_eq!(all[1].element_names(), ["second"]);
}
