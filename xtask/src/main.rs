//! `cargo xtask <task>`: project automation (bench, bless, fuzz, ci).
fn main() -> anyhow::Result<()> {
    let task = std::env::args().nth(1).unwrap_or_default();
    anyhow::bail!("unknown xtask {task:?}; tasks arrive with their issues")
}
