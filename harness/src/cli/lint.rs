//! `clawspec lint [PATH…]`: validate scenario files; errors as file:line:col.

use std::path::PathBuf;

use crate::scenario::load::{load_file, scenario_files};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (default: scenarios/).
    pub paths: Vec<PathBuf>,
}

pub fn main(a: Args) -> u8 {
    let paths = if a.paths.is_empty() { vec![PathBuf::from("scenarios")] } else { a.paths };
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            match scenario_files(&p) {
                Ok(mut f) => files.append(&mut f),
                Err(e) => {
                    eprintln!("{}: {e}", p.display());
                    return super::EXIT_USAGE;
                }
            }
        } else if p.exists() {
            files.push(p);
        } else {
            // A path that does not exist is a usage error, not a lint finding.
            eprintln!("{}: no such file or directory", p.display());
            return super::EXIT_USAGE;
        }
    }
    let mut bad = 0;
    for f in &files {
        if let Err(errs) = load_file(f) {
            bad += 1;
            for e in errs {
                println!("{e}");
            }
        }
    }
    println!("{} file(s) checked, {} with errors", files.len(), bad);
    if bad > 0 { super::EXIT_FAILURES } else { super::EXIT_OK }
}
