//! locate (to be built).
