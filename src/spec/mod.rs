//! spec (to be built).
