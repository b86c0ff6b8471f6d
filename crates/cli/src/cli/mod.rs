//! The command line: one file per group of subcommands.

use std::process::ExitCode;

/// `println!` for what a command prints on standard output ([`out_line`]):
/// a reader that went away ends the command quietly instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::out_line(format_args!($($arg)*))
    };
}

pub mod demo;
#[cfg(test)]
mod docs_check;
pub mod forms;
pub mod gather;
pub mod hel;
pub mod induce;
pub mod links;
pub mod output;
pub mod plan;
mod progress;
pub mod records;
pub mod refresh;
pub mod text;

/// Exit status: success.
pub const OK: u8 = 0;
/// Exit status: some queries, pages or sources failed after their retries
/// (what was gathered is stored), or an I/O error.
pub const FAILED: u8 = 1;
/// Exit status: bad input (a rule, metadata, a spec, an argument).
pub const BAD_INPUT: u8 = 2;

/// Writes a line to standard output. When the reader went away
/// (`gather text PAGE | head`), the command ends at once with success, as
/// `cat` does: nothing more can reach it, and what it wrote was read. Any
/// other error ends it with [`FAILED`], named.
pub fn out_line(line: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{line}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(i32::from(OK));
        }
        eprintln!("gather: cannot write to standard output: {e}");
        std::process::exit(i32::from(FAILED));
    }
}

/// Exit status: interrupted (Ctrl-C), as shells report a SIGINT.
pub const INTERRUPTED: u8 = 130;

/// On the first Ctrl-C, asks the gathering to stop where what it did is
/// saved; on the second, stops the process at once (every query that ended
/// is saved; one whose walk was going on continues from its last page).
pub fn stop_on_ctrl_c(runtime: &tokio::runtime::Runtime) -> ::gather::gatherer::Interrupt {
    let interrupt = ::gather::gatherer::Interrupt::default();
    let flag = interrupt.clone();
    runtime.spawn(async move {
        if tokio::signal::ctrl_c().await.is_err() {
            return;
        }
        eprintln!("\ngather: interrupted; finishing the queries in flight (Ctrl-C again stops at once)");
        flag.set();
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("gather: stopped; every query that ended is saved; run the same command again to resume");
            std::process::exit(i32::from(INTERRUPTED));
        }
    });
    interrupt
}

/// The exit status a gathering's report gives.
pub fn report_status(report: &::gather::gatherer::Report) -> u8 {
    if report.interrupted {
        INTERRUPTED
    } else if report.bad_input() {
        BAD_INPUT
    } else if report.failed() {
        FAILED
    } else {
        OK
    }
}

pub fn exit(code: u8) -> ExitCode {
    ExitCode::from(code)
}

/// Where database sources come from, shared by `gather`, `plan`, `check` and `spec`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SourceArgs {
    /// Form pages (or start pages) to gather.
    #[arg(value_name = "URL")]
    pub urls: Vec<String>,
    /// YAML specs describing sources that carry no metadata.
    #[arg(long = "spec", value_name = "FILE")]
    pub specs: Vec<std::path::PathBuf>,
    #[command(flatten)]
    pub login: CredentialArgs,
    /// At most this many queries per source (the provider's DB.MaxQueries may be lower).
    #[arg(long, value_name = "N")]
    pub max_queries: Option<u64>,
    /// Query a text field that has no domain with words learned from the
    /// answers, seeded with the values the form page enumerates, then its
    /// own most frequent words.
    #[arg(long)]
    pub learn: bool,
    /// Let pages also come from this host (HOST or HOST:PORT; repeatable):
    /// a query's result pages, and the configuration file and domain pages
    /// the metadata names. By default gather stays on the form page's host.
    #[arg(long = "allow-host", value_name = "HOST[:PORT]")]
    pub allow_hosts: Vec<String>,
    /// On a page without metadata, submit this form (its position from 0,
    /// its name or its id; repeatable) whatever its kind. By default only a
    /// form judged a search form that asks for no password, e-mail, file or
    /// captcha is submitted (see `gather forms URL`).
    #[arg(long = "forms", value_name = "FORM")]
    pub forms: Vec<String>,
}

impl SourceArgs {
    /// The credentials of [`CredentialArgs`], or a message for the user.
    pub fn credentials(&self) -> Result<::gather::fetch::Credentials, String> {
        self.login.credentials()
    }
}

/// HTTP Basic credentials for the providers' hosts, shared by `gather`,
/// `gather worker`, `plan`, `check` and `spec`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct CredentialArgs {
    /// HTTP Basic credentials for one host, sent to it alone:
    /// HOST[:PORT]=USER:PASS (repeatable). Visible to other users in the
    /// process list: prefer --netrc or GATHER_AUTH.
    #[arg(long = "auth", value_name = "HOST[:PORT]=USER:PASS")]
    pub auth: Vec<String>,
    /// Credentials from a netrc-style file (`machine HOST login USER password PASS`).
    #[arg(long = "netrc", value_name = "FILE")]
    pub netrc: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// The proxy, headers and cookies of every request, shared by the commands
/// that send requests to providers.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NetworkArgs {
    /// Send every request through this proxy: http://HOST:PORT (or
    /// https://, socks5://). Without it, HTTP_PROXY, HTTPS_PROXY and
    /// ALL_PROXY are honoured; NO_PROXY (host names, comma-separated)
    /// exempts hosts in both cases.
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// Send this header with every request: 'Name: value' (repeatable).
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// Start with the cookies of a Netscape cookie file (as curl -c and
    /// wget --save-cookies write it). Cookies the sites set are kept for
    /// the run in any case.
    #[arg(long, value_name = "FILE")]
    pub cookies: Option<std::path::PathBuf>,
}

impl NetworkArgs {
    /// The network these options describe, or a message for the user.
    pub fn network(&self) -> Result<::gather::fetch::Network, String> {
        let mut network = ::gather::fetch::Network::default();
        if let Some(proxy) = &self.proxy {
            network.set_proxy(proxy)?;
        }
        for header in &self.headers {
            network.add_header(header)?;
        }
        if let Some(path) = &self.cookies {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--cookies {}: {e}", path.display()))?;
            network
                .add_cookie_file(&text)
                .map_err(|e| format!("--cookies {}: {e}", path.display()))?;
        }
        Ok(network)
    }
}

impl CredentialArgs {
    /// The credentials of `--auth`, `--netrc FILE` and the environment
    /// variable `GATHER_AUTH` (`HOST[:PORT]=USER:PASS` entries separated by
    /// white space), or a message for the user.
    pub fn credentials(&self) -> Result<::gather::fetch::Credentials, String> {
        let mut credentials = ::gather::fetch::Credentials::default();
        if let Ok(from_env) = std::env::var("GATHER_AUTH") {
            for spec in from_env.split_whitespace() {
                credentials
                    .add_spec(spec)
                    .map_err(|e| format!("GATHER_AUTH: {e}"))?;
            }
        }
        if let Some(path) = &self.netrc {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("--netrc {}: {e}", path.display()))?;
            credentials
                .add_netrc(&text)
                .map_err(|e| format!("--netrc {}: {e}", path.display()))?;
        }
        for spec in &self.auth {
            credentials.add_spec(spec)?;
        }
        Ok(credentials)
    }
}
