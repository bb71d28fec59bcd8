//! Scenarios: the file format ([`model`]), loading with located errors
//! ([`load`]) and semantic checks ([`lint`]).

pub mod library;
pub mod lint;
pub mod locate;
pub mod load;
pub mod model;

pub use load::{load_dir, load_file, LoadError, Located};
pub use model::*;
