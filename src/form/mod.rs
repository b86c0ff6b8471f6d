//! form (to be built).
