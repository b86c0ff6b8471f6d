//! Fetching: HTTP on reqwest/tokio, as a polite gatherer does it.

use std::collections::HashMap;
use std::time::Duration;

use url::Url;

use crate::charset;
use crate::plan::{Method, Request};

/// How the fetcher behaves. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// Requests in flight at once to one host (default 2).
    pub concurrency_per_host: usize,
    /// Pause between two requests to one host (default 0).
    pub delay: Duration,
    /// Time allowed for one whole request (default 30 s).
    pub timeout: Duration,
    /// Retries after the first attempt on 5xx, timeouts and resets (default 3).
    pub retries: u32,
    /// First backoff; doubled on each retry (default 200 ms).
    pub backoff: Duration,
    /// Redirects followed (default 10).
    pub max_redirects: usize,
    /// Largest body accepted (default 16 MiB).
    pub max_body_bytes: usize,
    pub user_agent: String,
    pub credentials: Credentials,
    /// Honour robots.txt (default true).
    pub respect_robots: bool,
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
        }
    }
}

/// HTTP Basic credentials the user configured, each for one host (and port).
#[derive(Debug, Clone, Default)]
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

    /// Credentials for `authority` (`host` or `host:port`).
    pub fn add(&mut self, authority: &str, user: &str, pass: &str) {
        self.by_authority.insert(
            authority.to_ascii_lowercase(),
            (user.to_string(), pass.to_string()),
        );
    }

    /// The credentials that may be sent to this URL's host: a `host:port`
    /// entry first, then a bare `host` entry.
    pub fn for_url(&self, url: &Url) -> Option<(&str, &str)> {
        let host = url.host_str()?.to_ascii_lowercase();
        let with_port = url.port_or_known_default().map(|p| format!("{host}:{p}"));
        with_port
            .and_then(|a| self.by_authority.get(&a))
            .or_else(|| self.by_authority.get(&host))
            .map(|(u, p)| (u.as_str(), p.as_str()))
    }

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
    /// Attempts it took (1 when the first one succeeded).
    pub attempts: u32,
}

impl Response {
    /// The body as text, decoded as a browser would (see `charset`).
    pub fn text(&self) -> charset::Decoded {
        charset::decode(&self.body, self.content_type.as_deref())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{url}: HTTP {status}")]
    Status { url: Url, status: u16 },
    #[error("{url}: timed out after {attempts} attempt(s)")]
    Timeout { url: Url, attempts: u32 },
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
}

/// The fetcher. Cheap to clone; clones share connections and politeness state.
#[derive(Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: std::sync::Arc<FetchConfig>,
}

impl Fetcher {
    pub fn new(config: FetchConfig) -> anyhow::Result<Fetcher> {
        let client = reqwest::Client::builder()
            .user_agent(config.user_agent.clone())
            .timeout(config.timeout)
            .redirect(reqwest::redirect::Policy::limited(config.max_redirects))
            .build()?;
        Ok(Fetcher {
            client,
            config: std::sync::Arc::new(config),
        })
    }

    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    pub async fn get(&self, url: &Url) -> Result<Response, FetchError> {
        self.fetch(&Request::get(url.clone())).await
    }

    /// Sends the request; a non-2xx answer is an error.
    pub async fn fetch(&self, request: &Request) -> Result<Response, FetchError> {
        let url = request.url.clone();
        let mut builder = match request.method {
            Method::Get => self.client.get(url.clone()),
            Method::Post => self.client.post(url.clone()),
        };
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        if let Some(ct) = &request.content_type {
            builder = builder.header(reqwest::header::CONTENT_TYPE, ct);
        }
        if let Some((user, pass)) = self.config.credentials.for_url(&url) {
            builder = builder.basic_auth(user, Some(pass));
        }
        let transport = |e: reqwest::Error| FetchError::Transport {
            url: url.clone(),
            message: e.to_string(),
            attempts: 1,
        };
        let resp = builder.send().await.map_err(transport)?;
        let status = resp.status().as_u16();
        let final_url = resp.url().clone();
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = resp.bytes().await.map_err(transport)?.to_vec();
        if !(200..300).contains(&status) {
            return Err(FetchError::Status {
                url: final_url,
                status,
            });
        }
        Ok(Response {
            url: final_url,
            status,
            content_type,
            body,
            attempts: 1,
        })
    }
}
