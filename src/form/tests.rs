use super::*;
use encoding_rs::{UTF_8, WINDOWS_1252};

const CITYWORLD: &str = r#"<html><head><title>CityWorld</title></head><body>
<h1>Hotels und Pensionen</h1>
<form action="/cgi-bin/auswahl.pl" method="POST" accept-charset="ISO-8859-1">
<table>
<tr><td>Region:</td><td>
  <input type="radio" name="region" value="1" checked>Fischland
  <input type="radio" name="region" value="2">R&uuml;gen
  <input type="radio" name="region" value="3"> Usedom
</td></tr>
<tr><td><label for="ort">Ort</label></td><td><input id="ort" name="ort"></td></tr>
<tr><td>Zimmerpreis</td><td><select name="preis">
  <option value="">egal
  <option value="50">bis 50 DM
  <option value="100" selected>bis 100 DM
  <option disabled value="x">ausgebucht
</select></td></tr>
<tr><td><label>Nur mit Frühstück <input type="checkbox" name="fr" value="ja"></label></td></tr>
<tr><td><textarea name="notiz">
zwei
Zeilen</textarea><input type="hidden" name="lang" value="de">
<input type="text" name="off" disabled value="nie">
<input type="submit" value="Suchen"><input type="submit" name="alt" value="Anders"></td></tr>
</table>
</form>
<form id="f2" action="https://other.test/q"><input name="q"><button name="go" value="1">Go</button></form>
</body></html>"#;

fn page() -> Url {
    Url::parse("http://cityworld.test/hotels/form.html").unwrap()
}

#[test]
fn reads_every_form_with_action_method_and_charset() {
    let forms = forms(&Page::parse(CITYWORLD), &page(), UTF_8).unwrap();
    assert_eq!(forms.len(), 2);
    let f = &forms[0];
    assert_eq!(
        f.action.as_str(),
        "http://cityworld.test/cgi-bin/auswahl.pl"
    );
    assert_eq!(f.method, Method::Post);
    assert_eq!(f.enctype, Enctype::UrlEncoded);
    assert_eq!(
        f.encoding, WINDOWS_1252,
        "ISO-8859-1 is windows-1252 to a browser"
    );
    assert_eq!(forms[1].method, Method::Get);
    assert_eq!(forms[1].encoding, UTF_8, "the page's encoding");
    assert_eq!(forms[1].id.as_deref(), Some("f2"));
}

#[test]
fn elements_with_names_domains_defaults_and_labels() {
    let forms = forms(&Page::parse(CITYWORLD), &page(), UTF_8).unwrap();
    let f = &forms[0];
    let names: Vec<_> = f.elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["region", "ort", "preis", "fr", "notiz", "lang", "", "alt"]
    );

    let region = f.element("region").unwrap();
    assert_eq!(region.domain().unwrap(), ["1", "2", "3"]);
    assert_eq!(region.label.as_deref(), Some("Region:"));
    match &region.kind {
        ElementKind::Radio { choices } => {
            let labels: Vec<_> = choices.iter().map(|c| c.label.as_str()).collect();
            assert_eq!(labels, ["Fischland", "Rügen", "Usedom"]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(region.default_values(), ["1"]);

    let ort = f.element("ort").unwrap();
    assert_eq!(
        ort.domain(),
        None,
        "a text field has an undetermined domain"
    );
    assert_eq!(ort.label.as_deref(), Some("Ort"));
    assert_eq!(ort.default_values(), [""]);

    let preis = f.element("preis").unwrap();
    assert_eq!(
        preis.domain().unwrap(),
        ["", "50", "100"],
        "disabled options are left out"
    );
    assert_eq!(preis.default_values(), ["100"]);
    assert_eq!(preis.label.as_deref(), Some("Zimmerpreis"));
    match &preis.kind {
        ElementKind::Select { options, multiple } => {
            assert!(!multiple);
            assert_eq!(options[1].label, "bis 50 DM");
        }
        other => panic!("{other:?}"),
    }

    let fr = f.element("fr").unwrap();
    assert_eq!(fr.label.as_deref(), Some("Nur mit Frühstück"));
    assert!(
        fr.default_values().is_empty(),
        "an unchecked checkbox sends nothing"
    );
    assert_eq!(
        f.element("notiz").unwrap().default_values(),
        ["zwei\nZeilen"]
    );
    assert_eq!(f.element("lang").unwrap().default_values(), ["de"]);
    assert!(
        f.element("off").is_none(),
        "disabled controls are not submitted"
    );
    let off: Vec<&str> = f.unsent.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        off,
        ["off"],
        "but they are kept apart, for what enables them"
    );
}

#[test]
fn form_opened_inside_a_table_keeps_its_controls() {
    let html = r#"<table><form action="q.pl"><tr><td>Stadt <input name="stadt"></td></tr></form></table>
        <table><form action="r.pl" method=post><tr><td><select name="s" multiple><option selected>a<option>b<option selected>c</select></td></tr></form></table>"#;
    let forms = forms(&Page::parse(html), &page(), UTF_8).unwrap();
    assert_eq!(forms.len(), 2);
    assert_eq!(forms[0].element_names(), ["stadt"]);
    assert_eq!(forms[0].elements[0].label.as_deref(), Some("Stadt"));
    let s = forms[1].element("s").unwrap();
    assert_eq!(s.default_values(), ["a", "c"]);
    assert_eq!(s.domain().unwrap(), ["a", "b", "c"]);
}

#[test]
fn labels_take_the_nearest_line_of_text() {
    let html = "<form>Region: <input type=radio name=r value=1>Fischland\n<input type=radio name=r value=2>R\u{fc}gen\nOrt <input name=ort></form>";
    let f = &forms(&Page::parse(html), &page(), UTF_8).unwrap()[0];
    assert_eq!(f.element("r").unwrap().label.as_deref(), Some("Region:"));
    assert_eq!(f.element("ort").unwrap().label.as_deref(), Some("Ort"));
    match &f.element("r").unwrap().kind {
        ElementKind::Radio { choices } => {
            assert_eq!(choices[1].label, "R\u{fc}gen");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn single_select_without_selection_defaults_to_its_first_option() {
    let html = r#"<form><select name="s"><option value=x>X<option value=y>Y</select>
        <input type=radio name=r value=1><input type=radio name=r value=2>
        <input type=checkbox name=c checked></form>"#;
    let f = &forms(&Page::parse(html), &page(), UTF_8).unwrap()[0];
    assert_eq!(f.element("s").unwrap().default_values(), ["x"]);
    assert!(f.element("r").unwrap().default_values().is_empty());
    assert_eq!(f.element("c").unwrap().default_values(), ["on"]);
    assert_eq!(f.action, page(), "an empty action submits to the page");
}

#[test]
fn script_buttons_are_kept_apart_and_only_inside_their_form() {
    let html = r#"<form action="/find"><input name="q">
        <input type="button" name="go" value="Search" onclick="find()"></form>
        <div class="header"><input type="button" name="login" value="Sign in" onclick="open()"></div>"#;
    let f = &forms(&Page::parse(html), &page(), UTF_8).unwrap()[0];
    let sent: Vec<&str> = f.elements.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(sent, ["q"], "a script button is never sent");
    let kept: Vec<(&str, &str)> = f
        .unsent
        .iter()
        .map(|e| (e.name.as_str(), e.kind_name()))
        .collect();
    assert_eq!(
        kept,
        [("go", "script button")],
        "the form's own is kept apart; the page's \"Sign in\" after the form is not the form's"
    );
}
