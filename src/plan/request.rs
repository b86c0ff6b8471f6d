//! A request as a browser would send it when the form is submitted.

use serde::{Deserialize, Serialize};
use url::Url;

use crate::metadata::Method;

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
