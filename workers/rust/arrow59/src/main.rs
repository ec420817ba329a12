//! formatbench's Arrow 59 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-rs")]
mod delta_rs_backend;
#[cfg(feature = "vortex")]
mod vortex_backend;

use formatbench_worker_kit::Backend;

fn backends() -> Vec<&'static dyn Backend> {
    vec![
        #[cfg(feature = "vortex")]
        &vortex_backend::Vortex,
        #[cfg(feature = "delta-rs")]
        &formatbench_worker_kit::delta::DeltaReader(delta_rs_backend::DeltaRs),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = formatbench_protocol::describe_or_run(
        &args,
        || {
            let mut described = formatbench_worker_kit::describe("arrow59", &backends());
            described["built_without"] = serde_json::json!(built_without());
            described
        },
        |job| formatbench_worker_kit::execute(job, &backends()),
    );
    std::process::exit(code);
}

/// The backends this build left out, by the cargo feature that adds each.
fn built_without() -> Vec<&'static str> {
    vec![
        #[cfg(not(feature = "vortex"))]
        "vortex",
        #[cfg(not(feature = "delta-rs"))]
        "delta-rs",
    ]
}
