//! formatbench's Arrow 60 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-kernel")]
mod delta_kernel_backend;
#[cfg(feature = "zarr")]
mod zarr_backend;

use formatbench_worker_kit::Backend;

fn backends() -> Vec<&'static dyn Backend> {
    vec![
        #[cfg(feature = "zarr")]
        &zarr_backend::Zarr,
        #[cfg(feature = "delta-kernel")]
        &delta_kernel_backend::DeltaKernel,
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = formatbench_protocol::describe_or_run(
        &args,
        || {
            let mut described = formatbench_worker_kit::describe("arrow60", &backends());
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
        #[cfg(not(feature = "zarr"))]
        "zarr",
        #[cfg(not(feature = "delta-kernel"))]
        "delta-kernel",
    ]
}
