// The scenario library is embedded in the binary (scenario/library.rs):
// rebuild when a file under scenarios/ is added, removed or edited.
fn main() {
    println!("cargo:rerun-if-changed=../scenarios");
    println!("cargo:rerun-if-changed=build.rs");
}
