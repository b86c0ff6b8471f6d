//! The gatherer's side of the cooperative path: ask a provider's summarizer.

use url::Url;

use super::SummarizeError;
use crate::fetch::{Fetcher, Response};
use crate::fragment::IndexFragment;
use crate::soif;

/// What a provider's summarizer answered.
#[derive(Debug, Clone)]
pub struct CooperativeAnswer {
    /// The values of every attribute of the answer's object(s), one value per
    /// line of the attribute's value; attribute names as the summarizer wrote
    /// them (`hotel.ort`).
    pub fragment: IndexFragment,
    /// The summarizer's answer as it was fetched (its URL is the request's,
    /// its bytes count towards the source's `File-Size`).
    pub response: Response,
}

/// The request sent to a summarizer: `<summarizer>?config=<config_path>`, the
/// path percent-encoded (form encoding: `/` as `%2F`, space as `+`) and
/// appended to any query the summarizer URL already has.
fn request_url(summarizer: &Url, config_path: &str) -> Url {
    let mut url = summarizer.clone();
    url.query_pairs_mut().append_pair("config", config_path);
    url
}

/// Calls a provider's summarizer (`GET <summarizer>?config=<config_path>`)
/// and reads its SOIF answer strictly. `config_path` is the path of the
/// configuration (or DBContent) file on the summarizer's server, e.g.
/// `Url::path()` of `DB.ConfigFile`.
///
/// Every attribute of every object becomes fragment values, one per line of
/// its value (normalized; empty lines dropped). An answer that is not valid
/// SOIF is an error naming the byte offset of the fault; an answer without any
/// object is an error too (a summarizer always answers with its object, even
/// when the database is empty).
pub async fn cooperative(
    fetcher: &Fetcher,
    summarizer: &Url,
    config_path: &str,
) -> Result<CooperativeAnswer, SummarizeError> {
    let url = request_url(summarizer, config_path);
    let response = fetcher.get(&url).await?;
    let fragment = fragment_from_soif(&response.body, url.as_str())?;
    Ok(CooperativeAnswer { fragment, response })
}

/// The index fragment a SOIF answer carries (see [`cooperative`]). `url`
/// names the answer in errors.
fn fragment_from_soif(body: &[u8], url: &str) -> Result<IndexFragment, SummarizeError> {
    let objects = soif::parse(body).map_err(|source| SummarizeError::Soif {
        url: url.to_string(),
        source,
    })?;
    if objects.is_empty() {
        return Err(SummarizeError::NoObject {
            url: url.to_string(),
        });
    }
    let mut fragment = IndexFragment::new();
    for object in &objects {
        for (name, value) in &object.attributes {
            // `soif::parse` only accepts UTF-8 values; checked again rather than assumed.
            let text = std::str::from_utf8(value).map_err(|e| SummarizeError::NotUtf8 {
                url: url.to_string(),
                attribute: name.clone(),
                offset: e.valid_up_to(),
            })?;
            for line in text.split('\n') {
                fragment.add(name, line);
            }
        }
    }
    Ok(fragment)
}
