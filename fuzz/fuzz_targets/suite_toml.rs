#![no_main]
//! `formatbench suite FILE.toml`: parsing a suite file and resolving it to a plan.

use formatbench::cli::{plan_for, Cli, Command};
use libfuzzer_sys::fuzz_target;
use clap::Parser;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(suite) = formatbench::plan::parse_suite(text, "(fuzz input)") else {
        return;
    };
    let Ok(Cli { command: Command::Suite { args, .. }, .. }) =
        Cli::try_parse_from(["formatbench", "suite", "fuzz.toml"])
    else {
        return;
    };
    let _ = plan_for(Some(&suite), &args);
});
