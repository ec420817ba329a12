//! The command line: argument parsing and wiring only. The formatbench binary also acts as the
//! launcher and the built-in workers under hidden first arguments, checked before anything else.

mod args;
mod commands;

use crate::run::{LAUNCH_ARG, S3_SERVER_ARG, WORKER_ARG};
use clap::Parser;

pub use args::{Cli, Command, CompareArgs, PeersAction, RunArgs};
/// The plan a suite (or none: the command line alone) and `run`'s arguments resolve to.
pub use commands::plan_for;

/// Runs the program; returns the process exit code.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some(LAUNCH_ARG) => return formatbench_launcher::launch(&args[2..]),
        Some(WORKER_ARG) => return crate::catalog::builtin::worker_main(&args[2..]),
        Some(S3_SERVER_ARG) => return formatbench_s3::main_with_args(&args[2..]),
        Some(crate::verify::partitions::PARTITION_DIGEST_ARG) => {
            return crate::verify::partitions::main(&args[2..])
        }
        _ => {}
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are answers, not errors.
        Err(e) if !e.use_stderr() => {
            let _ = e.print();
            return 0;
        }
        // No command at all: the help, as a reminder of the commands.
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return 2;
        }
        Err(e) => {
            eprintln!("formatbench: {}", usage_error(&e.render().to_string()));
            return 2;
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("formatbench: error: {e}");
            e.exit_code()
        }
    }
}

/// clap's message for a bad command line as one line: its error, the values it takes and any
/// tip, without the usage block and the pointer to --help.
fn usage_error(rendered: &str) -> String {
    rendered
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect::<Vec<_>>()
        .join("; ")
}
