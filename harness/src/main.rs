use std::process::ExitCode;

fn main() -> ExitCode {
    clawspec::cli::main()
}
