//! `gather records URL` on the demo's hotel guide: from each region's
//! result page alone it reads the records the hand-written rules of
//! `specs/hotels.yaml` read (each hotel with the town above it), the
//! stated total, and rules that read the same again.

use std::collections::BTreeSet;

use gather::hel::Rule;
use gather::page::Page;
use gather::record::RecordRules;

use crate::support;

/// The guide's regions, as its form offers them.
const REGIONS: [&str; 8] = [
    "Fischland-Darß-Zingst",
    "Rügen",
    "Usedom",
    "Mecklenburgische Seenplatte",
    "Mecklenburgische Schweiz",
    "Rostock und Umgebung",
    "Westmecklenburg",
    "Vorpommern",
];

/// The result page of a region, as the form sends it (Latin-1).
fn result_url(base: &url::Url, region: &str) -> url::Url {
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(region);
    let region: String = form_urlencoded::byte_serialize(&bytes).collect();
    base.join(&format!("/cgi-bin/auswahl.pl?region={region}&preis=alle"))
        .unwrap()
}

/// (hotel, town) of every record the spec's rules read on a page.
fn by_spec(page: &Page, url: &str) -> BTreeSet<(String, String)> {
    let prefix = Some("html.body->table[1].");
    let rules = vec![
        (
            "ort".to_string(),
            Rule::parse_with_prefix(
                "tr[j:*].td[1].txt where tr[j].td[1].font.getAttr(color) = '#FF8000'",
                prefix,
            )
            .unwrap(),
        ),
        (
            "name".to_string(),
            Rule::parse_with_prefix(
                "tr[k:*].td[1].b.txt where tr[k].td[0].small.input.getAttr(name) = 'hotel_id'",
                prefix,
            )
            .unwrap(),
        ),
    ];
    RecordRules::new(&rules)
        .page_records(&rules, page, url)
        .into_iter()
        .map(|r| {
            let get = |n: &str| r.fields.get(n).unwrap().values().join(" ");
            (get("name"), get("ort"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_of_every_result_page_are_the_hand_written_rules_records() {
    let site = support::demo_site(300).await;
    let base = site.url(gather::demo::Variant::Listed);
    let mut hotels = 0;
    for region in REGIONS {
        let url = result_url(&base, region);
        let response = reqwest::get(url.clone()).await.unwrap();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let bytes = response.bytes().await.unwrap();
        let page = Page::from_bytes(&bytes, content_type.as_deref());
        let expected = by_spec(&page, url.as_str());
        assert!(!expected.is_empty(), "{region}: the spec reads records");
        hotels += expected.len();

        let target = url.to_string();
        let out = tokio::task::spawn_blocking(move || {
            support::gather(&["records", target.as_str(), "--json"])
        })
        .await
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
        let json: serde_json::Value = serde_json::from_str(&support::stdout(&out)).unwrap();
        let read: BTreeSet<(String, String)> = json["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["hotel_pension"].as_str().unwrap().to_string(),
                    r["heading"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(read, expected, "{region}");
        assert_eq!(
            json["total"]["count"].as_u64(),
            Some(expected.len() as u64),
            "{region}: the stated total"
        );
        assert!(json["pager"]["next"].is_null(), "{region}: one page");
    }
    assert!(hotels >= 250, "{hotels} hotels read");

    // The rules `--rules` prints read the same records with `gather hel`.
    let url = result_url(&base, "Rügen").to_string();
    let out = tokio::task::spawn_blocking(move || support::gather(&["records", &url, "--rules"]))
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let rules = support::stdout(&out);
    assert!(
        rules.starts_with("results:\n  - prefix: html.body.form.table.\n"),
        "{rules}"
    );
    assert!(
        rules.contains("tr[r:*].td[1].b.txt WHERE tr[r].td[1].b.txt =~ '.'"),
        "{rules}"
    );
    site.shutdown().await;
}

#[test]
fn a_missing_page_is_bad_input() {
    let out = support::gather(&["records", "/no/such/page.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(support::stderr(&out).contains("cannot read /no/such/page.html"));
}

/// `gather records PAGE | head -1`: the reader closes the pipe after one
/// line; gather ends quietly (no panic on the closed pipe), as `cat` does.
#[cfg(unix)]
#[test]
fn records_cut_short_by_the_reader_end_quietly() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("striped.html");
    let rows: String = (0..3000)
        .map(|i| {
            let stripe = if i % 2 == 0 { "odd" } else { "even" };
            format!("<tr class=\"{stripe} prio3\"><td class=id>#{i}</td><td class=summary>day {i}</td></tr>")
        })
        .collect();
    std::fs::write(
        &page,
        format!("<table><tr><th>Ticket</th><th>Summary</th></tr>{rows}</table>"),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gather"))
        .args(["records", page.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    let mut out = child.stdout.take().unwrap();
    let n = out.read(&mut first).unwrap();
    assert!(
        String::from_utf8_lossy(&first[..n]).starts_with("3000 records; fields: ticket, summary"),
        "striped rows are one list: {:?}",
        String::from_utf8_lossy(&first[..n])
    );
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(status.code(), Some(0), "{err}");
}
