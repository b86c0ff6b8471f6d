//! robots.txt, read the way RFC 9309 (and Google's crawler) reads it.
//!
//! The file is fetched once per host (scheme, host and port) and kept for the
//! lifetime of the fetcher, that is, for one gathering run:
//!
//! - 2xx: its rules for our user agent (the first word of the User-Agent,
//!   `gather`), or for `*`; an unparsable file allows everything;
//! - 4xx (no robots.txt, or not for us to read): everything is allowed;
//! - 5xx after all retries: the host is unavailable; nothing on it is fetched
//!   in this run (RFC 9309 §2.3.1.4: "assume complete disallow");
//! - redirects are followed up to five hops, more count as "no robots.txt";
//! - when the host cannot be reached at all, every request to it fails with
//!   that transport error (there is nothing polite left to do);
//! - only the first [`ROBOTS_MAX_BYTES`] bytes are read (RFC 9309 §2.5);
//!   a larger file is cut there.

use std::time::Duration;

use texting_robots::Robot;
use url::Url;

use super::Request;
use super::{is_redirect, BodyLimit, FetchError, Fetcher, MAX_CRAWL_DELAY};

/// The part of a robots.txt file that is read.
pub const ROBOTS_MAX_BYTES: usize = 500 * 1024;

/// Redirects followed to reach a robots.txt.
const ROBOTS_MAX_REDIRECTS: usize = 5;

pub(super) enum RobotsRules {
    AllowAll,
    DisallowAll,
    Rules(Box<Robot>),
    /// The host could not be reached; the message says why.
    Unreachable {
        url: Url,
        message: String,
        attempts: u32,
    },
}

impl RobotsRules {
    /// `Ok` when the URL may be fetched.
    pub(super) fn check(&self, url: &Url) -> Result<(), FetchError> {
        let allowed = match self {
            RobotsRules::AllowAll => true,
            RobotsRules::DisallowAll => false,
            RobotsRules::Rules(robot) => robot.allowed(url.as_str()),
            RobotsRules::Unreachable {
                url: robots,
                message,
                attempts,
            } => {
                // A host that cannot be reached at all is what the operator
                // must fix, whichever of its URLs was asked first; only a
                // robots.txt that fails in another way is named.
                let message = if super::is_connect_failure(message) {
                    message.clone()
                } else {
                    format!("{message} (reading the host's robots.txt {robots})")
                };
                return Err(FetchError::Transport {
                    url: url.clone(),
                    message,
                    attempts: *attempts,
                });
            }
        };
        if allowed {
            Ok(())
        } else {
            Err(FetchError::Robots { url: url.clone() })
        }
    }

    /// The `Crawl-delay` asked for, capped at [`MAX_CRAWL_DELAY`].
    pub(super) fn crawl_delay(&self) -> Duration {
        match self {
            RobotsRules::Rules(robot) => robot
                .delay
                .filter(|d| d.is_finite() && *d > 0.0)
                .map_or(Duration::ZERO, |d| {
                    Duration::from_secs_f32(d.min(MAX_CRAWL_DELAY.as_secs_f32()))
                }),
            _ => Duration::ZERO,
        }
    }
}

/// The name robots.txt groups are matched against: the User-Agent's product
/// token (`gather/0.1 (...)` → `gather`).
pub(super) fn agent_token(user_agent: &str) -> &str {
    user_agent
        .split(|c: char| c == '/' || c.is_whitespace())
        .find(|s| !s.is_empty())
        .unwrap_or("*")
}

impl Fetcher {
    /// Fetches and reads the robots.txt of the URL's host.
    pub(super) async fn load_robots(&self, url: &Url) -> RobotsRules {
        let mut target = match url.join("/robots.txt") {
            Ok(target) => target,
            Err(_) => return RobotsRules::AllowAll,
        };
        for _ in 0..=ROBOTS_MAX_REDIRECTS {
            let result = self
                .send(
                    &Request::get(target.clone()),
                    BodyLimit::Prefix(ROBOTS_MAX_BYTES),
                    &super::Validators::default(),
                )
                .await;
            let (received, attempts) = match result {
                Ok(answer) => answer,
                Err(error) => {
                    let (message, attempts) = match &error {
                        FetchError::Timeout { attempts, .. } => {
                            ("timed out".to_string(), *attempts)
                        }
                        FetchError::Transport {
                            message, attempts, ..
                        } => (message.clone(), *attempts),
                        other => (other.to_string(), 1),
                    };
                    tracing::info!(%error, "robots.txt unreachable");
                    return RobotsRules::Unreachable {
                        url: target,
                        message,
                        attempts,
                    };
                }
            };
            let status = received.status;
            match status {
                200..=299 => {
                    let mut body = received.body;
                    if body.len() >= ROBOTS_MAX_BYTES {
                        // Cut at the last complete line.
                        let end = body.iter().rposition(|&b| b == b'\n').map_or(0, |e| e + 1);
                        body.truncate(end);
                    }
                    return self.parse_robots(&body);
                }
                _ if is_redirect(status) => {
                    let next = received
                        .headers
                        .get(reqwest::header::LOCATION)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|loc| target.join(loc).ok());
                    match next {
                        Some(next) => target = next,
                        None => return RobotsRules::AllowAll,
                    }
                }
                400..=499 => return RobotsRules::AllowAll,
                _ => {
                    tracing::warn!(url = %target, status, attempts,
                        "robots.txt unavailable; the host is not gathered in this run");
                    return RobotsRules::DisallowAll;
                }
            }
        }
        RobotsRules::AllowAll
    }

    fn parse_robots(&self, body: &[u8]) -> RobotsRules {
        match Robot::new(agent_token(&self.inner.config.user_agent), body) {
            Ok(robot) => RobotsRules::Rules(Box::new(robot)),
            Err(error) => {
                tracing::warn!(%error, "unparsable robots.txt; everything is allowed");
                RobotsRules::AllowAll
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_token_is_the_product_name() {
        assert_eq!(agent_token("gather/0.1 (+deep-web gatherer)"), "gather");
        assert_eq!(agent_token("  Gatherbot"), "Gatherbot");
        assert_eq!(agent_token(""), "*");
    }

    #[test]
    fn rules_for_our_agent_win_over_the_star_group() {
        let robot = Robot::new(
            "gather",
            b"User-agent: *\nDisallow: /\n\nUser-agent: gather\nDisallow: /private\nCrawl-delay: 120\n",
        )
        .expect("parses");
        let rules = RobotsRules::Rules(Box::new(robot));
        let open = Url::parse("http://h/search?q=1").expect("url");
        let closed = Url::parse("http://h/private/x").expect("url");
        assert!(rules.check(&open).is_ok());
        assert!(matches!(
            rules.check(&closed),
            Err(FetchError::Robots { .. })
        ));
        assert_eq!(rules.crawl_delay(), MAX_CRAWL_DELAY);
    }
}
