//! Output files are checked before a run starts: a `--report` into a missing
//! folder is a usage error up front (exit 2), not after minutes of running.

use std::path::{Path, PathBuf};

use crate::report::Report;

/// The renderings of a report that `certify` and `merge` write besides its
/// JSON: one flag group, one writer.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Renderings {
    /// Write the report as JUnit XML (what CI reads: a failing case exactly
    /// where the run is not green).
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Write the report as Markdown.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Write the report as HTML.
    #[arg(long)]
    pub html: Option<PathBuf>,
}

impl Renderings {
    pub fn flags(&self) -> [(&'static str, &Option<PathBuf>); 3] {
        [("--junit", &self.junit), ("--markdown", &self.markdown), ("--html", &self.html)]
    }

    pub fn any(&self) -> bool {
        self.flags().iter().any(|(_, p)| p.is_some())
    }

    /// Every rendering asked for, of `r`.
    pub fn write(&self, r: &Report) -> Result<(), String> {
        let render: [fn(&Report) -> String; 3] = [crate::report::junit::junit, crate::report::render::markdown, crate::report::render::html];
        for ((_, path), render) in self.flags().into_iter().zip(render) {
            if let Some(p) = path {
                std::fs::write(p, render(r)).map_err(|e| format!("{}: {e}", p.display()))?;
            }
        }
        Ok(())
    }
}

/// Every given path must name a file in an existing, writable folder.
pub fn check_writable(outputs: &[(&str, &Option<PathBuf>)]) -> Result<(), String> {
    for (flag, path) in outputs {
        let Some(p) = path else { continue };
        // `missing/` names a folder, existing or not: never a file.
        if p.is_dir() || p.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return Err(format!("{flag} {}: is a directory; give a file name", p.display()));
        }
        let folder = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !folder.is_dir() {
            return Err(format!("{flag} {}: folder {} does not exist", p.display(), folder.display()));
        }
        if !writable(&folder) {
            return Err(format!("{flag} {}: folder {} is not writable", p.display(), folder.display()));
        }
    }
    Ok(())
}

fn writable(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else { return false };
    // SAFETY: a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_folders_and_directories_are_refused() {
        let d = std::env::temp_dir().join(format!("clawspec-outputs-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let ok = Some(d.join("r.json"));
        let missing = Some(d.join("no/such/r.json"));
        let dir = Some(d.clone());
        assert!(check_writable(&[("--report", &ok), ("--junit", &None)]).is_ok());
        let e = check_writable(&[("--report", &missing)]).unwrap_err();
        assert!(e.contains("--report") && e.contains("no/such") && e.contains("does not exist"), "{e}");
        assert!(check_writable(&[("--html", &dir)]).unwrap_err().contains("is a directory"));
        let slash = Some(PathBuf::from(format!("{}/nodir/", d.display())));
        assert!(check_writable(&[("--report", &slash)]).unwrap_err().contains("is a directory"), "a trailing slash names a folder");
        assert!(check_writable(&[("--report", &Some(PathBuf::from("r.json")))]).is_ok(), "a bare name is in the current folder");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
