//! The command line: argument parsing and wiring only. The formatbench binary also acts as the
//! launcher and the built-in workers under hidden first arguments, checked before anything else.

mod args;
mod commands;

use crate::run::{LAUNCH_ARG, WORKER_ARG};
use clap::Parser;

pub use args::{Cli, Command, PeersAction, RunArgs};

/// Runs the program; returns the process exit code.
pub fn main() -> i32 {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some(LAUNCH_ARG) => return formatbench_launcher::launch(&args[2..]),
        Some(WORKER_ARG) => return worker_main(&args[2..]),
        _ => {}
    }
    let cli = Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("formatbench: error: {e}");
            e.exit_code()
        }
    }
}

/// Native workers run without transparent huge pages. mimalloc's arenas are 2 MiB-aligned, so
/// with THP each first touch zeroes a whole huge page (and may wait for the kernel to compact
/// memory for one): a Parquet write measured 105–175 ms with 137 MiB peak, and 115–125 ms with
/// 94 MiB without. The peers' allocators (jemalloc, glibc) do not ask for huge pages either.
fn disable_transparent_huge_pages() {
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process; a failure (an old kernel)
    // leaves the default, which the worker can live with.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

fn worker_main(args: &[String]) -> i32 {
    disable_transparent_huge_pages();
    match args.split_first() {
        Some((kind, rest)) if kind == "arrow" => formatbench_worker_arrow::main_with_args(rest),
        Some((kind, rest)) if kind == "selftest" => {
            formatbench_worker_selftest::main_with_args(rest)
        }
        _ => {
            eprintln!("formatbench: unknown worker (known: arrow, selftest)");
            2
        }
    }
}
