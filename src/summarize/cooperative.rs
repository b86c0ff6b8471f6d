//! The gatherer's side of the cooperative path: ask a provider's summarizer.

use std::time::Instant;

use url::Url;

use super::soif;
use super::{IndexFragment, SummarizeError};
use crate::fetch::Fetcher;
use crate::store::{PageRecord, SourceId, SourceInfo, SourceKind, Store};

/// What a provider's summarizer answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CooperativeAnswer {
    /// The values of every attribute of the answer's object(s), one value per
    /// line of the attribute's value; attribute names as the summarizer wrote
    /// them (`hotel.ort`).
    pub fragment: IndexFragment,
    /// The size of the answer in bytes (it counts towards the source's
    /// `File-Size`).
    pub bytes: u64,
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
/// and reads its SOIF answer strictly.
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
    Ok(ask(fetcher, summarizer, config_path).await?.0)
}

async fn ask(
    fetcher: &Fetcher,
    summarizer: &Url,
    config_path: &str,
) -> Result<(CooperativeAnswer, PageRecord), SummarizeError> {
    let url = request_url(summarizer, config_path);
    let started = Instant::now();
    let response = fetcher.get(&url).await?;
    let page = PageRecord::from_response(&response, started.elapsed());
    let fragment = fragment_from_soif(&response.body, url.as_str())?;
    let answer = CooperativeAnswer {
        fragment,
        bytes: response.body.len() as u64,
    };
    Ok((answer, page))
}

/// What [`gather_cooperative`] stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CooperativeSummary {
    pub source: SourceId,
    /// Values not known before.
    pub new_values: u64,
    /// Values in the answer.
    pub values: u64,
}

/// The whole cooperative path for one source: asks the summarizer, then
/// stores the source (`info.url` is the form's URL; its kind becomes
/// [`SourceKind::Cooperative`]), the answer as a page of the source (its bytes
/// count towards `File-Size`) and its values, whose provenance is the
/// summarizer request's URL. Nothing is stored when the summarizer fails or
/// answers malformed SOIF.
///
/// `config_path` is the path of the configuration (or DBContent) file on the
/// summarizer's server, e.g. `Url::path()` of `DB.ConfigFile`.
pub async fn gather_cooperative(
    fetcher: &Fetcher,
    store: &mut Store,
    info: &SourceInfo,
    summarizer: &Url,
    config_path: &str,
) -> Result<CooperativeSummary, SummarizeError> {
    let (answer, page) = ask(fetcher, summarizer, config_path).await?;
    let info = SourceInfo {
        kind: SourceKind::Cooperative,
        ..info.clone()
    };
    let source = store.upsert_source(&info)?;
    store.record_page(source, &page)?;
    let new_values = store.record_values(source, Some(&page.url), &answer.fragment)?;
    store.set_incomplete(source, None)?;
    Ok(CooperativeSummary {
        source,
        new_values,
        values: answer.fragment.len() as u64,
    })
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
