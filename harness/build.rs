// The scenario library is embedded in the binary (scenario/library.rs):
// rebuild when a file under scenarios/ is added, removed or edited.
//
// The commit clawspec was built from goes into every report
// (`clawspecBuild`), so `merge` can refuse shards of two builds that share a
// version number. Read from the checkout's git files, not by running git:
// no git on the machine (or a source tarball) just leaves it unknown.
fn main() {
    println!("cargo:rerun-if-changed=../scenarios");
    println!("cargo:rerun-if-changed=build.rs");
    if let Some(commit) = commit() {
        println!("cargo:rustc-env=CLAWSPEC_BUILD_COMMIT={commit}");
    }
}

fn commit() -> Option<String> {
    let git = std::path::Path::new("../.git");
    // A worktree's `.git` is a file naming its git dir.
    let dir = if git.is_file() {
        let text = std::fs::read_to_string(git).ok()?;
        std::path::PathBuf::from(text.strip_prefix("gitdir:")?.trim())
    } else {
        git.to_path_buf()
    };
    let head_path = dir.join("HEAD");
    println!("cargo:rerun-if-changed={}", head_path.display());
    let head = std::fs::read_to_string(&head_path).ok()?;
    let Some(name) = head.trim().strip_prefix("ref: ") else { return valid(head.trim()) };
    // A branch ref lives in the common dir (a worktree's `commondir`).
    let common = std::fs::read_to_string(dir.join("commondir")).ok().map(|c| dir.join(c.trim())).unwrap_or_else(|| dir.clone());
    let loose = common.join(name);
    println!("cargo:rerun-if-changed={}", loose.display());
    println!("cargo:rerun-if-changed={}", common.join("packed-refs").display());
    if let Ok(id) = std::fs::read_to_string(&loose) {
        return valid(id.trim());
    }
    let packed = std::fs::read_to_string(common.join("packed-refs")).ok()?;
    packed.lines().find_map(|l| l.strip_suffix(name).and_then(|id| valid(id.trim())))
}

fn valid(id: &str) -> Option<String> {
    (id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())).then(|| id.to_string())
}
