//! gather — a declarative, metadata-driven deep-web gatherer.
//!
//! The modules follow the pipeline of the SWING gatherer (seed 003, Abbildung 4):
//!
//! 1. [`metadata`] reads the provider's `DB.*` description (meta tags, config
//!    file, DBContent document) and [`spec`] the operator's YAML spec;
//! 2. [`form`] models the query form, [`plan`] generates the queries;
//!    [`source`] puts those together for one database source;
//! 3. [`fetch`] sends them, [`navigate`] walks the result pages, with the
//!    pagers [`links`] finds (which also tells a crawl's menus from its
//!    content links); [`refine`] narrows the queries whose answers were cut
//!    short and learns words for open text fields;
//! 4. [`page`] builds the page tree and [`hel`] extracts the values
//!    ([`locate`] and [`induce`] write rules for sites without metadata,
//!    [`surface`] probes a form without metadata and chooses its query
//!    templates, with the words of a page ([`words`]) for a text field);
//!    [`boilerplate`] finds an ordinary page's main content, [`listing`]
//!    a result page's records, pager and stated total from the page alone;
//! 5. [`fragment`] merges the index fragments and [`record`] groups the
//!    values of one row into records, [`store`] keeps them (a SQLite
//!    file, or a PostgreSQL database that workers on many machines share),
//!    [`output`] writes [`soif`] and JSON and answers searches;
//!    [`summarize`] is the cooperative path (a provider's summarizer).
//!
//! [`gatherer`] runs the whole loop; [`demo`] is the built-in demo site.
//! Every parser reports its faults with a [`span::Span`] and shows them
//! with the same caret ([`span::Excerpt`]).

pub mod boilerplate;
pub use gather_page::charset;
#[cfg(feature = "demo")]
pub mod demo;
mod digest;
pub mod fetch;
pub mod form;
pub mod fragment;
pub mod gatherer;
pub mod hel;
pub mod induce;
pub mod links;
pub mod listing;
pub mod locate;
pub mod metadata;
pub mod navigate;
pub mod output;
pub use gather_page as page;
pub mod plan;
pub mod record;
pub mod refine;
pub mod soif;
pub mod source;
pub mod span;
pub mod spec;
pub mod store;
pub mod summarize;
pub mod surface;
pub mod words;
