//! The HTTP vocabulary the fetcher speaks: a method and a request, as a
//! browser would send them when a form is submitted.

use serde::{Deserialize, Serialize};
use url::Url;

/// One HTTP request: what the fetcher sends, and what identifies a query.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Request {
    pub method: Method,
    pub url: Url,
    /// The encoded body of a POST (urlencoded or multipart).
    pub body: Option<Vec<u8>>,
    /// `Content-Type` of the body.
    pub content_type: Option<String>,
}

impl Request {
    /// A GET of `url`, without a body.
    pub fn get(url: Url) -> Request {
        Request {
            method: Method::Get,
            url,
            body: None,
            content_type: None,
        }
    }
}

/// The HTTP method a form (or `DB.QueryScript`) submits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Method::Get => "GET",
            Method::Post => "POST",
        })
    }
}

/// What an answer carried to be asked for again conditionally (RFC 9110,
/// 8.8): its `ETag` and its `Last-Modified` date, as the provider sent
/// them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    /// Neither validator: a request with these is not conditional.
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}
