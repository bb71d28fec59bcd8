//! Contract clauses and their checks over traces (issue 4 builds the catalogue).

/// Print the clause catalogue (`clawspec list clauses`).
pub fn print_catalogue() -> u8 {
    eprintln!("clawspec: the clause catalogue is not built yet");
    2
}
