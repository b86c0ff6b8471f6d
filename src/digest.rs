//! SHA-256 digests written as lower-case hex: the keys of queries and the
//! fingerprints of result pages in the store.

use std::fmt::Write;

/// `bytes` (a finished digest) as lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    #[test]
    fn the_digest_of_the_empty_input_is_the_known_one() {
        assert_eq!(
            super::hex(&Sha256::digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
