#![no_main]
//! `formatbench suite FILE.toml`: parsing a suite file and resolving it to a plan. An error that
//! names a line names one of the input's lines, and where it blames a key (`unknown field
//! `backend``, `samples = 0: …`), the line it names holds that key.

use clap::Parser;
use formatbench::cli::{plan_for, Cli, Command};
use libfuzzer_sys::fuzz_target;

/// The line an error names, and the rest of its message after it.
fn named_line(message: &str) -> Option<(usize, &str)> {
    let (_, after) = message.split_once(" (line ")?;
    let (number, rest) = after.split_once("): ")?;
    Some((number.parse().ok()?, rest))
}

/// The key an error blames: serde's `unknown field `K``, or a check's `K = …` / `K: …` (the last
/// part of a dotted `quick.samples`).
fn blamed_key(detail: &str) -> Option<&str> {
    if let Some(rest) = detail.strip_prefix("unknown field `") {
        return rest.split('`').next();
    }
    let end = detail.find([' ', ':'])?;
    let (key, rest) = detail.split_at(end);
    let is_key = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '_' || c == '.');
    (is_key && (rest.starts_with(" = ") || rest.starts_with(':')))
        .then(|| key.rsplit('.').next().unwrap_or(key))
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let suite = match formatbench::plan::parse_suite(text, "(fuzz input)") {
        Ok(suite) => suite,
        Err(e) => {
            let message = e.to_string();
            assert!(!message.contains('\n'), "one line: {message:?}");
            if let Some((line, detail)) = named_line(&message) {
                let lines: Vec<&str> = text.lines().collect();
                assert!(
                    line >= 1 && line <= lines.len().max(1),
                    "line {line} of {} lines: {message}",
                    lines.len()
                );
                // A key written with escapes (`"sam\u0070les"`) is not its name as written.
                let held = lines.get(line - 1).copied().unwrap_or_default();
                if let Some(key) = blamed_key(detail).filter(|_| !held.contains('\\')) {
                    assert!(
                        held.contains(key),
                        "line {line} {held:?} blamed for {key}: {message}"
                    );
                }
            }
            return;
        }
    };
    let Ok(Cli {
        command: Command::Suite { args, .. },
        ..
    }) = Cli::try_parse_from(["formatbench", "suite", "fuzz.toml"])
    else {
        return;
    };
    let _ = plan_for(Some(&suite), &args);
});
