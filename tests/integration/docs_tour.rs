//! The front page's five-minute tour, run as a newcomer would run it: each
//! `gather` line of its first code block, in a directory of its own, against
//! the demo site it starts. (That every other command the docs show names
//! a subcommand and options gather has is checked in `src/cli/docs_check.rs`.)

use std::process::{Command, Stdio};

/// The `gather …` lines of the first code block after the tour's heading.
fn tour() -> Vec<String> {
    let readme =
        std::fs::read_to_string(crate::support::repo_path("README.md")).expect("README.md");
    let after = readme
        .split("## A five-minute tour")
        .nth(1)
        .expect("the README has a five-minute tour");
    let block = after
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the tour has a code block");
    block
        .lines()
        .filter(|l| l.starts_with("gather "))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_tour_runs_as_written() {
    let lines = tour();
    assert!(lines.len() >= 5, "{lines:?}");
    let dir = tempfile::tempdir().unwrap();
    for line in &lines {
        // The shell's part: a comment, and the file stdout goes to.
        let command = line.split("  #").next().unwrap().trim();
        let (command, into) = match command.split_once(" > ") {
            Some((c, file)) => (c.trim(), Some(file.trim())),
            None => (command, None),
        };
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let out = Command::new(env!("CARGO_BIN_EXE_gather"))
            .args(&args)
            .current_dir(dir.path())
            .env("RUST_LOG", "off")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{command}`:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(file) = into {
            assert!(!out.stdout.is_empty(), "`{command}` wrote nothing");
            std::fs::write(dir.path().join(file), &out.stdout).unwrap();
        }
        if args.first() == Some(&"search") {
            assert!(
                String::from_utf8_lossy(&out.stdout).contains("Binz"),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }
    // The records are one CSV row per result row, under one header.
    let csv = std::fs::read_to_string(dir.path().join("hotels.csv")).unwrap();
    assert!(csv.lines().count() > 1000, "{} lines", csv.lines().count());
    assert!(csv.starts_with("source,query,page,ordinal,"), "{csv:.200}");
    let soif = std::fs::read_to_string(dir.path().join("demo.soif")).unwrap();
    assert!(soif.starts_with("@FILE { "), "{soif:.200}");
}
