//! Scenarios: the file format ([`model`]), loading with located errors
//! ([`load`]), semantic checks ([`lint`]) and long-session generation
//! ([`generate`], expanded at load time).

pub mod library;
pub mod generate;
pub mod lint;
pub mod locate;
pub mod load;
pub mod model;

pub use load::{load_dir, load_file, LoadError, Located};
pub use model::*;
