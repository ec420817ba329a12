#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Measurement policy end to end: resume after a hard kill, proven cache states, pooling rules.

mod common;

use common::{formatbench, run_dir, samples, stderr};
use formatbench::results::{SampleStatus, ScheduleSlot};
use std::collections::BTreeSet;
use std::path::Path;

const PLAN: [&str; 16] = [
    "--dataset",
    "mixed",
    "--rows",
    "500",
    "--per-type",
    "1",
    "--backends",
    "ipc,parquet",
    "--profiles",
    "default",
    "--ops",
    "read,take",
    "--min-sample-ms",
    "0",
    "--rounds",
    "2",
];

fn keys(dir: &Path) -> (BTreeSet<ScheduleSlot>, usize, bool) {
    let all = samples(dir);
    let measured: Vec<_> = all.iter().filter(|s| s.round.is_some()).collect();
    let keys: BTreeSet<ScheduleSlot> = measured
        .iter()
        .map(|s| ScheduleSlot {
            cell: s.cell.clone(),
            round: s.round.unwrap(),
            position: s.position.unwrap(),
        })
        .collect();
    let all_ok = measured.iter().all(|s| s.status == SampleStatus::Ok);
    (keys, measured.len(), all_ok)
}

#[test]
fn a_killed_run_resumes_to_the_same_samples() {
    let whole = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", whole.path().to_str().unwrap()];
    args.extend(PLAN);
    let result = formatbench(&args);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let (expected, count, ok) = keys(&run_dir(whole.path()));
    // Two groups (read, take) of two competitors, two blocks of four rounds.
    assert_eq!(count, 2 * 2 * 8);
    assert_eq!(expected.len(), count);
    assert!(ok);

    let broken = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", broken.path().to_str().unwrap()];
    args.extend(PLAN);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args(&args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let dir = loop {
        let found = std::fs::read_dir(broken.path())
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| e.ok())
            .map(|e| e.path());
        if let Some(dir) = found {
            if dir.join("results.jsonl").exists() && keys(&dir).1 >= 10 {
                break dir;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the run never got going"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    // A hard kill: no handler runs, the scratch directory stays behind.
    child.kill().unwrap();
    child.wait().unwrap();
    let (partial, _, _) = keys(&dir);
    assert!(partial.len() < expected.len(), "killed mid-way");

    let result = formatbench(&[
        "run",
        "--resume",
        dir.to_str().unwrap(),
        "--out",
        broken.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("already done"),
        "{}",
        stderr(&result)
    );
    let (resumed, count, ok) = keys(&dir);
    assert!(ok, "all ok");
    assert_eq!(count, resumed.len(), "no slot measured twice");
    let strip = |set: &BTreeSet<ScheduleSlot>| -> BTreeSet<(String, String, String, u32, u32)> {
        set.iter()
            .map(|s| {
                (
                    s.cell.backend.clone(),
                    s.cell.op.clone(),
                    s.cell.dataset_fingerprint.clone(),
                    s.round,
                    s.position,
                )
            })
            .collect()
    };
    assert_eq!(
        strip(&resumed),
        strip(&expected),
        "same (cell, round, position) keys as an uninterrupted run"
    );
}

#[test]
fn cold_and_warm_states_are_proven_by_the_worker() {
    // The target directory is on disk; tmpfs cannot evict pages (and is refused).
    let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let result = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "40000",
        "--per-type",
        "2",
        "--backends",
        "ipc",
        "--profiles",
        "default",
        "--ops",
        "read",
        "--cache",
        "both",
        "--min-sample-ms",
        "0",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let all = samples(&run_dir(out.path()));
    for cache in ["cold", "warm"] {
        let these: Vec<_> = all
            .iter()
            .filter(|s| s.cell.cache == cache && s.round.is_some())
            .collect();
        assert_eq!(these.len(), 2, "{cache}: one block of one competitor");
        for s in these {
            let resident = s.resident_fraction.unwrap();
            if cache == "cold" {
                assert!(resident < 0.05, "cold: {resident}");
                assert_eq!(s.calls, Some(1), "a cold read is never repeated");
            } else {
                assert!(resident > 0.95, "warm: {resident}");
            }
            // Other tests' runs may measure beside this one and keep the machine busy
            // (flagged as such): no other flag.
            assert!(
                s.flags
                    .iter()
                    .all(|f| f.starts_with("measured while another")
                        || f == formatbench::results::BUSY_FLAG),
                "{:?}",
                s.flags
            );
        }
    }
}

#[test]
fn cold_cache_is_refused_on_tmpfs() {
    if !Path::new("/dev/shm").is_dir() {
        eprintln!("skipped: no /dev/shm tmpfs here");
        return;
    }
    let out = tempfile::tempdir_in("/dev/shm").unwrap();
    let result = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "10",
        "--per-type",
        "1",
        "--backends",
        "ipc",
        "--cache",
        "cold",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(stderr(&result).contains("tmpfs"), "{}", stderr(&result));
}

fn edit_environment(dir: &Path, edit: impl Fn(&mut serde_json::Value)) {
    let path = dir.join("results.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            if value["kind"] == "environment" {
                edit(&mut value);
            }
            value.to_string()
        })
        .collect();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
}

fn copy_run(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("results.jsonl"), to.join("results.jsonl")).unwrap();
}

#[test]
fn pooling_needs_one_clean_commit() {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", out.path().to_str().unwrap()];
    args.extend(PLAN);
    // Two runs of one plan: two sets of evidence.
    assert_eq!(formatbench(&args).status.code(), Some(0));
    assert_eq!(formatbench(&args).status.code(), Some(0));
    let mut runs: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    runs.sort();
    let pools = tempfile::tempdir().unwrap();
    let (a, b, copy) = (
        pools.path().join("a"),
        pools.path().join("b"),
        pools.path().join("copy"),
    );
    copy_run(&runs[0], &a);
    copy_run(&runs[1], &b);
    for dir in [&a, &b] {
        edit_environment(dir, |env| {
            env["git_commit"] = "1111111111111111".into();
            env["git_dirty"] = false.into();
        });
    }
    let report = |extra: &[&str]| {
        let mut args = vec![
            "report",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--out",
            pools.path().to_str().unwrap(),
        ];
        args.extend(extra);
        formatbench(&args)
    };
    let pooled = report(&[]);
    assert_eq!(pooled.status.code(), Some(0), "{}", stderr(&pooled));
    // Both runs' schedules are the pool's plan, and both are complete.
    let text = std::fs::read_to_string(pools.path().join("report.md")).unwrap();
    assert!(text.contains("Every cell was measured."), "{text}");

    // The same run twice, or a copy of it, is not more evidence.
    copy_run(&a, &copy);
    for twice in [[&a, &a], [&a, &copy]] {
        let refused = formatbench(&[
            "report",
            twice[0].to_str().unwrap(),
            twice[1].to_str().unwrap(),
            "--out",
            pools.path().to_str().unwrap(),
        ]);
        assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
        assert!(
            stderr(&refused).contains("both hold samples of run"),
            "{}",
            stderr(&refused)
        );
    }

    edit_environment(&b, |env| env["git_dirty"] = true.into());
    let refused = report(&[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("uncommitted changes"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(report(&["--allow-dirty"]).status.code(), Some(0));

    edit_environment(&b, |env| env["git_commit"] = "2222222222222222".into());
    let refused = report(&["--allow-dirty"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("built from commit"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn reuse_takes_identical_samples_from_earlier_runs() {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", out.path().to_str().unwrap()];
    args.extend(PLAN);
    assert_eq!(formatbench(&args).status.code(), Some(0));
    let run_dirs = || -> Vec<std::path::PathBuf> {
        std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect()
    };
    // The first run's folder, known before the second exists: run ids sort by time, then by
    // process id, which can wrap between two runs in the same second.
    let first = run_dirs();
    args.push("--reuse");
    let again = formatbench(&args);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("took 32 samples with identical keys"),
        "{}",
        stderr(&again)
    );
    let second_dir = run_dirs().into_iter().find(|d| !first.contains(d)).unwrap();
    let dirs = [first[0].clone(), second_dir];
    let second = samples(&dirs[1]);
    let reused: Vec<_> = second.iter().filter(|s| s.round.is_some()).collect();
    assert_eq!(reused.len(), 32);
    assert!(reused.iter().all(|s| s.reused_from.is_some()));
    // Its samples are the first run's: pooling the two would count them twice.
    let refused = formatbench(&[
        "report",
        dirs[0].to_str().unwrap(),
        dirs[1].to_str().unwrap(),
        "--allow-dirty",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("both hold samples of run"),
        "{}",
        stderr(&refused)
    );
    // Samples repeated to another minimum length measured something else: none is taken.
    let mut longer = vec!["run", "--out", out.path().to_str().unwrap(), "--reuse"];
    longer.extend(PLAN.iter().map(|a| if *a == "0" { "5" } else { a }));
    let longer = formatbench(&longer);
    assert_eq!(longer.status.code(), Some(0), "{}", stderr(&longer));
    assert!(
        !stderr(&longer).contains("with identical keys"),
        "{}",
        stderr(&longer)
    );
}

#[test]
fn reports_regenerate_byte_for_byte_from_results_alone() {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", out.path().to_str().unwrap()];
    args.extend(PLAN);
    let first = formatbench(&args);
    assert_eq!(first.status.code(), Some(0));
    let dir = run_dir(out.path());
    let again = tempfile::tempdir().unwrap();
    let compact = again.path().join("compact.md");
    let second = formatbench(&[
        "report",
        dir.to_str().unwrap(),
        "--out",
        again.path().to_str().unwrap(),
        "--export-markdown",
        compact.to_str().unwrap(),
    ]);
    assert_eq!(second.status.code(), Some(0), "{}", stderr(&second));
    let pasted = std::fs::read_to_string(&compact).unwrap();
    assert!(pasted.starts_with("### formatbench results") && !pasted.contains("]("));
    for name in [
        "report.md",
        "report.html",
        "samples.csv",
        "samples.json",
        "samples.parquet",
        "summary.parquet",
        "recommendation.json",
    ] {
        let a = std::fs::read(dir.join(name)).unwrap();
        let b = std::fs::read(again.path().join(name)).unwrap();
        assert!(a == b, "{name} differs when regenerated");
    }
    // The recommendation for tools: the reports' sentence, and a pick per priority.
    let picked: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("recommendation.json")).unwrap()).unwrap();
    let prefers: Vec<&str> = picked["picks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["prefer"].as_str())
        .collect();
    assert!(prefers.contains(&"balanced"), "{picked}");
    assert!(picked["recommendation"].is_string(), "{picked}");
    // The same picks in the flat exports, and each marked on its competitor's summary rows.
    let flat: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("picks.json")).unwrap()).unwrap();
    let flat = flat.as_array().unwrap();
    assert_eq!(flat.len(), picked["picks"].as_array().unwrap().len());
    let balanced = flat.iter().find(|p| p["prefer"] == "balanced").unwrap();
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let marked: Vec<&serde_json::Value> = summary
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| {
            row["recommended_for"]
                .as_str()
                .is_some_and(|f| f.split("; ").any(|p| p == "balanced"))
        })
        .collect();
    assert!(!marked.is_empty(), "{summary}");
    for row in marked {
        assert_eq!(row["backend"], balanced["backend"]);
        assert_eq!(row["profile"], balanced["profile"]);
    }
    assert_eq!(
        common::stdout(&first),
        common::stdout(&second),
        "terminal summary too"
    );
}

#[test]
fn exports_read_back_with_the_documented_columns() {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["run", "--out", out.path().to_str().unwrap()];
    args.extend(PLAN);
    assert_eq!(formatbench(&args).status.code(), Some(0));
    let dir = run_dir(out.path());
    let all = samples(&dir);
    let file = std::fs::File::open(dir.join("samples.parquet")).unwrap();
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let schema = reader.schema().clone();
    let rows: usize = reader.build().unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, all.len());
    for key in [
        "run_id",
        "dataset_fingerprint",
        "backend",
        "profile",
        "layout",
        "target",
        "op",
        "round",
        "position",
        "status",
        "reason",
        "wall_s",
        "cpu_user_s",
        "cpu_sys_s",
        "peak_rss_bytes",
        "size_bytes",
        "threads",
        "cache",
        "storage",
        "network",
        "resident_fraction",
        "read_bytes",
        "write_bytes",
        "calls",
        "parallelism",
    ] {
        assert!(
            schema.field_with_name(key).is_ok(),
            "samples.parquet has {key}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("samples.json")).unwrap()).unwrap();
    assert_eq!(json.as_array().unwrap().len(), all.len());
    let csv = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(header.contains("median_s,q75_s,max_s,noisy,ratio,ratio_lo,ratio_hi"));
    // Every summary row names the run its numbers came from, and where it read from.
    assert!(header.starts_with("run_id,") && header.contains(",storage,network,"));
    let run_id = all[0].run_id.as_str();
    assert!(csv.lines().skip(1).all(|l| l.starts_with(run_id)), "{csv}");
    // 2 ops × 2 competitors measured.
    assert_eq!(csv.lines().count(), 1 + 4);
    let summary = std::fs::File::open(dir.join("summary.parquet")).unwrap();
    let rows: usize =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(summary)
            .unwrap()
            .build()
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
    assert_eq!(rows, 4);
}
