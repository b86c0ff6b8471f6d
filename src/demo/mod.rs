//! The built-in demo site: the CityWorld hotel guide of Mecklenburg-Vorpommern
//! (seed 003, §2 and §4.4), served on 127.0.0.1 in ISO-8859-1.
//!
//! `gather demo` gathers it end to end, and the integration tests use it as
//! their provider. The site has a real database — a SQLite file generated
//! deterministically from a seed ([`generate_database`]) — and the CGI scripts
//! behind its forms query it.
//!
//! | path | what it is |
//! |---|---|
//! | `/` | start page linking the form pages, `/about.html`, `/kontakt.html` |
//! | `/cityworld/` | [`Variant::Listed`]: regions listed in `DB.Result.region` |
//! | `/cityworld2/` | [`Variant::Extracted`]: region read after the `Seitenanfang` anchor, prefix `html.body->table[1].` |
//! | `/paged/` | [`Variant::Paged`]: variant 1's rules, paged results, no `DB.Navigation*` |
//! | `/navurl/` | [`Variant::NavigationUrl`]: variant 2's rules, paged results, `DB.NavigationURL` and `DB.MaxPages` |
//! | `/post/` | [`Variant::Post`]: the form sent with POST to `/cgi-bin/suche.pl` |
//! | `/secure/` | [`Variant::ConfigAuth`]: only `DB.ConfigFile` → `/private/cityworld.txt` (HTTP Basic) |
//! | `/cityworld.DBContent` | [`Variant::Cooperative`]: the DBContent document of seed §2 |
//! | `/limited/` | [`Variant::Limited`]: `/paged/` with a `DB.MaxPages` the largest regions exceed |
//! | `/archiv/` | [`Variant::Archive`]: the press archive, keyword search with three seed words, 100 articles at most per search (`/cgi-bin/archiv.pl`) |
//! | `/katalog/` | [`Variant::Catalogue`]: the library catalogue, 50 titles at most per search (`/cgi-bin/katalog.pl`) |
//! | `/shelf/`, `/stellen/`, `/fewo/`, `/events/`, `/pictures/`, `/cottages/`, `/hofladen/`, `/annonces/` | [`shelf`], [`stellen`], [`fewo`], [`events`], [`pictures`], [`cottages`], [`hofladen`], [`annonces`]: providers built unlike the ones above (a cap only a sentence and one rule show; pager links with a refined query's parameters; an open text field to refine by; a form that ignores its parameters; a keyword search listing its 50 newest matches; towns no capped answer lists, reached by `*` prefixes; places reached only by a word they share with a gathered place; a French classifieds search listing its 20 cheapest matches under a count in French), routed by `server.rs`, built from the parts in `form_provider.rs` |
//! | `/quotes/Search.aspx` | [`quotes`]: an ASP.NET-style search that posts back with a checked `__VIEWSTATE` token in a cookie's session; the author's choice fills the tag select; a long answer is paged by `__doPostBack` page numbers |
//! | `/coop/` | form page with `DB.Summarizer` + `DB.ConfigFile` (`/cgi-bin/cityworld.txt`) |
//! | `/plain/` | the form without any `DB.*` tag (not linked from the start page), for `gather spec --induce` |
//! | `/cgi-bin/auswahl.pl` | all results of a search on one page (GET) |
//! | `/cgi-bin/liste.pl` | results in pages: `region`, `preis`, `ort`, `seite` (1-based) |
//! | `/cgi-bin/Ora-DB.pl?config=…` | the provider's summarizer |
//! | `/stellenmarkt/` | [`jobs`]: the Berlin job board, a rule per column with a condition of its own (`/cgi-bin/stellen.pl`) |
//! | `/surface/…/` | [`surface`] and [`browse`]: nine providers without metadata for `gather bench surface` (and with it at `…/meta/`) |
//! | `/magazin/` | [`magazine`]: a travel magazine of ordinary pages (menus, breadcrumb, tag cloud, two pagers), not linked from `/` |
//! | `/pensionen/`, `/pensionen-ohne/` | [`refresh`]: a guest house search whose data has a second version ([`DemoSite::set_data_version`]), with validators and 304s, and without; not linked from `/` |
//!
//! Decisions where the seed is silent: prices are whole DM per night (the seed
//! is from 1999); `ort` matches the beginning of a town's name, ignoring case,
//! within the chosen region (a search without `region` covers all regions);
//! an unknown region gives an empty result page (status 200) that still names
//! the region asked for; result pages are numbered from 1 (`seite=0` or a
//! non-number is a 400), and a page number past the last page gives an empty
//! result page, which is where a gatherer following `DB.NavigationURL` stops;
//! `DB.MaxPages` is the largest region's page count plus that empty page,
//! rounded up to a multiple of ten; a result page lists a town row again at
//! the top of a page when the town continues from the previous one; POST results live at their own script, which refuses GET, so
//! a gatherer that ignores the form's method notices.

pub mod annonces;
mod archive;
pub mod browse;
pub mod catalogue;
pub mod cottages;
mod data;
mod db;
pub mod events;
pub mod fewo;
mod form_provider;
pub mod hofladen;
pub mod jobs;
pub mod listing;
pub mod magazine;
mod pages;
pub mod pictures;
pub mod postgres;
pub mod quotes;
pub mod refresh;
mod server;
pub mod shelf;
pub mod slow;
pub mod stellen;
pub mod surface;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use anyhow::Context;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use url::Url;

pub use db::generate_database;

/// The press archive's order for a search text (lower case): where the
/// article `id` stands, lower first; the first
/// [`ARCHIVE_MAX_SHOWN`] are shown.
pub fn archive_relevance(wanted: &str, id: i64) -> u64 {
    archive::relevance(wanted, id)
}

/// The most articles one archive search shows.
pub const ARCHIVE_MAX_SHOWN: usize = archive::MAX_SHOWN;

/// How to run the demo site.
#[derive(Debug, Clone)]
pub struct DemoConfig {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Number of hotels in the provider's database.
    pub hotels: usize,
    /// Seed of the database generator: the same seed gives the same hotels.
    pub seed: u64,
    /// Hotels per result page of the paged forms (at least 1).
    pub page_size: usize,
    /// Books in the library catalogue (`/katalog/`).
    pub titles: usize,
    /// Articles in the press archive (`/archiv/`).
    pub articles: usize,
    /// The user allowed to read `/private/` (HTTP Basic).
    pub user: String,
    /// That user's password.
    pub password: String,
    /// Where the provider's SQLite file (`cityworld.sqlite`) goes. A directory
    /// that does not exist yet is created by [`DemoSite::start`] and removed
    /// again when the site shuts down.
    pub data_dir: PathBuf,
}

impl Default for DemoConfig {
    /// Port 0, 3,000 hotels, seed 1999, 20 hotels per page, user `gatherer`
    /// with password `swing`, and a new directory under the system's temp dir.
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = format!(
            "gather-demo-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        DemoConfig {
            port: 0,
            hotels: 3000,
            seed: 1999,
            page_size: 20,
            titles: 2000,
            articles: 3000,
            user: "gatherer".to_string(),
            password: "swing".to_string(),
            data_dir: std::env::temp_dir().join(dir),
        }
    }
}

/// The ways the site describes its database to a gatherer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// `/cityworld/`: seed §4.4 variant 1, the regions listed in the meta tag.
    Listed,
    /// `/cityworld2/`: variant 2, the region extracted from the result pages.
    Extracted,
    /// `/paged/`: results in pages the gatherer has to find itself.
    Paged,
    /// `/navurl/`: results in pages described by `DB.NavigationURL`.
    NavigationUrl,
    /// `/post/`: the form sent with POST.
    Post,
    /// `/secure/`: the metadata in a configuration file behind HTTP Basic auth.
    ConfigAuth,
    /// `/cityworld.DBContent`: a cooperative provider with a summarizer.
    Cooperative,
    /// `/limited/`: paged results, and a `DB.MaxPages` the largest regions
    /// exceed (each region and price category fits).
    Limited,
    /// `/katalog/`: the library catalogue, a `%` prefix field whose answers
    /// show at most 50 titles under a hit count.
    Catalogue,
    /// `/archiv/`: the press archive, a keyword field with three seed words
    /// whose answers show at most 100 articles under a hit count.
    Archive,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 10] = [
        Variant::Listed,
        Variant::Extracted,
        Variant::Paged,
        Variant::NavigationUrl,
        Variant::Post,
        Variant::ConfigAuth,
        Variant::Cooperative,
        Variant::Limited,
        Variant::Catalogue,
        Variant::Archive,
    ];

    /// What the variant is, for people (`gather demo --serve`).
    pub fn label(self) -> &'static str {
        match self {
            Variant::Listed => "hotels: the regions listed in the metadata",
            Variant::Extracted => "hotels: the regions read from the result pages",
            Variant::Paged => "hotels: results in pages gather finds itself",
            Variant::NavigationUrl => "hotels: result pages described by DB.NavigationURL",
            Variant::Post => "hotels: the form sent with POST",
            Variant::ConfigAuth => "hotels: metadata in a configuration file behind a login",
            Variant::Cooperative => "hotels: a cooperative provider's DBContent document",
            Variant::Limited => "hotels: a page limit the largest regions exceed",
            Variant::Catalogue => "library catalogue: at most 50 titles per search",
            Variant::Archive => "press archive: keyword search, at most 100 articles",
        }
    }

    /// The path of the variant's form page (or DBContent document).
    pub fn path(self) -> &'static str {
        match self {
            Variant::Listed => "/cityworld/",
            Variant::Extracted => "/cityworld2/",
            Variant::Paged => "/paged/",
            Variant::NavigationUrl => "/navurl/",
            Variant::Post => "/post/",
            Variant::ConfigAuth => "/secure/",
            Variant::Cooperative => "/cityworld.DBContent",
            Variant::Limited => "/limited/",
            Variant::Catalogue => "/katalog/",
            Variant::Archive => "/archiv/",
        }
    }
}

/// Pages the README and the manual point at besides the variants' form
/// pages, as `gather demo --serve` lists them.
const OTHER_PAGES: [(&str, &str); 5] = [
    (
        "/coop/",
        "a form page whose provider runs a summarizer (cooperative)",
    ),
    (
        "/plain/",
        "the hotel form without any DB.* metadata (gather spec --induce)",
    ),
    ("/about.html", "an ordinary page (gather text)"),
    (
        "/magazin/",
        "a travel magazine of ordinary pages (gather links, gather text)",
    ),
    ("/stellenmarkt/", "a job board, a rule per column"),
];

/// One request the site received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// `GET`, `POST`, …
    pub method: String,
    /// Path and query as sent (`/cgi-bin/auswahl.pl?region=R%FCgen`).
    pub target: String,
    /// The request body (empty for GET).
    pub body: Vec<u8>,
    /// The request headers, names in lower case, in the order received
    /// (values that are not visible ASCII are kept as Latin-1 text).
    pub headers: Vec<(String, String)>,
    /// When it arrived.
    pub at: SystemTime,
}

impl LoggedRequest {
    /// The hotel search a request to a guide's result script stands for,
    /// whatever its page: `region=Rügen&preis=bis50` (`alle` for a price
    /// left open), so that the pages of one query can be counted together.
    pub fn hotel_search(&self) -> String {
        let query = self.target.split_once('?').map_or("", |(_, q)| q);
        let pairs = pages::parse_form(query.as_bytes());
        let value = |name: &str| {
            pairs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
                .filter(|v| !v.is_empty())
                .unwrap_or("alle")
                .to_string()
        };
        format!("region={}&preis={}", value("region"), value("preis"))
    }
}

/// A running demo site.
pub struct DemoSite {
    base: Url,
    database: PathBuf,
    site: Arc<server::Site>,
    expected: db::Expected,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<std::io::Result<()>>>,
    /// The data directory, when the site created it (removed on shutdown).
    /// Declared last: dropped after the server has been told to stop.
    _owned_dir: OwnedDir,
}

/// A directory the site created, removed when this is dropped.
struct OwnedDir(Option<PathBuf>);

impl Drop for OwnedDir {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                tracing::warn!(
                    "cannot remove the demo data directory {}: {e}",
                    dir.display()
                );
            }
        }
    }
}

impl DemoSite {
    /// Generates the provider's database in `config.data_dir` and starts
    /// serving on 127.0.0.1.
    pub async fn start(config: DemoConfig) -> anyhow::Result<DemoSite> {
        if config.page_size == 0 {
            anyhow::bail!("demo site: page_size must be at least 1");
        }
        // Dropped on any error below, which removes a directory made here.
        let owned_dir = if config.data_dir.exists() {
            OwnedDir(None)
        } else {
            std::fs::create_dir_all(&config.data_dir).with_context(|| {
                format!(
                    "cannot create the data directory {}",
                    config.data_dir.display()
                )
            })?;
            OwnedDir(Some(config.data_dir.clone()))
        };
        let database = config.data_dir.join("cityworld.sqlite");
        let (expected, conn, regions, largest, largest_cell) = {
            let database = database.clone();
            let (hotels, titles, articles, seed) =
                (config.hotels, config.titles, config.articles, config.seed);
            tokio::task::spawn_blocking(move || -> anyhow::Result<_> {
                generate_database(&database, hotels, seed)?;
                let mut conn = rusqlite::Connection::open(&database).with_context(|| {
                    format!("cannot open the provider database {}", database.display())
                })?;
                catalogue::generate(&mut conn, titles, seed)?;
                archive::generate(&mut conn, articles, seed)?;
                let mut expected = db::expected(&database)?;
                expected.catalogue =
                    BTreeMap::from([("titel".to_string(), catalogue::titles(&conn)?)]);
                expected.archive = BTreeMap::from([("nr".to_string(), archive::numbers(&conn)?)]);
                let regions = db::regions(&conn)?;
                let largest = db::largest_region(&conn)?;
                let largest_cell = db::largest_region_and_price(&conn)?;
                Ok((expected, conn, regions, largest, largest_cell))
            })
            .await
            .context("database generation did not finish")??
        };
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
            .await
            .with_context(|| format!("cannot listen on 127.0.0.1:{}", config.port))?;
        let port = listener.local_addr()?.port();
        let base = Url::parse(&format!("http://127.0.0.1:{port}/"))?;
        // Enough pages for the largest region, plus the empty page that ends
        // it, rounded up to a number a provider would write.
        let needed = largest.div_ceil(config.page_size) + 1;
        let max_pages = needed.div_ceil(10) * 10;
        // The limited guide's DB.MaxPages: what the largest region and
        // price category needs, so that refining by price completes it.
        let limited_max_pages = largest_cell.div_ceil(config.page_size).max(1);
        let site = Arc::new(server::Site {
            base: base.clone(),
            conn: Mutex::new(conn),
            regions,
            page_size: config.page_size,
            max_pages,
            limited_max_pages,
            seed_words: archive::seed_words(config.seed),
            user: config.user,
            password: config.password,
            log: Mutex::new(Vec::new()),
            data_version: std::sync::atomic::AtomicU32::new(1),
        });
        let app = server::router(site.clone());
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
        });
        tracing::info!(%base, database = %database.display(), "demo site started");
        Ok(DemoSite {
            base,
            database,
            site,
            expected,
            stop: Some(stop),
            task: Some(task),
            _owned_dir: owned_dir,
        })
    }

    /// Turns the data of the guest house search ([`refresh`]) to
    /// `version` (1, the first; 2, the second).
    pub fn set_data_version(&self, version: u32) {
        self.site.data_version.store(version, Ordering::Relaxed);
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn base_url(&self) -> Url {
        self.base.clone()
    }

    /// The form page of a variant (for [`Variant::Cooperative`], its DBContent document).
    pub fn url(&self, variant: Variant) -> Url {
        let mut url = self.base.clone();
        url.set_path(variant.path());
        url
    }

    /// The provider's SQLite file.
    pub fn database_path(&self) -> &Path {
        &self.database
    }

    /// The press archive's articles (number, title), for measuring a
    /// gathering against the whole archive.
    pub fn archive_articles(&self) -> anyhow::Result<Vec<(i64, String)>> {
        let conn = rusqlite::Connection::open(&self.database)?;
        let mut stmt = conn.prepare("SELECT id, titel FROM artikel ORDER BY id")?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Attribute → the exact values a correct gatherer finds for a variant,
    /// computed with SQL from the provider's database when the site started.
    /// The form variants give `region` (every region of the form), `ort` (every
    /// town that has a hotel) and `name` (every hotel name); the cooperative
    /// one gives the summarizer's `hotel.name`, `hotel.ort` and `region.region`;
    /// the catalogue every `titel`, the archive every article's `nr`.
    pub fn expected(&self, variant: Variant) -> BTreeMap<String, BTreeSet<String>> {
        match variant {
            Variant::Cooperative => self.expected.cooperative.clone(),
            Variant::Catalogue => self.expected.catalogue.clone(),
            Variant::Archive => self.expected.archive.clone(),
            _ => self.expected.form.clone(),
        }
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        self.site
            .log
            .lock()
            .map(|log| log.clone())
            .unwrap_or_default()
    }

    /// Stops serving (open connections are finished first) and removes the
    /// data directory if the site created it.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            match task.await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => tracing::warn!("demo site stopped with an error: {e}"),
                Err(e) => tracing::warn!("demo site task failed: {e}"),
            }
        }
    }
}

impl Drop for DemoSite {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Serves the demo site until Ctrl-C (`gather demo --serve`), printing its
/// address and form pages.
/// The title of the demo's start page (how `gather demo` recognises a demo
/// site that already runs).
pub const START_PAGE_TITLE: &str = "CityWorld - Mecklenburg-Vorpommern im WWW";

pub fn serve_blocking(config: DemoConfig) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let (config_user, config_password) = (config.user.clone(), config.password.clone());
    runtime.block_on(async {
        let site = DemoSite::start(config).await?;
        println!("CityWorld demo site: {}", site.base_url());
        for variant in Variant::ALL {
            println!("  {:<48} {}", site.url(variant), variant.label());
        }
        for (path, label) in OTHER_PAGES {
            let url = site.base_url().join(path).map(String::from);
            println!("  {:<48} {label}", url.unwrap_or_default());
        }
        println!("provider database: {}", site.database_path().display());
        println!(
            "the protected variant's configuration file answers to the login {} / {}",
            config_user, config_password
        );
        println!("Ctrl-C stops the site.");
        let interrupted = tokio::signal::ctrl_c().await;
        site.shutdown().await;
        interrupted.context("cannot wait for Ctrl-C")
    })
}
