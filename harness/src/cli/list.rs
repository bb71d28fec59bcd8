//! `clawspec list [scenarios|profiles|engines|clauses]`.

use crate::runtime::profile::Profile;

/// `println!` that stops quietly when the reader went away (`list | head`):
/// a closed pipe is not an error of ours.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            return super::EXIT_OK;
        }
    }};
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// What to list.
    #[arg(default_value = "scenarios", value_parser = ["scenarios", "profiles", "engines", "clauses"])]
    pub what: String,
    /// Scenario directory (default: ./scenarios, else the shipped library).
    #[arg(long)]
    pub scenarios: Option<std::path::PathBuf>,
}

pub fn main(a: Args) -> u8 {
    match a.what.as_str() {
        "profiles" => {
            for p in Profile::all() {
                if crate::runtime::profile::is_proposal(&p.id) {
                    out!("{:<20} PROPOSED contract (RFC #82137 on top of OpenClaw {}); no release implements it; reported apart, never part of the certify verdict", p.id, p.openclaw_version);
                } else {
                    out!("{:<20} OpenClaw {} (released)", p.id, p.openclaw_version);
                }
            }
            out!("(append {} to any profile for the marker-drift variant)", crate::runtime::profile::MARKER_DRIFT_SUFFIX);
        }
        "engines" => {
            for e in crate::engines::BUILTIN {
                out!("builtin:{e}");
            }
        }
        "clauses" => return crate::check::print_catalogue(),
        _ => match crate::scenario::library::load(a.scenarios.as_deref()) {
            Ok(all) => {
                for l in all {
                    let profiles = if l.scenario.profiles.is_empty() { "all".to_string() } else { l.scenario.profiles.join(",") };
                    out!("{:<44} [{}] {}", l.scenario.id, profiles, l.scenario.title);
                }
            }
            Err(e) => {
                eprintln!("{e}");
                return super::EXIT_USAGE;
            }
        },
    }
    super::EXIT_OK
}
