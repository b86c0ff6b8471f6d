//! demo (to be built).
