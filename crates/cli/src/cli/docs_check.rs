//! The docs cannot drift from the command line: every `gather …` command
//! the README and the manual (`docs/*.md`) show — in a code block or in a
//! code span of the text — names a subcommand that exists, and every
//! `--option` it names is one of that subcommand's. The front page's tour
//! is also run for real against the demo site (`tests/integration/docs_tour.rs`).

use std::path::Path;

use clap::CommandFactory;

/// The `gather …` commands shown in a Markdown text: the lines of its code
/// blocks and its code spans that start with `gather `.
fn shown_commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let line = line.trim().trim_start_matches("$ ");
            if line.starts_with("gather ") {
                out.push(line.to_string());
            }
            continue;
        }
        // Code spans: text between single backticks.
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("gather ") {
                out.push(span.to_string());
            }
        }
    }
    out
}

/// Checks one command against the parser's own definition; the problem,
/// if any.
fn check(command: &str) -> Option<String> {
    // What follows a pipe, a comment or a redirection is another program's.
    let command = command
        .split(['|', '#', '>'])
        .next()
        .unwrap_or_default()
        .trim();
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    let mut cmd = crate::Cli::command();
    cmd.build();
    let mut current = cmd;
    let mut path = vec!["gather".to_string()];
    for word in &words {
        let bare = word.trim_start_matches(['[', '(']);
        if let Some(long) = bare.strip_prefix("--") {
            let name: String = long
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name.is_empty() {
                continue;
            }
            let known = current
                .get_arguments()
                .any(|a| a.get_long() == Some(name.as_str()))
                || matches!(name.as_str(), "help" | "version" | "verbose");
            if !known {
                return Some(format!("{}: no option --{name}", path.join(" ")));
            }
            continue;
        }
        if bare.starts_with('-') {
            continue;
        }
        // A word that names a subcommand goes down to it; any other is a value.
        let sub = current.find_subcommand(bare).cloned();
        match sub {
            Some(sub) => {
                path.push(bare.to_string());
                current = sub;
            }
            // A placeholder (`…`, `WHAT`) stands for any subcommand.
            None if current.has_subcommands()
                && path.len() > 1
                && bare.chars().any(|c| c.is_ascii_lowercase()) =>
            {
                return Some(format!("{}: no subcommand {bare:?}", path.join(" ")));
            }
            None => {}
        }
    }
    None
}

fn docs() -> Vec<(String, String)> {
    // The repository's root: this crate sits in `crates/cli`.
    let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = vec![root.join("README.md"), root.join("specs/README.md")];
    let mut manual: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    manual.sort();
    files.extend(manual);
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("a doc");
            (p.display().to_string(), text)
        })
        .collect()
}

#[test]
fn every_command_in_the_docs_is_one_gather_has() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, text) in docs() {
        for command in shown_commands(&text) {
            // Without the bench feature, `gather bench` has no subcommands
            // to check against; `.ci/test` builds it.
            if cfg!(not(feature = "bench")) && command.starts_with("gather bench") {
                continue;
            }
            checked += 1;
            if let Some(problem) = check(&command) {
                problems.push(format!("{file}: `{command}`: {problem}"));
            }
        }
    }
    assert!(checked > 50, "only {checked} commands found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_check_finds_an_option_or_subcommand_that_is_not_there() {
    assert_eq!(check("gather export --db x.sqlite --format soif"), None);
    assert_eq!(check("gather --spec a.yaml --max-queries 5"), None);
    assert!(check("gather export --colour").is_some());
    assert_eq!(check("gather bench …"), None);
    assert!(check("gather status --db x --no-such-option").is_some());
    assert_eq!(
        shown_commands("a `gather plan URL` b\n```sh\ngather check URL  # x\n```\n"),
        ["gather plan URL", "gather check URL  # x"]
    );
}
