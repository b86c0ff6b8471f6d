//! Fetching: HTTP on reqwest/tokio, as a polite gatherer does it.
//!
//! One [`Fetcher`] is shared by every task of a gathering run (it is cheap to
//! clone; clones share connections, politeness state, the robots.txt cache and
//! the counters). For every request it
//!
//! - asks the host's robots.txt first (turned off by
//!   [`FetchConfig::respect_robots`]),
//! - waits for a free slot of the host (at most
//!   [`FetchConfig::concurrency_per_host`] requests in flight) and for its turn
//!   ([`FetchConfig::delay`] between the starts of two requests to one host,
//!   or the robots.txt `Crawl-delay` when that is longer, capped at
//!   [`MAX_CRAWL_DELAY`]),
//! - retries with exponential backoff on 5xx answers, 429 Too Many Requests,
//!   timeouts, refused or reset connections and truncated bodies (never on
//!   other 4xx, nor on a host name that does not resolve); an answer that asks for a longer pause in `Retry-After`
//!   (seconds) gets it, up to one minute,
//! - follows redirects itself, so that the user's credentials are chosen anew
//!   for every hop and never travel to another host,
//! - reads the body as a stream and stops as soon as it exceeds
//!   [`FetchConfig::max_body_bytes`].
//!
//! Attempts are counted per hop: [`Response::attempts`] and the `attempts` of
//! an error are the attempts made for the URL that answered (or failed) last.

mod network;
mod request;
mod robots;

pub use network::Network;
pub use request::{Method, Request, Validators};

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{
    HeaderMap, CONTENT_LENGTH, CONTENT_TYPE, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
    LOCATION, RETRY_AFTER,
};
use tokio::sync::{OnceCell, Semaphore};
use tokio::time::Instant;
use url::Url;

use crate::charset;

use robots::RobotsRules;

/// The longest robots.txt `Crawl-delay` honoured; a longer one is cut to this.
pub const MAX_CRAWL_DELAY: Duration = Duration::from_secs(30);

/// Longest pause between two attempts, however many retries were made.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// How the fetcher behaves. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Requests in flight at once to one host (default 2).
    pub concurrency_per_host: usize,
    /// Pause between the starts of two requests to one host (default 0).
    pub delay: Duration,
    /// Time allowed for one whole attempt, connecting to the last body byte
    /// (default 30 s).
    pub timeout: Duration,
    /// Retries after the first attempt on 5xx, timeouts, refused or reset
    /// connections and truncated bodies (default 3).
    pub retries: u32,
    /// First backoff; doubled on each retry (default 200 ms).
    pub backoff: Duration,
    /// Redirects followed (default 10).
    pub max_redirects: usize,
    /// Largest body accepted (default 16 MiB).
    pub max_body_bytes: usize,
    /// Sent with every request; its first word (`gather`) is also the name
    /// robots.txt rules are matched against.
    pub user_agent: String,
    /// HTTP Basic credentials, each sent only to its own host.
    pub credentials: Credentials,
    /// Honour robots.txt (default true).
    pub respect_robots: bool,
    /// Adapt the pause between requests to a host to how fast it answers
    /// (default off): the latency of its answers divided by
    /// [`FetchConfig::concurrency_per_host`], never below `delay`, up to a
    /// minute; a provider that slows down is asked less often.
    pub auto_throttle: bool,
    /// Politeness shared with other processes (workers on a PostgreSQL
    /// gatherer database): the slots of a host and the pause between two
    /// requests are held there, so that all the workers together keep
    /// [`FetchConfig::concurrency_per_host`] and [`FetchConfig::delay`].
    pub shared_hosts: Option<HostGate>,
    /// The proxy, extra headers and starting cookies (default: the
    /// environment's proxy, nothing else). Cookies the providers set are
    /// kept for the fetcher's life in any case.
    pub network: Network,
}

/// Politeness held outside the process: a request to a host waits for one
/// of the host's slots (at most `slots` in flight across every process
/// sharing it) and for its turn (`delay` after the previous start).
pub trait SharedHosts: Send + Sync {
    /// Waits for a slot of `origin` and the request's turn; the slot is
    /// freed by [`SharedHosts::release`], or when the process dies.
    fn acquire<'a>(
        &'a self,
        origin: &'a str,
        slots: usize,
        delay: Duration,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<i64, String>> + Send + 'a>>;

    /// Frees a slot [`SharedHosts::acquire`] gave.
    fn release<'a>(
        &'a self,
        origin: &'a str,
        slot: i64,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'a>>;
}

/// The shared politeness a fetcher uses ([`FetchConfig::shared_hosts`]).
#[derive(Clone)]
pub struct HostGate(pub Arc<dyn SharedHosts>);

impl std::fmt::Debug for HostGate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HostGate")
    }
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            concurrency_per_host: 2,
            delay: Duration::ZERO,
            timeout: Duration::from_secs(30),
            retries: 3,
            backoff: Duration::from_millis(200),
            max_redirects: 10,
            max_body_bytes: 16 << 20,
            user_agent: format!(
                "gather/{} (+deep-web gatherer; metadata-driven)",
                env!("CARGO_PKG_VERSION")
            ),
            credentials: Credentials::default(),
            respect_robots: true,
            auto_throttle: false,
            shared_hosts: None,
            network: Network::default(),
        }
    }
}

/// HTTP Basic credentials the user configured, each for one host (and port).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    by_authority: HashMap<String, (String, String)>,
}

impl Credentials {
    /// Adds `HOST[:PORT]=USER:PASS` (the `--auth` syntax).
    pub fn add_spec(&mut self, spec: &str) -> Result<(), String> {
        let (authority, userpass) = spec
            .split_once('=')
            .ok_or_else(|| format!("--auth {spec:?}: expected HOST[:PORT]=USER:PASS"))?;
        let (user, pass) = userpass
            .split_once(':')
            .ok_or_else(|| format!("--auth {spec:?}: expected USER:PASS after '='"))?;
        if authority.is_empty() || user.is_empty() {
            return Err(format!("--auth {spec:?}: host and user must not be empty"));
        }
        self.add(authority, user, pass);
        Ok(())
    }

    /// Adds the credentials of a netrc-style file: `machine HOST login USER
    /// password PASS` (tokens separated by any white space; `HOST` may carry
    /// a `:PORT`; `#` starts a comment line). A `default` entry is refused:
    /// credentials go to the hosts they name, never to every host.
    pub fn add_netrc(&mut self, text: &str) -> Result<usize, String> {
        let tokens: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .flat_map(str::split_whitespace)
            .collect();
        let mut added = 0;
        let mut i = 0;
        while i < tokens.len() {
            match tokens[i] {
                "machine" => {
                    let host = tokens.get(i + 1).ok_or("`machine` without a host")?;
                    let (mut login, mut password) = (None, None);
                    i += 2;
                    while let Some(&key) = tokens.get(i) {
                        match key {
                            "login" => login = tokens.get(i + 1).copied(),
                            "password" => password = tokens.get(i + 1).copied(),
                            "account" => {}
                            _ => break,
                        }
                        i += 2;
                    }
                    let login = login.ok_or_else(|| format!("machine {host}: no login"))?;
                    self.add(host, login, password.unwrap_or(""));
                    added += 1;
                }
                "default" => return Err(
                    "a `default` entry would send its credentials to every host; name the machine"
                        .into(),
                ),
                other => {
                    return Err(format!(
                        "unexpected {other:?}; expected `machine HOST login USER password PASS`"
                    ))
                }
            }
        }
        Ok(added)
    }

    /// Credentials for `authority` (`host` or `host:port`).
    pub fn add(&mut self, authority: &str, user: &str, pass: &str) {
        self.by_authority.insert(
            authority.to_ascii_lowercase(),
            (user.to_string(), pass.to_string()),
        );
    }

    /// The credentials that may be sent to this URL's host: a `host:port`
    /// entry first, then a bare `host` entry.
    fn for_url(&self, url: &Url) -> Option<(&str, &str)> {
        let host = url.host_str()?.to_ascii_lowercase();
        let with_port = url.port_or_known_default().map(|p| format!("{host}:{p}"));
        with_port
            .and_then(|a| self.by_authority.get(&a))
            .or_else(|| self.by_authority.get(&host))
            .map(|(u, p)| (u.as_str(), p.as_str()))
    }

    /// True when no credentials were configured.
    pub fn is_empty(&self) -> bool {
        self.by_authority.is_empty()
    }
}

/// A response with its whole body.
#[derive(Debug, Clone)]
pub struct Response {
    /// The URL after redirects.
    pub url: Url,
    pub status: u16,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
    /// Attempts it took at the final URL (1 when the first one succeeded).
    pub attempts: u32,
    /// From sending the request (redirects, retries and waits for the host
    /// included) to the last byte of the body.
    pub elapsed: std::time::Duration,
}

impl Response {
    /// The body as text, decoded as a browser would (see `charset`).
    pub fn text(&self) -> charset::Decoded {
        charset::decode(&self.body, self.content_type.as_deref())
    }
}

/// What a conditional request ([`Fetcher::fetch_conditional`]) gave.
#[derive(Debug)]
pub enum Conditional {
    /// 304: the answer is the one the validators were taken from.
    NotModified,
    /// A new answer, with the validators it carries.
    Changed(Box<Response>, Validators),
}

/// Why a request gave no usable response.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// A non-2xx answer (a 5xx only after all retries failed).
    #[error("{url}: HTTP {status} (after {attempts} attempt(s))")]
    Status {
        url: Url,
        status: u16,
        attempts: u32,
    },
    #[error("{url}: timed out after {attempts} attempt(s)")]
    Timeout { url: Url, attempts: u32 },
    /// Connection refused or reset, a truncated body, and similar.
    #[error("{url}: {message} (after {attempts} attempt(s))")]
    Transport {
        url: Url,
        message: String,
        attempts: u32,
    },
    #[error("{url}: body larger than {limit} bytes")]
    TooLarge { url: Url, limit: usize },
    #[error("{url}: disallowed by robots.txt")]
    Robots { url: Url },
    #[error("{url}: {message}")]
    Redirect { url: Url, message: String },
    /// Only `http` and `https` URLs are fetched.
    #[error("{url}: only http and https URLs can be fetched")]
    Scheme { url: Url },
}

impl FetchError {
    /// True when asking this URL again cannot help: a redirect to a scheme
    /// that is not fetched or into a loop, robots.txt, a body over the
    /// limit, a 4xx answer other than 408 and 429. A timeout, a transport
    /// error or a 5xx may go away in a later run.
    pub fn is_permanent(&self) -> bool {
        match self {
            FetchError::Status { status, .. } => {
                (400..500).contains(status) && !matches!(status, 408 | 429)
            }
            FetchError::Timeout { .. } | FetchError::Transport { .. } => false,
            FetchError::TooLarge { .. }
            | FetchError::Robots { .. }
            | FetchError::Redirect { .. }
            | FetchError::Scheme { .. } => true,
        }
    }
}

/// Counters of one fetcher (and its clones), for the run's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchStats {
    /// HTTP requests sent, retries and robots.txt requests included.
    pub requests: u64,
    /// Requests that repeated an earlier, failed attempt.
    pub retries: u64,
    /// Body bytes received (after decompression).
    pub bytes: u64,
    /// Calls of [`Fetcher::fetch`] that ended in an error.
    pub failures: u64,
}

#[derive(Default)]
struct Counters {
    requests: AtomicU64,
    retries: AtomicU64,
    bytes: AtomicU64,
    failures: AtomicU64,
}

/// Politeness state and robots.txt rules of one host (scheme, host and port).
struct Host {
    slots: Arc<Semaphore>,
    next_start: tokio::sync::Mutex<Instant>,
    robots: OnceCell<RobotsRules>,
    /// The pause [`FetchConfig::auto_throttle`] asks for now.
    throttle: Mutex<Duration>,
}

impl Host {
    /// The adaptive pause, as Scrapy's AutoThrottle sets it: the answer's
    /// latency divided by the requests wanted in flight, averaged with the
    /// pause before; an answer that is an error (5xx, 429, no answer) never
    /// shortens it.
    fn throttle_after(&self, latency: Duration, in_flight: usize, failed: bool) {
        let mut pause = self.throttle.lock().unwrap_or_else(|p| p.into_inner());
        let wanted = latency / u32::try_from(in_flight.max(1)).unwrap_or(u32::MAX);
        let next = (*pause + wanted) / 2;
        if !(failed && next < *pause) {
            *pause = next.min(MAX_BACKOFF);
        }
    }

    fn throttle(&self) -> Duration {
        *self.throttle.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Waits until a request may start, and books the next start `delay` later.
    async fn wait_turn(&self, delay: Duration) {
        let mut next = self.next_start.lock().await;
        tokio::time::sleep_until(*next).await;
        *next = Instant::now() + delay;
    }
}

struct Inner {
    client: reqwest::Client,
    config: FetchConfig,
    /// Politeness state per origin (scheme, host, port).
    hosts: Mutex<HashMap<url::Origin, Arc<Host>>>,
    counters: Counters,
}

/// The fetcher. Cheap to clone; clones share connections and politeness state.
#[derive(Clone)]
pub struct Fetcher {
    inner: Arc<Inner>,
}

/// What one attempt received.
struct Received {
    status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

/// How much of a body is read.
#[derive(Debug, Clone, Copy)]
enum BodyLimit {
    /// A larger body is an error ([`FetchError::TooLarge`]).
    Fail(usize),
    /// A larger body is cut at this many bytes, the rest not read.
    Prefix(usize),
}

impl BodyLimit {
    fn bytes(self) -> usize {
        match self {
            BodyLimit::Fail(n) | BodyLimit::Prefix(n) => n,
        }
    }
}

/// Why one attempt failed.
enum AttemptError {
    Timeout,
    /// Worth another attempt: refused, reset, truncated.
    Transport(String),
    TooLarge,
    /// Not worth another attempt (the request cannot be built, ...).
    Fatal(String),
}

impl AttemptError {
    fn retryable(&self) -> bool {
        matches!(self, AttemptError::Timeout | AttemptError::Transport(_))
    }

    fn into_fetch_error(self, url: &Url, attempts: u32, limit: usize) -> FetchError {
        let url = url.clone();
        match self {
            AttemptError::Timeout => FetchError::Timeout { url, attempts },
            AttemptError::Transport(message) | AttemptError::Fatal(message) => {
                FetchError::Transport {
                    url,
                    message,
                    attempts,
                }
            }
            AttemptError::TooLarge => FetchError::TooLarge { url, limit },
        }
    }
}

/// The error and every error it was caused by, joined by `": "` (reqwest's
/// own message alone hides whether the connection was refused or reset).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

/// True when `target` is on the host and port of `origin` (the form page,
/// the query), or on a host the user allowed: `host` or `host:port`, in any
/// case. Result pages, the configuration file and the pages a domain is read
/// from are fetched only then, so a provider's page cannot send gather to
/// another host (an internal address, say) on its own.
pub fn on_allowed_host(origin: &Url, target: &Url, allowed: &[String]) -> bool {
    let same = target.host_str() == origin.host_str()
        && target.port_or_known_default() == origin.port_or_known_default();
    same || {
        let host = target.host_str().unwrap_or_default().to_ascii_lowercase();
        let with_port = format!("{host}:{}", target.port_or_known_default().unwrap_or(0));
        allowed
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&host) || h.eq_ignore_ascii_case(&with_port))
    }
}

/// Why a connection to a host could not be made, in the words an operator
/// acts on (the host, the network or the name), instead of the HTTP
/// library's chain of causes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConnectFailure {
    Refused,
    NameNotResolved,
    TimedOut,
    Reset,
    Unreachable,
}

/// Prefix of every message made by [`ConnectFailure::describe`], by which
/// robots.txt tells a host that cannot be reached from a file that cannot be read.
const CONNECT_FAILURE: &str = "could not connect: ";

impl ConnectFailure {
    /// The failure for the operator; `proxy` is the proxy the request went
    /// through, which is then the host that could not be reached.
    fn describe(self, error: &reqwest::Error, proxy: Option<&str>) -> String {
        if let Some(proxy) = proxy {
            let what = match self {
                ConnectFailure::Refused => {
                    "the proxy refused the connection (is it running on that port?)"
                }
                ConnectFailure::NameNotResolved => "the proxy's host name did not resolve",
                ConnectFailure::TimedOut => "connecting to the proxy timed out",
                ConnectFailure::Reset => "the proxy reset the connection",
                ConnectFailure::Unreachable => "the proxy or its network cannot be reached",
            };
            return format!(
                "{CONNECT_FAILURE}{what}: {proxy} (--proxy, or HTTP_PROXY and its kin)"
            );
        }
        let host = error
            .url()
            .map(|u| {
                let host = u.host_str().unwrap_or_default();
                match u.port_or_known_default() {
                    Some(port) => format!("{host}:{port}"),
                    None => host.to_string(),
                }
            })
            .unwrap_or_default();
        let what = match self {
            ConnectFailure::Refused => {
                "the host refused the connection (is the server running on that port?)"
            }
            ConnectFailure::NameNotResolved => {
                "the host name did not resolve (check its spelling and the DNS)"
            }
            ConnectFailure::TimedOut => "connecting timed out (is the host up and reachable?)",
            ConnectFailure::Reset => "the host reset the connection",
            ConnectFailure::Unreachable => "the host or its network cannot be reached",
        };
        format!("{CONNECT_FAILURE}{what}: {host}")
    }
}

/// True when a transport error's message comes from [`ConnectFailure`].
pub(crate) fn is_connect_failure(message: &str) -> bool {
    message.starts_with(CONNECT_FAILURE)
}

/// Why the connection of a failed request could not be made, when it could
/// not: read from the I/O error under reqwest's, or from the resolver's text.
fn connect_failure(error: &reqwest::Error) -> Option<ConnectFailure> {
    if !error.is_connect() {
        return None;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(error);
    let mut text = String::new();
    while let Some(cause) = source {
        if let Some(io) = cause.downcast_ref::<std::io::Error>() {
            use std::io::ErrorKind;
            match io.kind() {
                ErrorKind::ConnectionRefused => return Some(ConnectFailure::Refused),
                ErrorKind::TimedOut => return Some(ConnectFailure::TimedOut),
                ErrorKind::ConnectionReset | ErrorKind::ConnectionAborted => {
                    return Some(ConnectFailure::Reset)
                }
                ErrorKind::HostUnreachable | ErrorKind::NetworkUnreachable => {
                    return Some(ConnectFailure::Unreachable)
                }
                _ => {}
            }
        }
        text.push_str(&cause.to_string().to_ascii_lowercase());
        text.push(' ');
        source = cause.source();
    }
    if text.contains("dns error")
        || text.contains("failed to lookup address")
        || text.contains("name or service not known")
        || text.contains("no address associated")
    {
        return Some(ConnectFailure::NameNotResolved);
    }
    None
}

/// Answers worth asking again: the server's trouble (5xx) or its request to
/// slow down (429).
fn asks_for_retry(status: u16) -> bool {
    status >= 500 || status == 429
}

/// The pause a 5xx or 429 answer asks for in `Retry-After` (seconds; the
/// HTTP-date form is not read), honoured up to [`MAX_BACKOFF`].
/// The pause a `Retry-After` header asks for: seconds, or an HTTP date
/// (RFC 9110 §10.2.3); zero when there is none, it cannot be read, or the
/// date has passed.
fn retry_after(headers: &HeaderMap) -> Duration {
    let Some(value) = headers.get(RETRY_AFTER).and_then(|v| v.to_str().ok()) else {
        return Duration::ZERO;
    };
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Duration::from_secs(seconds);
    }
    httpdate::parse_http_date(value)
        .ok()
        .and_then(|at| at.duration_since(std::time::SystemTime::now()).ok())
        .unwrap_or(Duration::ZERO)
}

fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

impl Fetcher {
    /// A fetcher with its own connection pool.
    pub fn new(config: FetchConfig) -> anyhow::Result<Fetcher> {
        if config.concurrency_per_host == 0 {
            anyhow::bail!("concurrency per host must be at least 1");
        }
        let builder = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .connect_timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::none());
        let client = config.network.apply(builder)?.build()?;
        Ok(Fetcher {
            inner: Arc::new(Inner {
                client,
                config,
                hosts: Mutex::new(HashMap::new()),
                counters: Counters::default(),
            }),
        })
    }

    pub fn config(&self) -> &FetchConfig {
        &self.inner.config
    }

    /// The counters so far (all clones together).
    pub fn stats(&self) -> FetchStats {
        let c = &self.inner.counters;
        FetchStats {
            requests: c.requests.load(Ordering::Relaxed),
            retries: c.retries.load(Ordering::Relaxed),
            bytes: c.bytes.load(Ordering::Relaxed),
            failures: c.failures.load(Ordering::Relaxed),
        }
    }

    /// `GET url`.
    pub async fn get(&self, url: &Url) -> Result<Response, FetchError> {
        self.fetch(&Request::get(url.clone())).await
    }

    /// Sends the request, following redirects; a non-2xx answer is an error.
    pub async fn fetch(&self, request: &Request) -> Result<Response, FetchError> {
        match self
            .fetch_conditional(request, &Validators::default())
            .await?
        {
            Conditional::Changed(response, _) => Ok(*response),
            // Not asked conditionally: a 304 is an error like any non-2xx.
            Conditional::NotModified => Err(FetchError::Status {
                url: request.url.clone(),
                status: 304,
                attempts: 1,
            }),
        }
    }

    /// Sends the request as [`Fetcher::fetch`] does, with `If-None-Match`
    /// and `If-Modified-Since` from `known` (RFC 9110, 13.1): a 304 is
    /// [`Conditional::NotModified`], no body read; any other answer comes
    /// with the validators it carries, to be sent next time.
    pub async fn fetch_conditional(
        &self,
        request: &Request,
        known: &Validators,
    ) -> Result<Conditional, FetchError> {
        let result = self.follow(request, known).await;
        match &result {
            Ok(Conditional::NotModified) => {
                tracing::info!("{} {} → 304 not modified", request.method, request.url)
            }
            Ok(Conditional::Changed(response, _)) => tracing::info!(
                "{} {} → {} {} bytes {} ms",
                request.method,
                response.url,
                response.status,
                response.body.len(),
                response.elapsed.as_millis()
            ),
            Err(error) => {
                self.inner.counters.failures.fetch_add(1, Ordering::Relaxed);
                tracing::info!("{} {} → {error}", request.method, request.url);
            }
        }
        result
    }

    async fn follow(
        &self,
        request: &Request,
        known: &Validators,
    ) -> Result<Conditional, FetchError> {
        let started = Instant::now();
        let config = &self.inner.config;
        if !matches!(request.url.scheme(), "http" | "https") {
            return Err(FetchError::Scheme {
                url: request.url.clone(),
            });
        }
        let mut hop = request.clone();
        let mut seen: HashSet<(Method, Url)> = HashSet::from([(hop.method, hop.url.clone())]);
        let mut redirects = 0usize;
        loop {
            self.check_robots(&hop.url).await?;
            let (received, attempts) = self
                .send(&hop, BodyLimit::Fail(config.max_body_bytes), known)
                .await?;
            let status = received.status;
            if status == 304 && !known.is_empty() {
                return Ok(Conditional::NotModified);
            }
            if is_redirect(status) {
                if let Some(location) = received.headers.get(LOCATION) {
                    if redirects == config.max_redirects {
                        return Err(FetchError::Redirect {
                            url: request.url.clone(),
                            message: format!(
                                "more than {} redirect(s); the last one was from {}",
                                config.max_redirects, hop.url
                            ),
                        });
                    }
                    hop = redirected(&hop, status, location)?;
                    if !seen.insert((hop.method, hop.url.clone())) {
                        return Err(FetchError::Redirect {
                            url: request.url.clone(),
                            message: format!("redirect loop back to {}", hop.url),
                        });
                    }
                    redirects += 1;
                    continue;
                }
            }
            if !(200..300).contains(&status) {
                return Err(FetchError::Status {
                    url: hop.url,
                    status,
                    attempts,
                });
            }
            let content_type = received
                .headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let header = |name| {
                received
                    .headers
                    .get(name)
                    .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
                    .map(str::to_string)
            };
            let validators = Validators {
                etag: header(ETAG),
                last_modified: header(LAST_MODIFIED),
            };
            return Ok(Conditional::Changed(
                Box::new(Response {
                    url: hop.url,
                    status,
                    content_type,
                    body: received.body,
                    attempts,
                    elapsed: started.elapsed(),
                }),
                validators,
            ));
        }
    }

    /// The politeness state of the URL's host, created on first use.
    fn host(&self, url: &Url) -> Arc<Host> {
        let key = url.origin();
        let mut hosts = self
            .inner
            .hosts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        hosts
            .entry(key)
            .or_insert_with(|| {
                Arc::new(Host {
                    slots: Arc::new(Semaphore::new(self.inner.config.concurrency_per_host)),
                    next_start: tokio::sync::Mutex::new(Instant::now()),
                    robots: OnceCell::new(),
                    throttle: Mutex::new(Duration::ZERO),
                })
            })
            .clone()
    }

    /// Sends one hop, retrying as configured. An answer (even a 4xx or, after
    /// the last retry, a 5xx) is `Ok`; the number is the attempts made.
    async fn send(
        &self,
        hop: &Request,
        limit: BodyLimit,
        known: &Validators,
    ) -> Result<(Received, u32), FetchError> {
        let config = &self.inner.config;
        let mut attempt: u32 = 0;
        loop {
            attempt += 1;
            let last = attempt > config.retries;
            let mut asked = Duration::ZERO;
            match self.attempt(hop, limit, known).await {
                Ok(received) if asks_for_retry(received.status) && !last => {
                    tracing::debug!(url = %hop.url, status = received.status, attempt, "retrying");
                    asked = retry_after(&received.headers);
                }
                Ok(received) => return Ok((received, attempt)),
                Err(error) if error.retryable() && !last => {
                    tracing::debug!(url = %hop.url, attempt, "retrying after a transport error");
                }
                Err(error) => return Err(error.into_fetch_error(&hop.url, attempt, limit.bytes())),
            }
            self.inner.counters.retries.fetch_add(1, Ordering::Relaxed);
            let factor = 2u32.saturating_pow(attempt - 1);
            let backoff = config.backoff.checked_mul(factor).unwrap_or(MAX_BACKOFF);
            tokio::time::sleep(backoff.max(asked).min(MAX_BACKOFF)).await;
        }
    }

    /// One HTTP exchange, inside the host's politeness limits.
    async fn attempt(
        &self,
        hop: &Request,
        limit: BodyLimit,
        known: &Validators,
    ) -> Result<Received, AttemptError> {
        let config = &self.inner.config;
        let host = self.host(&hop.url);
        let _slot = host
            .slots
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| AttemptError::Fatal(e.to_string()))?;
        let crawl_delay = host
            .robots
            .get()
            .map_or(Duration::ZERO, |r| r.crawl_delay());
        let throttle = if config.auto_throttle {
            host.throttle()
        } else {
            Duration::ZERO
        };
        let pause = config.delay.max(crawl_delay).max(throttle);
        // Shared politeness books the turns across processes; the local
        // turn would only add to it.
        let shared = match &config.shared_hosts {
            Some(gate) => {
                let origin = hop.url.origin().ascii_serialization();
                let slot = gate
                    .0
                    .acquire(&origin, config.concurrency_per_host, pause)
                    .await
                    .map_err(|e| AttemptError::Fatal(format!("shared politeness: {e}")))?;
                Some((gate, origin, slot))
            }
            None => {
                host.wait_turn(pause).await;
                None
            }
        };
        let sent = Instant::now();
        self.inner.counters.requests.fetch_add(1, Ordering::Relaxed);

        let mut builder = match hop.method {
            Method::Get => self.inner.client.get(hop.url.clone()),
            Method::Post => self.inner.client.post(hop.url.clone()),
        };
        if let Some(body) = &hop.body {
            builder = builder.body(body.clone());
        }
        if let Some(ct) = &hop.content_type {
            builder = builder.header(CONTENT_TYPE, ct);
        }
        if let Some((user, pass)) = config.credentials.for_url(&hop.url) {
            builder = builder.basic_auth(user, Some(pass));
        }
        for (name, value) in &config.network.headers {
            builder = builder.header(name.clone(), value.clone());
        }
        if let Some(etag) = &known.etag {
            builder = builder.header(IF_NONE_MATCH, etag);
        }
        if let Some(date) = &known.last_modified {
            builder = builder.header(IF_MODIFIED_SINCE, date);
        }
        let proxy = config.network.proxy_for(&hop.url);
        let exchange = async {
            let transport = |e: reqwest::Error| {
                if e.is_timeout() {
                    AttemptError::Timeout
                } else if e.is_builder() {
                    AttemptError::Fatal(error_chain(&e))
                } else if let Some(failure) = connect_failure(&e) {
                    // A name that does not resolve is final: asking the
                    // resolver again within seconds gives the same answer.
                    let message = failure.describe(&e, proxy.as_deref());
                    if failure == ConnectFailure::NameNotResolved {
                        AttemptError::Fatal(message)
                    } else {
                        AttemptError::Transport(message)
                    }
                } else {
                    AttemptError::Transport(error_chain(&e))
                }
            };
            let mut response = builder.send().await.map_err(transport)?;
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            if is_redirect(status) && headers.contains_key(LOCATION) {
                // The body of a redirect is not needed.
                return Ok(Received {
                    status,
                    headers,
                    body: Vec::new(),
                });
            }
            // Present only when the body is not being decompressed.
            let declared = headers
                .get(CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let max = limit.bytes();
            if matches!(limit, BodyLimit::Fail(_)) && declared.is_some_and(|n| n > max as u64) {
                return Err(AttemptError::TooLarge);
            }
            let mut body = Vec::new();
            loop {
                let chunk = match response.chunk().await {
                    Ok(Some(chunk)) => chunk,
                    Ok(None) => break,
                    Err(e) => {
                        self.count_bytes(body.len());
                        return Err(match transport(e) {
                            AttemptError::Transport(m) => AttemptError::Transport(format!(
                                "body cut off after {} byte(s): {m}",
                                body.len()
                            )),
                            other => other,
                        });
                    }
                };
                if body.len() + chunk.len() > max {
                    if let BodyLimit::Prefix(_) = limit {
                        // Keep the prefix; the rest is not read.
                        body.extend_from_slice(&chunk[..max - body.len()]);
                        self.count_bytes(body.len());
                        return Ok(Received {
                            status,
                            headers,
                            body,
                        });
                    }
                    self.count_bytes(body.len() + chunk.len());
                    return Err(AttemptError::TooLarge);
                }
                body.extend_from_slice(&chunk);
            }
            self.count_bytes(body.len());
            if let Some(expected) = declared {
                if (body.len() as u64) < expected {
                    return Err(AttemptError::Transport(format!(
                        "body cut off after {} of {expected} byte(s)",
                        body.len()
                    )));
                }
            }
            Ok(Received {
                status,
                headers,
                body,
            })
        };
        let result = match tokio::time::timeout(config.timeout, exchange).await {
            Ok(result) => result,
            Err(_) => Err(AttemptError::Timeout),
        };
        if let Some((gate, origin, slot)) = shared {
            gate.0.release(&origin, slot).await;
        }
        if config.auto_throttle {
            let failed = match &result {
                Ok(received) => asks_for_retry(received.status),
                Err(_) => true,
            };
            host.throttle_after(sent.elapsed(), config.concurrency_per_host, failed);
        }
        result
    }

    fn count_bytes(&self, n: usize) {
        self.inner
            .counters
            .bytes
            .fetch_add(n as u64, Ordering::Relaxed);
    }

    /// `Err(Robots)` when the host's robots.txt disallows the URL for us.
    async fn check_robots(&self, url: &Url) -> Result<(), FetchError> {
        if !self.inner.config.respect_robots {
            return Ok(());
        }
        let host = self.host(url);
        let rules = host.robots.get_or_init(|| self.load_robots(url)).await;
        rules.check(url)
    }
}

/// The request for the next hop of a redirect (`status` is a redirect).
fn redirected(
    hop: &Request,
    status: u16,
    location: &reqwest::header::HeaderValue,
) -> Result<Request, FetchError> {
    let bad = |message: String| FetchError::Redirect {
        url: hop.url.clone(),
        message,
    };
    let location = location
        .to_str()
        .map_err(|_| bad(format!("HTTP {status} with a Location that is not text")))?;
    let target = hop.url.join(location).map_err(|e| {
        bad(format!(
            "HTTP {status} to an invalid Location {location:?}: {e}"
        ))
    })?;
    if !matches!(target.scheme(), "http" | "https") {
        return Err(bad(format!("HTTP {status} to a non-HTTP URL {target}")));
    }
    // As browsers do: 301/302 turn a POST into a GET, 303 turns anything into
    // a GET; 307/308 repeat the request as it was.
    let to_get = status == 303 || (matches!(status, 301 | 302) && hop.method == Method::Post);
    Ok(if to_get {
        Request::get(target)
    } else {
        Request {
            url: target,
            ..hop.clone()
        }
    })
}

/// The bytes of a page saved on disk (gzip-compressed when its name ends in
/// `.gz`): what `gather text` and the benchmarks read in place
/// of a response.
pub fn read_saved_page(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let bytes = std::fs::read(path)?;
    if path.extension().is_some_and(|e| e == "gz") {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut out)?;
        return Ok(out);
    }
    Ok(bytes)
}
