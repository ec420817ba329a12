//! Self-test workers: behaviour known in advance, for tests and calibration of the runner.

use formatbench_protocol::{measure, measure_repeated, Answer, Job};
use std::hint::black_box;

pub mod mutant;
pub mod variant;

pub const BACKENDS: [&str; 10] = [
    "selftest-noop",
    "selftest-alloc",
    "selftest-spin",
    "selftest-sleep",
    "selftest-crash",
    "selftest-hang",
    "selftest-garbage",
    "selftest-truncated",
    mutant::BACKEND,
    variant::BACKEND,
];

/// Profiles of each self-test backend; calibration compares them.
pub fn profiles(backend: &str) -> &'static [&'static str] {
    match backend {
        // x1/x2: one call per sample; short-x1/short-x2: calls short enough to repeat inside a
        // sample (min_sample_s), so their CPU ratio checks that CPU is per call; short-lazy:
        // short-x1 whose first call does four times the work (lazy initialisation), so its
        // first and warm calls differ by a known factor.
        "selftest-spin" => &["x1", "x2", "short-x1", "short-x2", "short-lazy"],
        // x1/x2: a fixed sleep, twice as long in x2: wall times whose ratio holds on a
        // machine busy with other work, where CPU spins slow down.
        "selftest-sleep" => &["x1", "x2"],
        "selftest-alloc" => &["256mib", "512mib"],
        mutant::BACKEND => mutant::profiles(),
        variant::BACKEND => variant::profiles(),
        _ => &["default"],
    }
}

/// How many times a warm call's work the first call of `short-lazy` does.
pub const LAZY_FIRST_CALL: u64 = 4;

/// Steps of CPU work for a spin profile, in millions: option `work` (default 100 for x1/x2,
/// 2 for the short ones), twice that for the x2 profiles.
fn spin_steps(job: &Job) -> u64 {
    let short = job.profile.starts_with("short-");
    let base = option_u64(job, "work", if short { 2 } else { 100 });
    let factor = if job.profile.ends_with("x2") { 2 } else { 1 };
    base * factor * 1_000_000
}

/// How long a sleep profile's call sleeps: option `ms` (default 20), twice that for x2.
fn sleep_duration(job: &Job) -> std::time::Duration {
    let factor = if job.profile.ends_with("x2") { 2 } else { 1 };
    std::time::Duration::from_millis(option_u64(job, "ms", 20) * factor)
}

fn alloc_bytes(job: &Job) -> u64 {
    let default = if job.profile == "512mib" {
        512 << 20
    } else {
        256 << 20
    };
    option_u64(job, "bytes", default)
}

fn option_u64(job: &Job, key: &str, default: u64) -> u64 {
    job.params
        .options
        .get(key)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Allocates `bytes` and writes one byte per page, so every page becomes resident.
fn touch(bytes: u64) -> u64 {
    let mut buf = vec![0u8; bytes as usize];
    for chunk in buf.chunks_mut(4096) {
        chunk[0] = 1;
    }
    black_box(&buf)
        .iter()
        .step_by(4096)
        .map(|&b| b as u64)
        .sum()
}

/// A fixed amount of integer work: a xorshift chain of `steps` steps.
fn spin(steps: u64) -> u64 {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..steps {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    black_box(x)
}

/// The operations each self-test backend does: the table operations, and for the mutant the
/// matrix operations too (it has wrong answers for them).
pub fn ops(backend: &str) -> Vec<formatbench_protocol::Op> {
    match backend {
        mutant::BACKEND => mutant::ops(),
        variant::BACKEND => variant::ops(),
        _ => formatbench_protocol::ALL_OPS.to_vec(),
    }
}

/// `Err(reason)` for a backend with no route to artifacts in object storage: the mutant and
/// the variant read local tables only. The others ignore where the artifact is.
pub fn object_storage(backend: &str) -> Result<(), String> {
    match backend {
        mutant::BACKEND | variant::BACKEND => Err(local_only(backend)),
        _ => Ok(()),
    }
}

/// Why a self-test backend answers a job on object storage, or in another layout or target,
/// unsupported.
pub(crate) fn local_only(backend: &str) -> String {
    format!("{backend} reads local wide tables into Arrow only")
}

pub fn run(job: &Job) -> Answer {
    // The mutant answers every job itself, preparation and verification included: its
    // misbehaviour is the point, wherever it is checked.
    if job.backend == mutant::BACKEND {
        return mutant::run(job);
    }
    // The variant answers right in every job, in its own representation, verification
    // included: the representation is what the runner must accept.
    if job.backend == variant::BACKEND {
        return variant::run(job);
    }
    // Preparing and verifying behave: misbehaviour is for measured samples, where the runner
    // must record it and carry on.
    if job.prepare {
        return Answer::ok();
    }
    if let (true, Some(out)) = (job.verification, &job.verify_out) {
        return verified_read(job, out);
    }
    let measured = match job.backend.as_str() {
        "selftest-noop" => measure(|| Ok::<u64, ()>(0)),
        "selftest-alloc" => measure(|| Ok(touch(alloc_bytes(job)))),
        "selftest-spin" => {
            let steps = spin_steps(job);
            let mut first = job.profile.ends_with("lazy");
            measure_repeated(job.calls(), || {
                let work = if std::mem::take(&mut first) {
                    LAZY_FIRST_CALL * steps
                } else {
                    steps
                };
                Ok(spin(work))
            })
        }
        "selftest-sleep" => {
            let wait = sleep_duration(job);
            measure_repeated(job.calls(), || {
                std::thread::sleep(wait);
                Ok(0)
            })
        }
        "selftest-crash" => std::process::abort(),
        "selftest-hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "selftest-garbage" => {
            // A worker that answers with nonsense: the runner must record it as failed.
            let _ = std::fs::write(&job.answer, b"this is not { json");
            std::process::exit(0);
        }
        "selftest-truncated" => {
            // A worker cut off while writing a real answer (a full disk, a kill between two
            // writes): what it left parses as the start of a good answer and nothing more.
            let whole = measure(|| Ok::<u64, ()>(0))
                .ok()
                .and_then(|(_, m)| serde_json::to_vec(&Answer::ok().with_measurement(&m)).ok())
                .unwrap_or_default();
            let _ = std::fs::write(&job.answer, &whole[..whole.len() / 2]);
            std::process::exit(0);
        }
        other => return Answer::failed(format!("unknown self-test backend '{other}'")),
    };
    match measured {
        Ok((value, m)) => {
            // What a self-test "returns" is the source: a measured sample writes it after its
            // timer, as every worker writes its result, for the runner to check.
            if let Some(out) = &job.verify_out {
                if let Err(e) = std::fs::copy(&job.source, out) {
                    return Answer::failed(format!("cannot copy the source: {e}"));
                }
            }
            let mut answer = Answer::ok().with_measurement(&m);
            answer.digest = Some(match job.backend.as_str() {
                "selftest-spin" | "selftest-sleep" => expected_digest(job),
                _ => format!("selftest:{value}"),
            });
            answer.rows = Some(0);
            answer.columns = Some(0);
            answer
        }
        Err(()) => Answer::failed("self-test measurement failed"),
    }
}

/// A verification run reads the whole source: a copy of the canonical file is exactly that.
fn verified_read(job: &Job, out: &std::path::Path) -> Answer {
    match std::fs::copy(&job.source, out) {
        Ok(_) => {
            let mut answer = Answer::ok();
            answer.digest = Some(expected_digest(job));
            answer
        }
        Err(e) => Answer::failed(format!("cannot copy the source: {e}")),
    }
}

fn expected_digest(job: &Job) -> String {
    match job.backend.as_str() {
        "selftest-alloc" => format!("selftest:{}", alloc_bytes(job) / 4096),
        _ => "selftest:0".into(),
    }
}

pub fn describe() -> serde_json::Value {
    let backends: Vec<serde_json::Value> = BACKENDS
        .iter()
        .map(|name| {
            serde_json::json!({
                "name": name,
                "profiles": profiles(name),
                "ops": ops(name).iter().map(|op| op.name()).collect::<Vec<_>>(),
                "lossy": false,
                "about": "self-test worker with known behaviour",
            })
        })
        .collect();
    serde_json::json!({
        "worker": "selftest",
        "versions": { "formatbench-worker-selftest": env!("CARGO_PKG_VERSION") },
        "backends": backends,
    })
}

pub fn main_with_args(args: &[String]) -> i32 {
    formatbench_protocol::describe_or_run(args, describe, run)
}
