//! `clawspec diff OLD.json NEW.json` and `clawspec merge A.json B.json… -o OUT`.

use std::path::PathBuf;

use crate::report::{diff, Report};

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    pub old: PathBuf,
    pub new: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// Shard reports to merge.
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn load(p: &PathBuf) -> Result<Report, String> {
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}:{}:{}: not a clawspec report: {e}", p.display(), e.line(), e.column()))
}

pub fn diff_main(a: DiffArgs) -> u8 {
    match (load(&a.old), load(&a.new)) {
        (Ok(o), Ok(n)) => {
            let d = diff::diff(&o, &n);
            print!("{}", d.render());
            if d.is_regression() { super::EXIT_FAILURES } else { super::EXIT_OK }
        }
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("clawspec diff: {e}");
            super::EXIT_USAGE
        }
    }
}

pub fn merge_main(a: MergeArgs) -> u8 {
    let parts: Result<Vec<Report>, String> = a.reports.iter().map(load).collect();
    match parts.and_then(Report::merge) {
        Ok(r) => match std::fs::write(&a.output, r.to_json()) {
            Ok(()) => {
                print!("{}", crate::report::render::terminal(&r));
                if r.certified() { super::EXIT_OK } else { super::EXIT_FAILURES }
            }
            Err(e) => {
                eprintln!("clawspec merge: {}: {e}", a.output.display());
                super::EXIT_USAGE
            }
        },
        Err(e) => {
            eprintln!("clawspec merge: {e}");
            super::EXIT_USAGE
        }
    }
}
