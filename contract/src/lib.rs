//! OpenClaw context-engine contract types (as shipped in npm `openclaw@2026.9.6`,
//! `src/context-engine/types.ts`) and the clawspec stdio protocol v1.
//!
//! Every struct keeps unknown fields in `extra` so that messages and params from
//! newer hosts or engines survive a round trip unchanged.

pub mod events;
pub mod info;
pub mod markers;
pub mod message;
pub mod params;
pub mod protocol;
pub mod provenance;
pub mod results;
pub mod schema;
pub mod settings;
pub mod shared;
pub mod tokens;

pub use events::*;
pub use info::*;
pub use message::*;
pub use params::*;
pub use provenance::*;
pub use results::*;
pub use settings::*;
pub use shared::Msg;

/// Unknown fields preserved across a round trip.
pub type Extra = serde_json::Map<String, serde_json::Value>;
