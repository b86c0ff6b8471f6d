use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[cfg(feature = "bench")]
mod bench;
mod cli;

/// Surfaces the databases behind query forms into search indexes.
///
/// gather sends the queries a form page allows (its DB.* metadata, a YAML
/// spec, or probes of a form without either), walks every result page,
/// and stores the values and records in a database (SQLite, or a shared
/// PostgreSQL), from which `gather export` writes SOIF, JSON and CSV.
///
/// Data goes to standard output (`export`, `search`, `-o -`); progress,
/// the summary for people and errors go to standard error; `--json` prints
/// the summary as JSON on standard output instead.
#[derive(Debug, Parser)]
#[command(
    name = "gather",
    version,
    args_conflicts_with_subcommands = true,
    after_help = "`gather --help` shows every option, with examples; `gather COMMAND -h` a command's.",
    after_long_help = EXAMPLES
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    gather: cli::gather::GatherArgs,
    /// More log output on standard error: -v the HTTP requests a command
    /// sends (method, URL, status, bytes, time), -vv also the rules' values
    /// per page; RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

const EXAMPLES: &str = "\
Examples:
  gather demo                                      serve the demo site on 127.0.0.1 and gather it
  gather plan http://127.0.0.1:8642/cityworld/     the queries gather would send, none sent
  gather http://127.0.0.1:8642/cityworld/ --db hotels.sqlite
  gather --spec specs/hotels.yaml --db hotels.sqlite -o records.jsonl
  gather http://127.0.0.1:8642/cityworld/ --proxy http://127.0.0.1:3128 -H 'X-Team: research'
  gather export --db hotels.sqlite --records -o hotels.jsonl
  GATHER_DB=hotels.sqlite gather search Binz

Environment:
  GATHER_DB      the database of every command that takes --db
  GATHER_AUTH    HOST[:PORT]=USER:PASS entries, separated by white space
  HTTP_PROXY, HTTPS_PROXY, ALL_PROXY, NO_PROXY   the proxy, as curl reads them (--proxy overrides)
  RUST_LOG       log filter (overrides -v)

Exit status: 0 all went well, 1 queries or pages failed (what was gathered is
stored; the same command resumes), 2 bad input, 130 interrupted.";

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the built-in CityWorld demo site on 127.0.0.1 and gather it end to end.
    Demo(cli::demo::DemoArgs),
    /// Write the gathered sources as SOIF or JSON, or their records as JSON Lines or CSV.
    #[command(after_long_help = "\
Examples:
  gather export --db hotels.sqlite > hotels.soif           the sources as SOIF, for a broker
  gather export --db hotels.sqlite --format json -o sources.jsonl
  gather export --db hotels.sqlite --records -o records.jsonl
  gather export --db hotels.sqlite --records --format csv --source http://127.0.0.1:8642/cityworld/")]
    Export(cli::output::ExportArgs),
    /// Ask a database's sources again, fetch only what changed, and tell what is new, changed and gone.
    #[command(after_long_help = "\
Examples:
  gather refresh --db hotels.sqlite
  gather refresh --db hotels.sqlite --source http://127.0.0.1:8642/cityworld/ --json
  gather refresh --db postgres://gather@db.example/hotels   with `gather worker` on other machines
  gather export --db hotels.sqlite --changes-since 2026-11-28T00:00:00Z")]
    Refresh(cli::refresh::RefreshArgs),
    /// Which source and attribute hold each term, and the query that surfaced it.
    Search(cli::output::SearchArgs),
    /// Apply rules (a spec's, or the stored ones) to the kept result pages, without a request.
    Reextract(cli::output::ReextractArgs),
    /// Show the metadata, the form and the queries gather would send.
    #[command(after_long_help = "\
Examples:
  gather plan http://127.0.0.1:8642/cityworld/
  gather plan --spec specs/hotels.yaml --show 10")]
    Plan(cli::plan::PlanArgs),
    /// Validate metadata, rules and specs; list every problem.
    Check(cli::plan::CheckArgs),
    /// Print the YAML spec equivalent to a page's metadata.
    #[command(after_long_help = "\
Examples:
  gather spec http://127.0.0.1:8642/cityworld/ > cityworld.yaml
  gather spec --induce http://127.0.0.1:8642/plain/ > plain.yaml   a form without metadata")]
    Spec(cli::plan::SpecArgs),
    /// Evaluate a HEL rule on local pages.
    Hel(cli::hel::HelArgs),
    /// Find the HEL paths that lead to a text on a page.
    Locate(cli::hel::LocateArgs),
    /// A page's links in groups: menus, pagination and content links.
    Links(cli::links::LinksArgs),
    /// Every form of a page with its kind, every input with its role, and whether gather submits it.
    Forms(cli::forms::FormsArgs),
    /// The main text of a page or a URL, without menus, teasers and footers.
    Text(cli::text::TextArgs),
    /// The records of a result page or a URL with their fields, its pager and its total.
    Records(cli::records::RecordsArgs),
    /// Induce the template of result pages of one site; print its data slots as HEL rules.
    Induce(cli::induce::InduceArgs),
    /// The provider's side of the cooperative path: print the SOIF of a DBContent document.
    Summarize(cli::output::SummarizeArgs),
    /// Work on the shared plan of a PostgreSQL gatherer database (--db postgres://…).
    Worker(cli::gather::WorkerArgs),
    /// The sources, their queries by state, the workers alive, the requests per second.
    #[command(after_long_help = "\
Examples:
  gather status --db hotels.sqlite
  gather status --db postgres://gather@db.example:5432/gather --json")]
    Status(cli::output::StatusArgs),
    /// Print the completion script of a shell (bash, zsh, fish, elvish, powershell).
    #[command(after_long_help = "\
Examples:
  gather completions bash > ~/.local/share/bash-completion/completions/gather
  gather completions zsh > ~/.zfunc/_gather
  gather completions fish > ~/.config/fish/completions/gather.fish")]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff): `gather man | man -l -`.
    Man,
    /// Benchmarks.
    #[cfg(feature = "bench")]
    Bench(bench::BenchArgs),
    /// Benchmarks: built with the `bench` feature.
    #[cfg(not(feature = "bench"))]
    #[command(hide = true)]
    Bench {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging(cli.verbose);
    match &cli.command {
        None => cli::gather::run(&cli.gather),
        Some(Command::Demo(a)) => cli::demo::run(a),
        Some(Command::Export(a)) => cli::output::run_export(a),
        Some(Command::Refresh(a)) => cli::refresh::run(a),
        Some(Command::Search(a)) => cli::output::run_search(a),
        Some(Command::Reextract(a)) => cli::output::run_reextract(a),
        Some(Command::Plan(a)) => cli::plan::run_plan(a),
        Some(Command::Check(a)) => cli::plan::run_check(a),
        Some(Command::Spec(a)) => cli::plan::run_spec(a),
        Some(Command::Hel(a)) => cli::hel::run_hel(a),
        Some(Command::Locate(a)) => cli::hel::run_locate(a),
        Some(Command::Links(a)) => cli::links::run_links(a),
        Some(Command::Forms(a)) => cli::forms::run_forms(a),
        Some(Command::Text(a)) => cli::text::run_text(a),
        Some(Command::Records(a)) => cli::records::run_records(a),
        Some(Command::Induce(a)) => cli::induce::run_induce(a),
        Some(Command::Summarize(a)) => cli::output::run_summarize(a),
        Some(Command::Worker(a)) => cli::gather::run_worker(a),
        Some(Command::Status(a)) => cli::output::run_status(a),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(
                *shell,
                &mut Cli::command(),
                "gather",
                &mut std::io::stdout(),
            );
            cli::exit(cli::OK)
        }
        Some(Command::Man) => {
            let page = clap_mangen::Man::new(Cli::command());
            match page.render(&mut std::io::stdout()) {
                Ok(()) => cli::exit(cli::OK),
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => cli::exit(cli::OK),
                Err(e) => {
                    eprintln!("gather man: {e}");
                    cli::exit(cli::FAILED)
                }
            }
        }
        #[cfg(feature = "bench")]
        Some(Command::Bench(a)) => bench::run(a),
        #[cfg(not(feature = "bench"))]
        Some(Command::Bench { .. }) => {
            eprintln!(
                "gather bench: the benchmarks are left out of this build; build them with \
                 the bench feature: cargo run --release --features bench -- bench …"
            );
            cli::exit(cli::BAD_INPUT)
        }
    }
}

fn init_logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn,html5ever=error",
        1 => "gather=info",
        _ => "gather=debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
