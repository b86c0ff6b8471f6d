//! Helpers of the end-to-end tests: gather into a fresh database and read
//! back what was stored.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

use gather::fetch::FetchConfig;
use gather::gatherer::{self, Options, Report, Start};
use gather::store::Store;

/// Options for tests: fast retries, short timeouts.
pub fn options(db: &Path) -> Options {
    Options {
        db: db.to_path_buf(),
        fetch: FetchConfig {
            timeout: Duration::from_secs(2),
            retries: 2,
            backoff: Duration::from_millis(10),
            ..FetchConfig::default()
        },
        progress: None,
        ..Options::default()
    }
}

pub async fn gather_url(url: &url::Url, options: &Options) -> Report {
    gatherer::gather(&[Start::Url(url.clone())], options)
        .await
        .expect("the gatherer's database works")
}

/// Attribute → values of the source stored under `url`, read through the JSON export.
pub fn stored_values(db: &Path, url: &str) -> BTreeMap<String, BTreeSet<String>> {
    let line = export_line(db, url).unwrap_or_else(|| panic!("no source {url} in the export"));
    let mut out = BTreeMap::new();
    if let Some(attrs) = line["attributes"].as_object() {
        for (name, values) in attrs {
            let values: BTreeSet<String> = values
                .as_array()
                .expect("attribute values are an array")
                .iter()
                .map(|v| v.as_str().expect("values are strings").to_string())
                .collect();
            out.insert(name.clone(), values);
        }
    }
    out
}

/// The JSON export's line for one source.
pub fn export_line(db: &Path, url: &str) -> Option<serde_json::Value> {
    let store = Store::open(db).expect("database opens");
    let mut out = Vec::new();
    gather::output::export_json(&store, &mut out, None).expect("export works");
    String::from_utf8(out)
        .expect("JSON export is UTF-8")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("one JSON object per line"))
        .find(|v| v["url"] == url)
}
