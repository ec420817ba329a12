//! A worker program: its `--describe` object and its `main`. A worker's `main` is one call:
//! `std::process::exit(worker_main("arrow58", &backends(), &built_without()))`.

use crate::backend::{Backend, BackendError};
use crate::execute::{execute, Backends};
use crate::layout::WIDE;

/// The worker's `--describe` object: its backends, their profiles, layouts and operations,
/// and what each needs of the runner.
pub fn describe<E: BackendError>(worker: &str, backends: Backends<E>) -> serde_json::Value {
    let listed: Vec<serde_json::Value> = backends.iter().map(|b| described(*b)).collect();
    serde_json::json!({ "worker": worker, "backends": listed })
}

fn described<E: BackendError>(b: &dyn Backend<Error = E>) -> serde_json::Value {
    let layouts = b.layouts();
    let names = |ops: &[formatbench_protocol::Op]| -> Vec<&'static str> {
        ops.iter().map(|op| op.name()).collect()
    };
    let wide = layouts
        .iter()
        .find(|(name, _)| *name == WIDE)
        .map(|(_, ops)| names(ops))
        .unwrap_or_default();
    let layouts: serde_json::Map<String, serde_json::Value> = layouts
        .iter()
        .map(|(name, ops)| (name.to_string(), serde_json::json!(names(ops))))
        .collect();
    serde_json::json!({
        "name": b.name(),
        "profiles": b.profiles(),
        "ops": wide,
        "layouts": layouts,
        "targets": ["arrow"],
        "lossy": b.lossy(),
        "other_widths": b.other_widths(),
        "about": b.about(),
        "version": b.version(),
        "unavailable": b.available().err(),
        "object_storage": b.object_storage().err(),
        "unordered": b.unordered(),
        "artifact_from": b.artifact_from(),
        "deletion_profiles": b.deletion_profiles(),
        "given": b.given_file(),
        "format": b.format(),
    })
}

/// Runs the worker on its command line (`--describe`, or `--job PATH`) and returns the exit
/// code. `built_without` names the backends this build left out (the cargo features that
/// would add them), so the runner can say how to get them.
pub fn worker_main<E: BackendError>(
    worker: &str,
    backends: Backends<E>,
    built_without: &[&str],
) -> i32 {
    let args: Vec<String> = std::env::args().skip(1).collect();
    formatbench_protocol::describe_or_run(
        &args,
        || {
            let mut described = describe(worker, backends);
            described["built_without"] = serde_json::json!(built_without);
            described
        },
        |job| execute(job, backends),
    )
}
