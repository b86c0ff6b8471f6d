//! The page tree of hel.md §1.
//!
//! PLACEHOLDER INTERFACE: replaced by the arena tree built from html5ever.

/// A parsed page.
#[derive(Debug, Default)]
pub struct Page {}

impl Page {
    pub fn parse(_html: &str) -> Page {
        Page {}
    }

    /// Decodes (see `charset`) and parses.
    pub fn from_bytes(bytes: &[u8], content_type: Option<&str>) -> Page {
        Page::parse(&crate::charset::decode(bytes, content_type).text)
    }
}
