//! store (to be built).
