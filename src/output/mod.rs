//! Output: SOIF and JSON export of the gatherer database, and search.

pub mod soif;
