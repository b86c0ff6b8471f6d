//! gatherer (to be built).
