//! ward's interception core (being built).
pub mod sys;
