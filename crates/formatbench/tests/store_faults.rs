//! Object storage that fails a run: a store of the user's own (`--endpoint`) killed mid-run
//! stops the run at its first failed sample with one line naming the endpoint, says what it
//! left in the bucket, and `--resume` against the store restarted retakes the sample the store
//! failed (`--retry-failed`: any failed sample); a backend with no object-storage route writes
//! no artifact it would never read.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

mod common;

use common::{run_dir, samples, stderr};
use formatbench::results::{read_records, Record, SampleStatus};
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

const KEYS: (&str, &str) = ("store-fault-key", "store-fault-secret");

/// formatbench's S3 server as a store of one's own, on `listen`, serving `root`.
struct Store(Child);

impl Store {
    /// Starts it and returns it with the address it listens on.
    fn start(root: &Path, listen: &str) -> (Store, String) {
        let ready = root.with_extension("ready");
        let _ = std::fs::remove_file(&ready);
        let child = Command::new(env!("CARGO_BIN_EXE_formatbench"))
            .args(["__s3-server", "--listen", listen, "--root"])
            .arg(root)
            .arg("--ready")
            .arg(&ready)
            .env("AWS_ACCESS_KEY_ID", KEYS.0)
            .env("AWS_SECRET_ACCESS_KEY", KEYS.1)
            .spawn()
            .unwrap();
        let store = Store(child);
        let started = Instant::now();
        loop {
            if let Ok(address) = std::fs::read_to_string(&ready) {
                if !address.is_empty() {
                    return (store, address.trim().to_string());
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(15),
                "the store did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Store {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `formatbench ARGS` with the store's credentials.
fn formatbench_on_store(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_formatbench"));
    command
        .args(args)
        .env("AWS_ACCESS_KEY_ID", KEYS.0)
        .env("AWS_SECRET_ACCESS_KEY", KEYS.1);
    command
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// The last record of each measured slot (a retaken sample's record comes after the one it
/// retakes).
fn last_per_slot(run: &Path) -> Vec<formatbench::results::SampleRecord> {
    let mut slots = std::collections::BTreeMap::new();
    for s in samples(run) {
        if let Some(round) = s.round {
            let key = (format!("{:?}", s.cell), round, s.position);
            slots.insert(key, s);
        }
    }
    slots.into_values().collect()
}

/// How many samples the run's schedule holds.
fn scheduled(run: &Path) -> usize {
    read_records(&run.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .find_map(|r| match r {
            Record::Schedule(s) => Some(s.slots.len()),
            _ => None,
        })
        .unwrap()
}

fn resume(run: &Path, extra: &[&str]) -> Output {
    let run = run.to_str().unwrap();
    formatbench_on_store(&[&["run", "--resume", run], extra].concat())
        .output()
        .unwrap()
}

/// A run on a store of one's own that is killed once the first sample is measured, checked
/// to have stopped there, in one line, saying what it left.
struct Stopped {
    root: tempfile::TempDir,
    _out: tempfile::TempDir,
    run: std::path::PathBuf,
    address: String,
    all: usize,
}

impl Stopped {
    fn bucket(&self) -> std::path::PathBuf {
        self.root.path().join("data")
    }
}

fn stopped_when_the_store_goes(backends: &str) -> Stopped {
    let root = tempfile::tempdir().unwrap();
    let bucket = root.path().join("data");
    std::fs::create_dir_all(bucket.join("other")).unwrap();
    std::fs::write(bucket.join("other/keep.txt"), "not the run's").unwrap();
    let (store, address) = Store::start(root.path(), "127.0.0.1:0");
    let endpoint = format!("http://{address}");
    let out = tempfile::tempdir().unwrap();
    // Four samples a cell; --verbose prints a line per measured sample.
    let mut run = formatbench_on_store(&["run", "--storage", "s3://data/bench"])
        .args([
            "--endpoint",
            &endpoint,
            "--backends",
            backends,
            "--ops",
            "read",
        ])
        .args([
            "--rows",
            "2000",
            "--rounds",
            "1",
            "--samples",
            "4",
            "--verbose",
        ])
        .arg("--out")
        .arg(out.path())
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let lines = std::io::BufReader::new(run.stderr.take().unwrap()).lines();
    let mut after = Vec::new();
    let mut killed: Option<Instant> = None;
    let mut store = Some(store);
    for line in lines {
        let line = line.unwrap();
        match killed {
            // The first measured sample is in: the store goes away.
            None if line.contains(" position ") => {
                drop(store.take());
                killed = Some(Instant::now());
            }
            None => {}
            Some(_) => after.push(line),
        }
    }
    let status = run.wait().unwrap();
    let stopped_after = killed.expect("no sample was measured").elapsed();
    let said = after.join("\n");
    assert_ne!(status.code(), Some(0), "{said}");
    // It stopped at once, not after every sample left failed one by one.
    assert!(
        stopped_after < Duration::from_secs(30),
        "{stopped_after:?}: {said}"
    );
    let gone: Vec<&String> = after
        .iter()
        .filter(|l| l.contains("unreachable") && l.contains(&endpoint))
        .collect();
    assert_eq!(gone.len(), 1, "one line names the endpoint: {said}");
    // No sample's raw library error is printed.
    assert!(!after.iter().any(|l| l.contains(" round ")), "{said}");
    let run_path = run_dir(out.path());
    let run_id = run_path.file_name().unwrap().to_string_lossy().into_owned();
    let left = format!("s3://data/bench/{run_id}");
    assert!(
        after
            .iter()
            .any(|l| l.contains("left") && l.contains(&left)),
        "it says what it left: {said}"
    );
    assert!(!files_under(&bucket.join("bench").join(&run_id)).is_empty());
    let slots = last_per_slot(&run_path);
    let failed: Vec<_> = slots
        .iter()
        .filter(|s| s.status != SampleStatus::Ok)
        .collect();
    assert_eq!(failed.len(), 1, "{slots:?}");
    assert!(failed[0].store_unreachable, "{:?}", failed[0]);
    let all = scheduled(&run_path);
    assert!(
        slots.len() < all,
        "{} of {all} samples: it went on",
        slots.len()
    );
    Stopped {
        root,
        _out: out,
        run: run_path,
        address,
        all,
    }
}

#[test]
fn an_endpoint_that_goes_away_stops_the_run_and_resume_retakes_what_it_failed() {
    // Two native backends, two profiles each.
    let stopped = stopped_when_the_store_goes("parquet,ipc");
    let (bucket, run_path, all) = (stopped.bucket(), stopped.run.clone(), stopped.all);

    // The store is back on the same address: the resume retakes the failed sample, measures
    // the rest, and empties the run's prefix of what both left.
    let (_store, again) = Store::start(stopped.root.path(), &stopped.address);
    assert_eq!(again, stopped.address);
    let resumed = resume(&run_path, &[]);
    let said = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(0), "{said}");
    assert!(said.contains("retaking 1 failed sample"), "{said}");
    let slots = last_per_slot(&run_path);
    assert_eq!(slots.len(), all);
    assert!(
        slots.iter().all(|s| s.status == SampleStatus::Ok),
        "{slots:?}"
    );
    assert!(files_under(&bucket.join("bench")).is_empty());
    assert!(bucket.join("other/keep.txt").exists());

    // A sample that failed for another reason (a worker's crash) stays failed on a resume,
    // and `--retry-failed` retakes it.
    let results = run_path.join("results.jsonl");
    let text = std::fs::read_to_string(&results).unwrap();
    let mut crashed = false;
    let edited: Vec<String> = text
        .lines()
        .map(|line| {
            let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
            let sample = value["kind"] == "sample" && value["status"] == "ok";
            if !crashed && sample && !value["round"].is_null() {
                crashed = true;
                value["status"] = "failed".into();
                value["reason"] = "the worker crashed (signal 11)".into();
                value["wall_s"] = serde_json::Value::Null;
            }
            value.to_string()
        })
        .collect();
    assert!(crashed);
    std::fs::write(&results, edited.join("\n") + "\n").unwrap();
    let kept = resume(&run_path, &[]);
    let said = stderr(&kept);
    assert_eq!(kept.status.code(), Some(1), "a cell failed: {said}");
    assert!(said.contains("--retry-failed"), "{said}");
    let retried = resume(&run_path, &["--retry-failed"]);
    let said = stderr(&retried);
    assert_eq!(retried.status.code(), Some(0), "{said}");
    assert!(said.contains("retaking 1 failed sample"), "{said}");
    let slots = last_per_slot(&run_path);
    assert!(
        slots.iter().all(|s| s.status == SampleStatus::Ok),
        "{slots:?}"
    );
}

/// A Python peer's sample on a store gone fails within its client's short retries (Polars'
/// own were 8, 4 s apart), and the run stops there as a native one does.
#[test]
fn a_peer_on_an_endpoint_that_goes_away_stops_the_run() {
    if !common::ready("peer", "py-polars-parquet") {
        return;
    }
    let stopped = stopped_when_the_store_goes("py-polars-parquet");
    let failed: Vec<_> = last_per_slot(&stopped.run)
        .into_iter()
        .filter(|s| s.status != SampleStatus::Ok)
        .collect();
    assert_eq!(failed[0].cell.backend, "py-polars-parquet");
}

/// The artifact records of a run.
fn artifacts(run: &Path) -> Vec<formatbench::results::ArtifactRecord> {
    read_records(&run.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::Artifact(a) => Some(a),
            _ => None,
        })
        .collect()
}

/// A run on formatbench's own server with `backends` (and `extra` arguments), keeping its
/// scratch.
fn s3_run(backends: &str, extra: &[&str], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_formatbench"))
        .args([
            "run",
            "--storage",
            "s3",
            "--backends",
            backends,
            "--ops",
            "read",
        ])
        .args(extra)
        .args([
            "--rows",
            "2000",
            "--rounds",
            "1",
            "--samples",
            "2",
            "--keep-artifacts",
        ])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// A backend with no object-storage route has its cells unsupported before anything is
/// written for it: the self-test variant reads local tables only.
#[test]
fn a_backend_without_an_object_storage_route_gets_no_artifact() {
    let out = tempfile::tempdir().unwrap();
    let ran = s3_run(
        "parquet,selftest-variant",
        &["--profiles", "default,views"],
        out.path(),
    );
    assert!(ran.status.success(), "{}", stderr(&ran));
    let run = run_dir(out.path());
    let variant: Vec<_> = artifacts(&run)
        .into_iter()
        .filter(|a| a.backend == "selftest-variant")
        .collect();
    assert!(!variant.is_empty());
    for artifact in &variant {
        assert_eq!(artifact.status, SampleStatus::Unsupported, "{artifact:?}");
        let reason = artifact.reason.as_deref().unwrap_or_default();
        assert!(reason.contains("local"), "{reason}");
    }
    for s in samples(&run)
        .iter()
        .filter(|s| s.cell.backend == "selftest-variant")
    {
        assert_eq!(s.status, SampleStatus::Unsupported, "{s:?}");
    }
}

/// py-duckdb-parquet reads local files only: no Parquet file is written for it (it was
/// 250–330 MB at the egress suite's size), nor uploaded.
#[test]
fn duckdb_parquet_on_object_storage_writes_nothing() {
    if !common::ready("peer", "py-duckdb-parquet") {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let ran = s3_run("parquet,py-duckdb-parquet", &[], out.path());
    assert!(ran.status.success(), "{}", stderr(&ran));
    let run = run_dir(out.path());
    let duckdb: Vec<_> = artifacts(&run)
        .into_iter()
        .filter(|a| a.backend == "py-duckdb-parquet")
        .collect();
    assert!(!duckdb.is_empty());
    for artifact in &duckdb {
        assert_eq!(artifact.status, SampleStatus::Unsupported, "{artifact:?}");
        assert_eq!(artifact.size_bytes, None);
    }
    let written: Vec<_> = files_under(&run.join("scratch"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("py-duckdb-parquet"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}
