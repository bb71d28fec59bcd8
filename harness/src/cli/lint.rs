//! `clawspec lint [PATH…]`: validate scenario files; errors as file:line:col.

use std::path::PathBuf;

use crate::scenario::library::{self, Source};
use crate::scenario::load::{duplicate_ids, load_file, scenario_files};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Files or directories (default: ./scenarios, else the shipped library).
    pub paths: Vec<PathBuf>,
}

pub fn main(a: Args) -> u8 {
    let paths = match (a.paths.is_empty(), library::source(None)) {
        (false, _) => a.paths,
        (true, Source::Dir(d)) => vec![d],
        (true, Source::Shipped) => return lint_shipped(),
    };
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
    let mut ok = Vec::new();
    for f in &files {
        match load_file(f) {
            Ok(l) => ok.push(l),
            Err(errs) => {
                bad += 1;
                for e in errs {
                    println!("{e}");
                }
            }
        }
    }
    // Ids are unique across everything linted together, as certify requires.
    for e in duplicate_ids(&ok) {
        bad += 1;
        println!("{e}");
    }
    println!("{} file(s) checked, {} with errors", files.len(), bad);
    if bad > 0 { super::EXIT_FAILURES } else { super::EXIT_OK }
}

fn lint_shipped() -> u8 {
    match library::shipped() {
        Ok(all) => {
            println!("{} file(s) checked in {}, 0 with errors", all.len(), library::describe(None));
            super::EXIT_OK
        }
        Err(errs) => {
            for e in &errs {
                println!("{e}");
            }
            super::EXIT_FAILURES
        }
    }
}
