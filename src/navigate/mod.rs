//! navigate (to be built).
