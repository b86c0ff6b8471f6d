//! What the operator's network asks of every request: a proxy, headers
//! sent with each request, and cookies (those the providers set, kept for
//! the run, and those of a Netscape cookie file, as curl and wget write it).

use std::sync::Arc;

use reqwest::header::{HeaderName, HeaderValue};
use url::Url;

/// The proxy, the extra headers and the cookies of a fetcher. `Default`
/// sends no extra header and no cookie of a file, and takes the proxy from
/// the environment (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`, `NO_PROXY`,
/// in either case), as curl does.
#[derive(Debug, Clone, Default)]
pub struct Network {
    /// Every request goes through this proxy (`http://`, `https://` or
    /// `socks5://`), whatever the environment says; `NO_PROXY` still
    /// exempts its hosts.
    pub proxy: Option<Url>,
    /// Sent with every request, after gather's own (a `User-Agent` here
    /// replaces gather's).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Cookies to start with: the URL whose requests carry them, and the
    /// cookie as a `Set-Cookie` value.
    pub cookies: Vec<(Url, String)>,
}

impl Network {
    /// Adds a header given as `Name: value` (the `-H` syntax).
    pub fn add_header(&mut self, header: &str) -> Result<(), String> {
        let (name, value) = header
            .split_once(':')
            .ok_or_else(|| format!("--header {header:?}: expected 'Name: value'"))?;
        let name = HeaderName::from_bytes(name.trim().as_bytes())
            .map_err(|_| format!("--header {header:?}: {:?} is no header name", name.trim()))?;
        let value = HeaderValue::from_str(value.trim())
            .map_err(|_| format!("--header {header:?}: the value holds a control character"))?;
        self.headers.push((name, value));
        Ok(())
    }

    /// Sets the proxy given as a URL (the `--proxy` syntax); a bare
    /// `HOST:PORT` is an HTTP proxy.
    pub fn set_proxy(&mut self, proxy: &str) -> Result<(), String> {
        let with_scheme = if proxy.contains("://") {
            proxy.to_string()
        } else {
            format!("http://{proxy}")
        };
        let url = Url::parse(&with_scheme).map_err(|e| format!("--proxy {proxy:?}: {e}"))?;
        if !matches!(url.scheme(), "http" | "https" | "socks5" | "socks5h") || !url.has_host() {
            return Err(format!(
                "--proxy {proxy:?}: expected http://HOST:PORT (or https://, socks5://)"
            ));
        }
        self.proxy = Some(url);
        Ok(())
    }

    /// Adds the cookies of a Netscape cookie file (curl's `-c`, wget's
    /// `--save-cookies`, a browser extension's export): one cookie a line,
    /// seven fields separated by tabs: domain, whether subdomains share it,
    /// path, whether it is sent over HTTPS only, expiry (Unix seconds, 0
    /// for the session), name, value. `#` lines are comments, except the
    /// `#HttpOnly_` prefix of a domain. Expired cookies are left out.
    /// Returns how many cookies were added.
    pub fn add_cookie_file(&mut self, text: &str) -> Result<usize, String> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut added = 0;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let [domain, shared, path, secure, expires, name, value] = fields[..] else {
                return Err(format!(
                    "line {}: expected seven fields separated by tabs (domain, subdomains, path, secure, expiry, name, value), found {}",
                    number + 1,
                    fields.len()
                ));
            };
            let expires: u64 = expires
                .trim()
                .parse()
                .map_err(|_| format!("line {}: expiry {expires:?} is no number", number + 1))?;
            if expires != 0 && expires < now {
                continue;
            }
            let host = domain.trim_start_matches('.');
            let secure = secure.eq_ignore_ascii_case("TRUE");
            let scheme = if secure { "https" } else { "http" };
            let url = Url::parse(&format!("{scheme}://{host}{path}"))
                .map_err(|e| format!("line {}: domain {domain:?}: {e}", number + 1))?;
            let mut cookie = format!("{name}={value}; Path={path}");
            if shared.eq_ignore_ascii_case("TRUE") || domain.starts_with('.') {
                cookie.push_str(&format!("; Domain={host}"));
            }
            if secure {
                cookie.push_str("; Secure");
            }
            self.cookies.push((url, cookie));
            added += 1;
        }
        Ok(added)
    }

    /// The proxy a request to `url` goes through: `--proxy`, or the
    /// environment's for its scheme, unless `NO_PROXY` names its host.
    pub(crate) fn proxy_for(&self, url: &Url) -> Option<String> {
        let host = url.host_str()?;
        let exempt = env_var("no_proxy").is_some_and(|list| no_proxy_lists(&list, host));
        if exempt {
            return None;
        }
        if let Some(proxy) = &self.proxy {
            return Some(proxy.to_string());
        }
        let own = if url.scheme() == "https" {
            "https_proxy"
        } else {
            "http_proxy"
        };
        env_var(own).or_else(|| env_var("all_proxy"))
    }

    /// The client builder with the proxy and the cookie jar.
    pub(crate) fn apply(
        &self,
        builder: reqwest::ClientBuilder,
    ) -> anyhow::Result<reqwest::ClientBuilder> {
        let jar = reqwest::cookie::Jar::default();
        for (url, cookie) in &self.cookies {
            jar.add_cookie_str(cookie, url);
        }
        let mut builder = builder.cookie_provider(Arc::new(jar));
        if let Some(proxy) = &self.proxy {
            let proxy = reqwest::Proxy::all(proxy.as_str())?.no_proxy(reqwest::NoProxy::from_env());
            builder = builder.proxy(proxy);
        }
        Ok(builder)
    }
}

/// An environment variable by its lower-case name or its upper-case one,
/// when set and not empty.
fn env_var(lower: &str) -> Option<String> {
    [lower.to_string(), lower.to_ascii_uppercase()]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
}

/// True when a `NO_PROXY` list (names separated by commas; `*` for every
/// host; a name covers its subdomains) names `host`.
fn no_proxy_lists(list: &str, host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    list.split(',').map(str::trim).any(|entry| {
        let entry = entry.trim_start_matches('.').to_ascii_lowercase();
        entry == "*"
            || (!entry.is_empty() && (host == entry || host.ends_with(&format!(".{entry}"))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_is_name_colon_value() {
        let mut network = Network::default();
        network.add_header("X-Token:  abc ").unwrap();
        assert_eq!(network.headers[0].0.as_str(), "x-token");
        assert_eq!(network.headers[0].1, "abc");
        assert!(network
            .add_header("no colon")
            .unwrap_err()
            .contains("Name: value"));
        assert!(network
            .add_header("bad name: x")
            .unwrap_err()
            .contains("no header name"));
    }

    #[test]
    fn a_proxy_without_a_scheme_is_http() {
        let mut network = Network::default();
        network.set_proxy("127.0.0.1:3128").unwrap();
        assert_eq!(network.proxy.unwrap().as_str(), "http://127.0.0.1:3128/");
        let mut network = Network::default();
        assert!(network.set_proxy("ftp://127.0.0.1:21").is_err());
    }

    #[test]
    fn a_netscape_cookie_file_is_read_line_by_line() {
        let text = "# Netscape HTTP Cookie File\n\
                    .example.org\tTRUE\t/\tFALSE\t0\tsession\tabc\n\
                    #HttpOnly_shop.example\tFALSE\t/cart\tTRUE\t4102444800\tid\t42\n\
                    old.example\tFALSE\t/\tFALSE\t1\tgone\tx\n\n";
        let mut network = Network::default();
        assert_eq!(network.add_cookie_file(text).unwrap(), 2);
        assert_eq!(network.cookies[0].0.as_str(), "http://example.org/");
        assert_eq!(
            network.cookies[0].1,
            "session=abc; Path=/; Domain=example.org"
        );
        assert_eq!(network.cookies[1].0.as_str(), "https://shop.example/cart");
        assert_eq!(network.cookies[1].1, "id=42; Path=/cart; Secure");
        let err = network.add_cookie_file("a\tb\n").unwrap_err();
        assert!(err.starts_with("line 1: expected seven fields"), "{err}");
    }

    #[test]
    fn no_proxy_names_hosts_and_their_subdomains() {
        assert!(no_proxy_lists("localhost, .example.org", "www.example.org"));
        assert!(no_proxy_lists("example.org", "example.org"));
        assert!(!no_proxy_lists("example.org", "badexample.org"));
        assert!(no_proxy_lists("*", "anything"));
        assert!(!no_proxy_lists("", "anything"));
    }
}
