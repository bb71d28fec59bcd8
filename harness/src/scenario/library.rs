//! Which scenario library a command uses: `--scenarios DIR` when given;
//! otherwise `./scenarios`, else the library embedded in the binary at build
//! time (build.rs rebuilds when scenarios/ changes) — so an installed
//! `clawspec` run from any folder still has its scenarios, and a missing
//! default is never reported as if it were a lint error.

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

use super::load::{duplicate_ids, load_dir, parse, LoadError};
use super::Located;

/// The scenario library as it was when this binary was built.
static SHIPPED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/../scenarios");

/// Where the scenarios come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Dir(PathBuf),
    Shipped,
}

/// The library for `--scenarios` (None: the default search above).
pub fn source(given: Option<&Path>) -> Source {
    if let Some(dir) = given {
        return Source::Dir(dir.to_path_buf());
    }
    let here = PathBuf::from("scenarios");
    if here.is_dir() {
        return Source::Dir(here);
    }
    Source::Shipped
}

/// Human name of the library a command would use.
pub fn describe(given: Option<&Path>) -> String {
    match source(given) {
        Source::Dir(d) => d.display().to_string(),
        Source::Shipped => format!("the scenario library shipped with clawspec {}", env!("CARGO_PKG_VERSION")),
    }
}

/// Load the library: a missing `--scenarios` folder is one plain error; bad
/// files are every located error, joined.
pub fn load(given: Option<&Path>) -> Result<Vec<Located>, String> {
    let joined = |errs: Vec<LoadError>| errs.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n");
    match source(given) {
        Source::Dir(d) if !d.is_dir() => Err(format!("--scenarios {}: no such directory", d.display())),
        Source::Dir(d) => load_dir(&d).map_err(joined),
        Source::Shipped => shipped().map_err(joined),
    }
}

/// The embedded library, parsed and linted like files on disk.
pub fn shipped() -> Result<Vec<Located>, Vec<LoadError>> {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    let mut files: Vec<&include_dir::File> = Vec::new();
    let mut stack = vec![&SHIPPED];
    while let Some(d) = stack.pop() {
        stack.extend(d.dirs());
        files.extend(d.files().filter(|f| matches!(f.path().extension().and_then(|e| e.to_str()), Some("yaml" | "yml" | "json"))));
    }
    files.sort_by_key(|f| f.path());
    for f in files {
        let path = Path::new("<shipped>/scenarios").join(f.path());
        match parse(&path, f.contents_utf8().unwrap_or_default()) {
            Ok(l) => ok.push(l),
            Err(mut e) => errors.append(&mut e),
        }
    }
    errors.extend(duplicate_ids(&ok));
    if errors.is_empty() { Ok(ok) } else { Err(errors) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_library_is_the_checkout() {
        let shipped = super::shipped().expect("the embedded library lints clean");
        let disk = super::load_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios")).unwrap();
        let ids = |v: &[super::Located]| v.iter().map(|l| (l.scenario.id.clone(), l.source.clone())).collect::<Vec<_>>();
        assert_eq!(ids(&shipped), ids(&disk));
    }
}
