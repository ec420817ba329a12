#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `history` over kept runs: each cell followed across five runs in order, the run where a
//! cell got slower (and the one where it got faster again) flagged by `compare`'s rule, the
//! same table exported, and a run from another machine shown apart, never pooled.

mod common;

use common::{formatbench, run_dir, stdout};
use serde_json::Value;
use std::path::Path;

/// A copy of `run` as run `id`: every time made up (1 ms × `scale`, a few per cent apart by
/// round) so the verdicts never depend on how noisy this machine is; `cpu` renames its CPU.
fn copy_as(run: &Path, into: &Path, id: &str, scale: f64, cpu: Option<&str>) {
    std::fs::create_dir_all(into).unwrap();
    let text = std::fs::read_to_string(run.join("results.jsonl")).unwrap();
    let mut lines = Vec::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v.get("run_id").is_some() {
            v["run_id"] = Value::from(id);
        }
        if v["kind"] == "environment" {
            if let Some(cpu) = cpu {
                v["cpu_model"] = Value::from(cpu);
            }
        }
        if v["kind"] == "sample" {
            let round = v["round"].as_f64().unwrap_or(0.0);
            for key in ["wall_s", "first_call_s", "warm_call_s", "process_wall_s"] {
                if v[key].as_f64().is_some() {
                    v[key] = Value::from(scale * 1e-3 * (1.0 + 0.02 * (round % 5.0)));
                }
            }
        }
        lines.push(serde_json::to_string(&v).unwrap());
    }
    std::fs::write(into.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
}

#[test]
fn five_runs_draw_a_trend_per_cell_and_flag_where_it_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("first");
    let made = formatbench(&[
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
        "ipc",
        "--profiles",
        "default,zstd",
        "--rounds",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        first.to_str().unwrap(),
    ]);
    assert_eq!(made.status.code(), Some(0), "{}", common::stderr(&made));
    let run = run_dir(&first);
    let kept = tmp.path().join("kept");
    // Runs 1–3 alike, run 4 twice as slow, run 5 back; listed out of order on purpose.
    for (id, scale) in [
        ("20990101T000005Z-5", 1.0),
        ("20990101T000001Z-1", 1.0),
        ("20990101T000004Z-4", 2.0),
        ("20990101T000002Z-2", 1.0),
        ("20990101T000003Z-3", 1.0),
    ] {
        copy_as(&run, &kept.join(id), id, scale, None);
    }
    copy_as(
        &run,
        &kept.join("20990101T000006Z-6"),
        "20990101T000006Z-6",
        3.0,
        Some("Other CPU"),
    );
    let out = tmp.path().join("history");
    let result = formatbench(&[
        "history",
        kept.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", common::stderr(&result));
    let text = stdout(&result);
    assert!(
        text.contains("6 runs on 2 machine(s); 4 changes flagged"),
        "{text}"
    );
    assert!(
        text.contains("run 4 · mixed-200x7 · read · cache warm"),
        "{text}"
    );
    assert!(
        text.contains("↑ 2.0×") && text.contains("↓ 0.50×"),
        "{text}"
    );

    // The same in the table: every cell of the first machine in all five runs, in order.
    let rows: Value =
        serde_json::from_slice(&std::fs::read(out.join("history.json")).unwrap()).unwrap();
    let rows = rows.as_array().unwrap();
    let ours: Vec<&Value> = rows
        .iter()
        .filter(|r| !r["environment"].as_str().unwrap().starts_with("Other CPU"))
        .collect();
    assert_eq!(ours.len(), 2 * 5, "two cells in five runs");
    for r in &ours {
        let index = r["run_index"].as_i64().unwrap();
        assert_eq!(r["run_id"], format!("20990101T00000{index}Z-{index}"));
        let slower = index == 4;
        let faster = index == 5;
        assert_eq!(r["changed"], Value::from(slower || faster), "{r}");
        if slower {
            assert_eq!(r["change"], "slower");
        }
        if faster {
            assert_eq!(r["change"], "faster");
        }
    }
    // The other machine's run is alone in its own section: nothing to compare it with.
    let other: Vec<&Value> = rows
        .iter()
        .filter(|r| r["environment"].as_str().unwrap().starts_with("Other CPU"))
        .collect();
    assert_eq!(other.len(), 2);
    assert!(other
        .iter()
        .all(|r| r["change"].is_null() && r["run_index"] == 1));
    let page = std::fs::read_to_string(out.join("history.md")).unwrap();
    assert!(page.contains("## Other CPU · "), "{page}");
    assert!(page.contains("](chart-1.svg)"), "{page}");
    assert!(
        page.contains("| 2.10 ms ↑ 2.0× [1.9–2.1] | 1.05 ms ↓ 0.50× [0.48–0.52] |"),
        "{page}"
    );
    let chart = std::fs::read_to_string(out.join("chart-1.svg")).unwrap();
    assert!(chart.contains("run 5"), "the x axis names the runs");
    assert!(
        chart.contains("class=\"span "),
        "each point's interquartile range is drawn"
    );
    assert!(out.join("history.parquet").is_file() && out.join("history.html").is_file());
}

#[test]
fn a_directory_without_runs_is_one_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let result = formatbench(&["history", tmp.path().to_str().unwrap()]);
    assert_eq!(result.status.code(), Some(2));
    let err = common::stderr(&result);
    assert!(
        err.contains("neither a run directory nor a results directory"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
