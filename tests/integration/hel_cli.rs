//! `gather hel`, `gather locate` and `gather bench hel` as a user runs them.

use crate::support;

use support::{gather_with_input as gather, hel_fixture_path as fixture, stdout};

#[test]
fn hel_prints_one_json_line_per_page() {
    let malformed = std::fs::read(fixture("cityworld_malformed.html")).unwrap();
    let o = gather(
        &[
            "hel",
            "--prefix",
            "html.body->table[1].",
            "tr[j:*].td[1].txt\n  where tr[j].td[1].font.getAttr(color) = '#FF8000'",
            &fixture("cityworld.html"),
            "-",
            &fixture("currency.html"),
        ],
        Some(&malformed),
    );
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(
        stdout(&o),
        format!(
            "{}: [\"Ahrenshoop\",\"Wustrow\"]\n-: [\"Ahrenshoop\",\"Wustrow\"]\n{}: []\n",
            fixture("cityworld.html"),
            fixture("currency.html")
        )
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn hel_rule_error_exits_2_with_caret() {
    let o = gather(
        &[
            "hel",
            "html.body->table[1].tr[i:*.td[1].txt",
            &fixture("cityworld.html"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("did you mean `tr[i:*]`?"), "{err}");
    assert!(
        err.contains("\n  html.body->table[1].tr[i:*.td[1].txt\n                            ^"),
        "{err}"
    );
}

#[test]
fn hel_unreadable_page_exits_1_and_goes_on() {
    let o = gather(
        &[
            "hel",
            "html.head.title.txt",
            "/no/such/page.html",
            &fixture("currency.html"),
        ],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        format!("{}: \"Currency Converter\"\n", fixture("currency.html"))
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("/no/such/page.html"));
}

#[test]
fn locate_prints_verified_paths() {
    let o = gather(&["locate", &fixture("cityworld.html"), "Sonnenhof"], None);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = stdout(&o);
    assert!(
        out.starts_with(
            "html.body.table.tr.td[1].form.table.tr[5].td[1].b.txt\n    = \"Hotel Sonnenhof\"\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("  robust: html->table[1].tr[v:*].td[1].b.txt WHERE html->table[1].tr[v].td.small.input.getAttr(name) = 'hotel_id'\n"),
        "{out}"
    );
    let o = gather(&["locate", &fixture("currency.html"), "0.6024"], None);
    assert!(
        stdout(&o).contains(
            "robust: html->table[1].tr[1].td[c].txt WHERE html->table[1].tr[0].th[c].txt = 'DMark'"
        ),
        "{}",
        stdout(&o)
    );
    let o = gather(&["locate", &fixture("currency.html"), "no such text"], None);
    assert_eq!(o.status.code(), Some(1));
}

/// Built without the `bench` feature, `gather bench` says how to get the
/// benchmarks instead of running them (`.ci/test` builds them).
#[cfg(not(feature = "bench"))]
#[test]
fn bench_without_the_feature_says_how_to_build_it() {
    let o = gather(&["bench", "hel", "--runs", "1", "."], None);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--features bench"), "{err}");
}

#[cfg(feature = "bench")]
#[test]
fn bench_generates_and_measures() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = gather(&["bench", "hel", "--generate", "3", d], None);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    let o = gather(&["bench", "hel", "--runs", "1", d], None);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = stdout(&o);
    assert!(out.starts_with("3 pages, 0.1 MB"), "{out}");
    assert!(out.contains("parse + 5 rules: "), "{out}");
    assert!(out.contains("tree memory: "), "{out}");
    let empty = tempfile::tempdir().unwrap();
    let o = gather(&["bench", "hel", empty.path().to_str().unwrap()], None);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn locate_stops_quietly_when_its_reader_goes_away() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("many.html");
    let cells: String = (0..4000)
        .map(|i| format!("<tr><td>x</td><td>{i}</td></tr>"))
        .collect();
    std::fs::write(
        &page,
        format!("<html><body><table>{cells}</table></body></html>"),
    )
    .unwrap();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gather"))
        .args(["locate", "--max", "100000"])
        .arg(&page)
        .arg("x")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read a little, as `| head` does, and go away.
    let mut pipe = child.stdout.take().unwrap();
    let mut first = [0u8; 64];
    std::io::Read::read_exact(&mut pipe, &mut first).unwrap();
    drop(pipe);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let o = gather(&["locate", "--max", "3", page.to_str().unwrap(), "x"], None);
    assert!(
        stdout(&o).contains("… and 3997 more places"),
        "{}",
        stdout(&o)
    );
}
