#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Python peers through the real runner: every available peer runs every operation it
//! claims, into every target it offers, on two small tables, and each result is verified
//! against the source; a table a format cannot store is refused with a reason, never failed. Needs `formatbench peers install`; skipped without it unless
//! FORMATBENCH_REQUIRE_ALL=1.

mod common;

use common::{available, formatbench, run_dir, samples, stderr, stdout};
use formatbench::results::{read_records, Record, SampleStatus};
use std::collections::{BTreeMap, BTreeSet};

/// `formatbench backends` rows of Python peers: name → (status is available, operations).
fn python_peers() -> BTreeMap<String, (bool, Vec<String>)> {
    let out = formatbench(&["backends"]);
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .filter(|l| l.starts_with("py-"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let ops = words[4].split(',').map(str::to_string).collect();
            (words[0].to_string(), (words[5] == "available", ops))
        })
        .collect()
}

#[test]
fn every_available_python_peer_round_trips_a_small_table() {
    let peers = python_peers();
    let ready: Vec<&String> = peers
        .iter()
        .filter(|(_, (ok, _))| *ok)
        .map(|(n, _)| n)
        .collect();
    if !available(
        "the Python peers (run `formatbench peers install`)",
        !ready.is_empty(),
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    // Two tables: the mixed one (timestamps, uint64, bools) and the long one (dates, no unsigned
    // columns), which formats without unsigned integers (Delta Lake) can store.
    let suite = dir.path().join("peers.toml");
    std::fs::write(
        &suite,
        r#"name = "peers-test"
backends = ["peers"]
ops = ["all"]
rounds = 1

[[datasets]]
kind = "mixed"
rows = 2_000
per_type = 1

[[datasets]]
kind = "long"
rows = 2_000
"#,
    )
    .unwrap();
    let out = formatbench(&[
        "suite",
        suite.to_str().unwrap(),
        "--backends",
        "peers",
        "--targets",
        "all",
        "--samples",
        "1",
        "--min-sample-ms",
        "0",
        "--threads",
        "2",
        "--out",
        out_dir.to_str().unwrap(),
        "-q",
    ]);
    assert!(out.status.success(), "run failed: {}", stderr(&out));
    let run = run_dir(&out_dir);

    let verified: BTreeSet<(String, String, String)> = read_records(&run.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::Verification(v) if v.status == SampleStatus::Ok => {
                Some((v.cell.backend, v.cell.target, v.cell.op))
            }
            _ => None,
        })
        .collect();
    let samples = samples(&run);
    for s in &samples {
        assert!(
            matches!(
                s.status,
                SampleStatus::Ok | SampleStatus::Unsupported | SampleStatus::Unavailable
            ),
            "{}/{} {} {}: {:?} {:?}",
            s.cell.backend,
            s.cell.target,
            s.cell.op,
            s.cell.profile,
            s.status,
            s.reason
        );
    }
    for name in ready {
        let ops = &peers[name].1;
        for op in ops {
            let ok = samples.iter().any(|s| {
                &s.cell.backend == name && &s.cell.op == op && s.status == SampleStatus::Ok
            });
            assert!(ok, "{name} {op}: no measured sample");
            assert!(
                verified.iter().any(|(b, _, o)| b == name && o == op),
                "{name} {op}: not verified"
            );
        }
    }
}
