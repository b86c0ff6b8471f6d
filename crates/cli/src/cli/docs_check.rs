//! The docs cannot drift from the command line: every `gather …` command
//! the README and the manual (`docs/*.md`) show — in a code block or in a
//! code span of the text — names a subcommand that exists, and every
//! `--option` it names is one of that subcommand's. The front page's tour
//! is also run for real against the demo site (`tests/integration/docs_tour.rs`).

use std::path::Path;

use clap::CommandFactory;

/// The lines of a Markdown text but the fences of its code blocks, each
/// with whether it is inside a code block.
fn fenced_lines(markdown: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut fenced = false;
    markdown.lines().filter_map(move |line| {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            return None;
        }
        Some((fenced, line))
    })
}

/// The `gather …` commands shown in a Markdown text: the lines of its code
/// blocks and its code spans that start with `gather `.
fn shown_commands(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (fenced, line) in fenced_lines(markdown) {
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

/// The repository's root: this crate sits in `crates/cli`.
fn repo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn docs() -> Vec<(String, String)> {
    let root = &repo_root();
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

/// The `](target)` links of a Markdown text, outside code blocks and spans.
fn links(markdown: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, line) in fenced_lines(markdown).filter(|(fenced, _)| !fenced) {
        for (i, text) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            let mut rest = text;
            while let Some(at) = rest.find("](") {
                rest = &rest[at + 2..];
                if let Some(end) = rest.find(')') {
                    out.push(rest[..end].trim().to_string());
                    rest = &rest[end..];
                }
            }
        }
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation other
/// than `-` and `_` dropped, spaces made `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(markdown: &str) -> Vec<String> {
    fenced_lines(markdown)
        .filter(|(fenced, line)| !fenced && line.starts_with('#'))
        .map(|(_, line)| anchor(line.trim_start_matches('#')))
        .collect()
}

/// The problem with a relative link of the document at `from`, if any.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().unwrap_or(Path::new(".")).join(path)
    };
    if !file.exists() {
        return Some(format!("{target}: no file {}", file.display()));
    }
    if fragment.is_empty() || file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&file).ok()?;
    (!anchors(&text).iter().any(|a| a == fragment))
        .then(|| format!("{target}: no heading #{fragment} in {}", file.display()))
}

#[test]
fn every_relative_link_in_the_docs_leads_somewhere() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (file, text) in docs() {
        for target in links(&text) {
            checked += 1;
            if let Some(problem) = broken(Path::new(&file), &target) {
                problems.push(format!("{file}: {problem}"));
            }
        }
    }
    assert!(checked > 20, "only {checked} links found in the docs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_link_check_finds_a_missing_file_or_heading() {
    let root = repo_root();
    let readme = root.join("README.md");
    assert_eq!(broken(&readme, "docs/output.md"), None);
    assert_eq!(broken(&readme, "https://example.org/x"), None);
    assert!(broken(&readme, "docs/no-such-page.md").is_some());
    assert!(broken(&readme, "#no-such-heading").is_some());
    assert_eq!(
        anchor(" The first command: `gather demo`"),
        "the-first-command-gather-demo"
    );
    assert_eq!(
        links("see [a](b.md) and `[c](d)`\n```\n[e](f)\n```\n"),
        ["b.md"]
    );
}

#[test]
fn every_example_in_the_help_is_a_command_gather_has() {
    let cli = crate::Cli::command();
    let mut examples = Vec::new();
    let mut commands = vec![cli];
    while let Some(command) = commands.pop() {
        if let Some(text) = command.get_after_long_help() {
            examples.extend(
                text.to_string()
                    .lines()
                    .map(str::trim)
                    .filter(|l| l.starts_with("gather "))
                    .map(|l| l.split("  ").next().unwrap_or_default().to_string()),
            );
        }
        commands.extend(command.get_subcommands().cloned());
    }
    assert!(examples.len() > 10, "only {} examples", examples.len());
    let problems: Vec<String> = examples
        .iter()
        .filter_map(|e| check(e).map(|p| format!("`{e}`: {p}")))
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
