//! formatbench's Arrow 60 worker: `--describe` or `--job PATH` (docs/protocol.md).

#[cfg(feature = "delta-kernel")]
mod delta_kernel_backend;
#[cfg(feature = "zarr")]
mod zarr_backend;

use formatbench_worker_kit::Backend;

#[allow(clippy::vec_init_then_push)]
fn backends() -> Vec<&'static dyn Backend> {
    #[allow(unused_mut)]
    let mut out: Vec<&'static dyn Backend> = Vec::new();
    #[cfg(feature = "zarr")]
    out.push(&zarr_backend::Zarr);
    #[cfg(feature = "delta-kernel")]
    out.push(&delta_kernel_backend::DeltaKernel);
    out
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
#[allow(clippy::vec_init_then_push)]
fn built_without() -> Vec<&'static str> {
    #[allow(unused_mut)]
    let mut out = Vec::new();
    #[cfg(not(feature = "zarr"))]
    out.push("zarr");
    #[cfg(not(feature = "delta-kernel"))]
    out.push("delta-kernel");
    out
}
