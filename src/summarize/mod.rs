//! summarize (to be built).
