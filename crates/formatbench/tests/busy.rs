#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A run beside CPU hogs: every sample records how busy the machine was, the samples taken
//! while other work held the cores are flagged, and the summary, the report and `compare`
//! say that the machine was busy.

mod common;

use common::{formatbench, records, report_md, run_dir, stdout};
use formatbench::results::{MachineLoad, Record, BUSY_FLAG};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Threads that spin until dropped: one per core keeps every core busy with work that is
/// neither the runner's nor its workers'.
struct Hogs {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Hogs {
    fn start(count: usize) -> Hogs {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..count)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_add(1));
                    }
                })
            })
            .collect();
        Hogs { stop, threads }
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

fn run(out: &Path) -> std::process::Output {
    formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "200",
        "--per-type",
        "1",
        "--ops",
        "read",
        "--backends",
        "ipc,csv",
        "--rounds",
        "1",
        // Long enough samples for the share of the CPUs others used to be measurable.
        "--min-sample-ms",
        "150",
        "--out",
        out.to_str().unwrap(),
    ])
}

/// A copy of `from`'s results as a quiet machine would have recorded them.
fn quiet_copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    let mut lines = Vec::new();
    for line in std::fs::read_to_string(from.join("results.jsonl"))
        .unwrap()
        .lines()
    {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        if value["kind"] == "sample" && value.get("machine_load").is_some() {
            let quiet = MachineLoad {
                cpus: 2,
                load1_before: 0.2,
                load1_after: 0.3,
                other_cpu_share: Some(0.01),
                ..MachineLoad::default()
            };
            value["machine_load"] = serde_json::to_value(quiet).unwrap();
            if let Some(flags) = value["flags"].as_array_mut() {
                flags.retain(|f| f != BUSY_FLAG);
            }
        }
        lines.push(value.to_string());
    }
    std::fs::write(to.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
}

#[test]
fn a_run_beside_cpu_hogs_says_the_machine_was_busy() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("busy");
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let result = {
        let _hogs = Hogs::start(cores);
        run(&out)
    };
    assert!(result.status.success(), "{}", common::stderr(&result));
    let run = run_dir(&out);
    let samples: Vec<_> = records(&run)
        .into_iter()
        .filter_map(|r| match r {
            Record::Sample(s) if s.round.is_some() => Some(s),
            _ => None,
        })
        .collect();
    assert!(!samples.is_empty());
    for s in &samples {
        let load = s
            .machine_load
            .expect("every sample records the machine's load");
        assert!(load.busy().is_some(), "{load:?}");
        assert!(s.flags.iter().any(|f| f == BUSY_FLAG), "{:?}", s.flags);
    }
    let summary = stdout(&result);
    assert!(
        summary.contains("warning: the machine was busy during"),
        "{summary}"
    );
    let report = report_md(&run);
    assert!(report.contains("warning: the machine was busy during"));
    assert!(report.contains("| Machine load | busy during"), "{report}");
    assert!(report.contains("measured while the machine was busy in "));

    let quiet = dir.path().join("quiet");
    quiet_copy(&run, &quiet);
    let compared = formatbench(&[
        "compare",
        quiet.to_str().unwrap(),
        run.to_str().unwrap(),
        "--out",
        dir.path().join("cmp").to_str().unwrap(),
    ]);
    let text = stdout(&compared);
    assert!(text.contains("machine: quiet → busy in "), "{text}");
}
