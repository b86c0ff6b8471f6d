//! The request generator (seed §4.2, §4.4): from a form and its metadata to
//! the list of queries to send.

mod request;

pub use request::{Method, Request};
