//! `clawspec diff OLD.json NEW.json` and `clawspec merge A.json B.json… -o OUT`.

use std::path::PathBuf;

use crate::report::{diff, merge, Report};

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
    /// Apply this baseline to the merged verdicts (default: the one the shards ran with).
    #[arg(long)]
    pub baseline: Option<PathBuf>,
    /// The merged report's renderings (an incomplete merge fails its JUnit).
    #[command(flatten)]
    pub renderings: super::outputs::Renderings,
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
    let run = || -> Result<Report, String> {
        let output = Some(a.output.clone());
        let [j, m, h] = a.renderings.flags();
        super::outputs::check_writable(&[("-o", &output), j, m, h])?;
        let baseline = a.baseline.as_deref().map(crate::report::baseline::Baseline::load).transpose()?;
        let parts = a.reports.iter().map(|p| Ok(merge::Part { name: p.display().to_string(), report: load(p)? })).collect::<Result<Vec<_>, String>>()?;
        let r = merge::merge(parts, baseline.as_ref())?;
        std::fs::write(&a.output, r.to_json()).map_err(|e| format!("{}: {e}", a.output.display()))?;
        a.renderings.write(&r)?;
        Ok(r)
    };
    match run() {
        Ok(r) => {
            print!("{}", crate::report::render::terminal(&r));
            if r.certified() { super::EXIT_OK } else { super::EXIT_FAILURES }
        }
        Err(e) => {
            eprintln!("clawspec merge: {e}");
            super::EXIT_USAGE
        }
    }
}
