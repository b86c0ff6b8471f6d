use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(feature = "bench")]
mod bench;
mod cli;

/// gather — surfaces the databases behind query forms into search indexes.
#[derive(Debug, Parser)]
#[command(name = "gather", version, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    gather: cli::gather::GatherArgs,
    /// More log output: -v each request (method, URL, status, bytes, time),
    /// -vv also the rules' values per page; RUST_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the built-in CityWorld demo site on 127.0.0.1 and gather it end to end.
    Demo(cli::demo::DemoArgs),
    /// Write the gathered index fragments as SOIF or JSON.
    Export(cli::output::ExportArgs),
    /// Which source and attribute hold each term, and the query that surfaced it.
    Search(cli::output::SearchArgs),
    /// Apply rules (a spec's, or the stored ones) to the kept result pages, without a request.
    Reextract(cli::output::ReextractArgs),
    /// Show the metadata, the form and the queries gather would send.
    Plan(cli::plan::PlanArgs),
    /// Validate metadata, rules and specs; list every problem.
    Check(cli::plan::CheckArgs),
    /// Print the YAML spec equivalent to a page's metadata.
    Spec(cli::plan::SpecArgs),
    /// Evaluate a HEL rule on local pages.
    Hel(cli::hel::HelArgs),
    /// Find the HEL paths that lead to a text on a page.
    Locate(cli::hel::LocateArgs),
    /// A page's links in groups: menus, pagination and content links.
    Links(cli::links::LinksArgs),
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
    Status(cli::output::StatusArgs),
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
        Some(Command::Search(a)) => cli::output::run_search(a),
        Some(Command::Reextract(a)) => cli::output::run_reextract(a),
        Some(Command::Plan(a)) => cli::plan::run_plan(a),
        Some(Command::Check(a)) => cli::plan::run_check(a),
        Some(Command::Spec(a)) => cli::plan::run_spec(a),
        Some(Command::Hel(a)) => cli::hel::run_hel(a),
        Some(Command::Locate(a)) => cli::hel::run_locate(a),
        Some(Command::Links(a)) => cli::links::run_links(a),
        Some(Command::Text(a)) => cli::text::run_text(a),
        Some(Command::Records(a)) => cli::records::run_records(a),
        Some(Command::Induce(a)) => cli::induce::run_induce(a),
        Some(Command::Summarize(a)) => cli::output::run_summarize(a),
        Some(Command::Worker(a)) => cli::gather::run_worker(a),
        Some(Command::Status(a)) => cli::output::run_status(a),
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
