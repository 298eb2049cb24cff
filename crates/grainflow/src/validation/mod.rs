//! Validation cases.
