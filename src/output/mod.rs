//! output (to be built).
