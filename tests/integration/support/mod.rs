//! Real HTTP servers on 127.0.0.1 for the integration tests.
//!
//! - [`serve`] runs an axum router (well-behaved HTTP);
//! - [`serve_raw`] hands every accepted connection to a closure, for servers
//!   that must misbehave (reset, stall, cut a body short);
//! - [`Hits`] counts requests and remembers when they came, for assertions
//!   made on the server's side;
//! - [`fast_config`] is a fetch configuration with short timeouts and backoffs
//!   so that tests of failures stay fast;
//! - [`gather`] runs the `gather` binary as a user does;
//! - [`page_record`] and [`query_outcome`] make what the gatherer hands to the
//!   store;
//! - [`hel_fixture`] and [`hel_fixture_path`] find the seed's example pages;
//!   [`s`] and [`strs`] write the values rules give.
//!
//! Every server binds port 0 and lives until the test's runtime ends.

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use gather::fetch::FetchConfig;
use gather::fragment::IndexFragment;
use gather::hel::Nsl;
use gather::store::{PageRecord, QueryOutcome, QueryState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

/// Serves `router` on a fresh port of 127.0.0.1; returns its address.
pub async fn serve(router: axum::Router) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a port on 127.0.0.1");
    let addr = listener.local_addr().expect("bound address");
    tokio::spawn(async move {
        axum::serve(listener, router)
            .await
            .expect("test server runs");
    });
    addr
}

/// Accepts connections on a fresh port and runs `handle(connection, n)` for
/// each, `n` counting connections from 0.
pub async fn serve_raw<F, Fut>(handle: F) -> SocketAddr
where
    F: Fn(TcpStream, usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a port on 127.0.0.1");
    let addr = listener.local_addr().expect("bound address");
    tokio::spawn(async move {
        let mut n = 0;
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(handle(stream, n));
            n += 1;
        }
    });
    addr
}

/// Reads a request head (up to the empty line) from a raw connection.
pub async fn read_head(stream: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Writes raw bytes and flushes them; false when the peer is gone.
pub async fn write_all(stream: &mut TcpStream, bytes: &[u8]) -> bool {
    stream.write_all(bytes).await.is_ok() && stream.flush().await.is_ok()
}

/// `http://ADDR/PATH`.
pub fn url(addr: SocketAddr, path: &str) -> Url {
    Url::parse(&format!("http://{addr}{path}")).expect("test URL")
}

/// A fetch configuration for tests: short timeout (500 ms), short backoff
/// (5 ms), 2 retries, robots.txt off (tests of robots turn it on).
pub fn fast_config() -> FetchConfig {
    FetchConfig {
        timeout: Duration::from_millis(500),
        backoff: Duration::from_millis(5),
        retries: 2,
        respect_robots: false,
        ..FetchConfig::default()
    }
}

/// Requests seen by a test server: how many, when, and how many were in
/// flight at most.
#[derive(Clone, Default)]
pub struct Hits {
    count: Arc<AtomicUsize>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
    times: Arc<Mutex<Vec<Instant>>>,
}

impl Hits {
    /// Records the start of a request; the guard records its end when dropped.
    pub fn enter(&self) -> InFlight {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.times
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(Instant::now());
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight {
            in_flight: self.in_flight.clone(),
        }
    }

    pub fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }

    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Arrival times, in order.
    pub fn times(&self) -> Vec<Instant> {
        let mut times = self.times.lock().unwrap_or_else(|p| p.into_inner()).clone();
        times.sort();
        times
    }
}

/// Marks one request in flight (see [`Hits::enter`]).
pub struct InFlight {
    in_flight: Arc<AtomicUsize>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A GET handler that records each request in `hits` and answers `answer()`.
pub fn counted_get<R, F>(hits: &Hits, answer: F) -> axum::routing::MethodRouter
where
    F: Fn() -> R + Clone + Send + Sync + 'static,
    R: axum::response::IntoResponse + Send + 'static,
{
    let hits = hits.clone();
    axum::routing::get(move || {
        let hits = hits.clone();
        let answer = answer.clone();
        async move {
            let _guard = hits.enter();
            answer()
        }
    })
}

/// Runs the `gather` binary with `args` and an empty standard input.
pub fn gather(args: &[&str]) -> Output {
    gather_with_input(args, None)
}

/// Runs the `gather` binary with `args`, writing `stdin` (if any) to its
/// standard input.
pub fn gather_with_input(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gather"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gather");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(bytes) = stdin {
        input.write_all(bytes).expect("write stdin");
    }
    drop(input);
    child.wait_with_output().expect("wait")
}

/// The command's standard output as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The command's standard error as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A result page fetched with HTTP 200, `bytes` long.
pub fn page_record(url: &str, bytes: u64) -> PageRecord {
    PageRecord {
        url: url.into(),
        status: 200,
        bytes,
        sha256: "ab".repeat(32),
        fetched_at: 1_700_000_000,
        elapsed_ms: 12,
        kept: None,
    }
}

/// The outcome of a query that gave `pages` and `values` (attribute, value);
/// a failed query carries the error "HTTP 500".
pub fn query_outcome(
    key: &str,
    description: &str,
    state: QueryState,
    pages: Vec<PageRecord>,
    values: &[(&str, &str)],
) -> QueryOutcome {
    QueryOutcome {
        key: key.into(),
        ordinal: 0,
        description: description.into(),
        state,
        error: (state == QueryState::Failed).then(|| "HTTP 500".to_string()),
        attempts: 1,
        pages,
        fragment: values.iter().copied().collect::<IndexFragment>(),
        records: Vec::new(),
        cut_short: false,
        checkpoint: None,
        walk_links: Vec::new(),
        fresh: true,
        mark: None,
        refresh: None,
        answer: None,
        values: None,
        parent: None,
        learned: false,
    }
}

/// A file of the repository, by its path from the repository's root (the
/// tests are built by the cli crate, in `crates/cli`).
pub fn repo_path(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(relative)
}

/// The path of a page in `tests/fixtures/hel`.
pub fn hel_fixture_path(name: &str) -> String {
    crate::support::repo_path(&format!("tests/fixtures/hel/{name}"))
        .display()
        .to_string()
}

/// The bytes of a page in `tests/fixtures/hel`.
pub fn hel_fixture(name: &str) -> Vec<u8> {
    let path = hel_fixture_path(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One string value of a rule.
pub fn s(v: &str) -> Nsl {
    Nsl::Str(v.to_string())
}

/// A list of string values of a rule.
pub fn strs(vs: &[&str]) -> Nsl {
    Nsl::List(vs.iter().map(|v| s(v)).collect())
}

/// Runs a command to its end and returns its output with its own peak
/// memory in KiB: the largest `VmHWM` of `/proc/PID/status`, read every
/// millisecond while it runs. Neither `getrusage(RUSAGE_CHILDREN)` nor
/// `wait4` will do: at `exec`, Linux records the high-water mark of the
/// memory the child shared with this test binary as the child's own, so a
/// child started while the tests held much memory seemed to need it all.
/// `VmHWM` belongs to the child's own memory after `exec`, which `spawn`
/// has waited for.
pub fn output_with_peak_rss(cmd: &mut Command) -> (Output, u64) {
    use std::io::Read;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.read_to_end(&mut buf).unwrap();
            buf
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0u64;
    let status = loop {
        if let Ok(text) = std::fs::read_to_string(&status_file) {
            let hwm = text
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
            peak = peak.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    assert!(peak > 0, "the child's memory was read at least once");
    let output = Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, peak)
}

/// The demo site with `hotels` hotels on a free port.
pub async fn demo_site(hotels: usize) -> gather::demo::DemoSite {
    gather::demo::DemoSite::start(gather::demo::DemoConfig {
        hotels,
        ..gather::demo::DemoConfig::default()
    })
    .await
    .expect("demo site starts")
}
