//! DB metadata: what a provider says about its form (spec/metadata.md).

mod dbcontent;

pub use dbcontent::{DbContent, DbContentError, DbTable};
