#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A run's results.jsonl as others may leave it: records of another schema version, a corrupt
//! line in the middle, a cut-off last line. Each is refused in one line or left out and said;
//! `formatbench repair` sets what is no record aside and keeps every record.

mod common;

use common::{formatbench, run_dir, samples, stderr, stdout};
use std::path::{Path, PathBuf};

/// A finished run of a quick self-test competitor (one block: 2 samples), and its folder.
fn finished_run(out: &Path) -> PathBuf {
    let ran = formatbench(&[
        "run",
        "--dataset",
        "mixed",
        "--rows",
        "50",
        "--per-type",
        "1",
        "--min-sample-ms",
        "0",
        "--backends",
        "selftest-noop",
        "--ops",
        "read",
        "--rounds",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    run_dir(out)
}

fn lines(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("results.jsonl"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

fn write_lines(dir: &Path, lines: &[String]) {
    std::fs::write(dir.join("results.jsonl"), lines.join("\n") + "\n").unwrap();
}

/// The index of the first measured sample's line.
fn first_sample(lines: &[String]) -> usize {
    lines
        .iter()
        .position(|l| l.starts_with("{\"kind\":\"sample\"") && l.contains("\"round\":1"))
        .unwrap()
}

fn resume(dir: &Path) -> std::process::Output {
    let out = dir.parent().unwrap().to_str().unwrap();
    formatbench(&["run", "--resume", dir.to_str().unwrap(), "--out", out])
}

fn report(dir: &Path) -> std::process::Output {
    formatbench(&["report", dir.to_str().unwrap()])
}

#[test]
fn every_record_carries_the_schema_version_and_a_newer_one_is_refused_in_one_line() {
    let out = tempfile::tempdir().unwrap();
    let dir = finished_run(out.path());
    let mut lines = lines(&dir);
    assert!(
        lines.iter().all(|l| l.ends_with(",\"schema_version\":2}")),
        "{lines:?}"
    );
    // A record a newer formatbench wrote: refused by `report` and `--resume`, naming it.
    let at = first_sample(&lines);
    lines[at] = lines[at].replace("\"schema_version\":2}", "\"schema_version\":3}");
    write_lines(&dir, &lines);
    let refused = report(&dir);
    let said = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert_eq!(said.trim_end().lines().count(), 1, "{said}");
    assert!(
        said.contains(&format!(
            "line {} is a record of results schema version 3; this formatbench",
            at + 1
        )) && said.contains("reads versions 1 to 2"),
        "{said}"
    );
    let resumed = resume(&dir);
    assert_eq!(resumed.status.code(), Some(2), "{}", stderr(&resumed));
    assert!(stderr(&resumed).contains("results schema version 3"));
    let repaired = formatbench(&["repair", dir.to_str().unwrap()]);
    assert_eq!(repaired.status.code(), Some(2), "{}", stderr(&repaired));
    // A version 1 file (no versions, CPU of the whole sample) is converted: CPU per call.
    let mut old = lines.clone();
    let mut calls_and_cpu = None;
    for line in &mut old {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        value.as_object_mut().unwrap().remove("schema_version");
        if value["kind"] == "sample" && value["status"] == "ok" && calls_and_cpu.is_none() {
            value.as_object_mut().unwrap().remove("cpu_per_call");
            value["cpu_user_s"] = 0.8.into();
            calls_and_cpu = Some(value["calls"].as_f64().unwrap());
        }
        *line = value.to_string();
    }
    write_lines(&dir, &old);
    let reported = report(&dir);
    assert_eq!(reported.status.code(), Some(0), "{}", stderr(&reported));
    let converted = samples(&dir).into_iter().find(|s| {
        s.cpu_user_s
            .is_some_and(|c| (c * calls_and_cpu.unwrap() - 0.8).abs() < 1e-9)
    });
    assert!(converted.is_some_and(|s| s.cpu_per_call));
    // No version, but an environment of another worker protocol: not version 1 either.
    let at = old
        .iter()
        .position(|l| l.contains("\"kind\":\"environment\""))
        .unwrap();
    old[at] = old[at].replace("\"protocol\":\"1\"", "\"protocol\":\"7\"");
    write_lines(&dir, &old);
    let refused = report(&dir);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("worker protocol 7"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_renamed_timing_key_is_left_out_and_said_not_shown_as_empty_cells() {
    let out = tempfile::tempdir().unwrap();
    let dir = finished_run(out.path());
    let mut lines = lines(&dir);
    let at = first_sample(&lines);
    assert!(lines[at].contains("\"status\":\"ok\""), "{}", lines[at]);
    lines[at] = lines[at].replace("\"wall_s\"", "\"wall_seconds\"");
    write_lines(&dir, &lines);
    let reported = report(&dir);
    let said = stderr(&reported);
    assert_eq!(reported.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "skipped 1 unreadable line ({}: an ok sample without its time (`wall_s`))",
            at + 1
        )),
        "{said}"
    );
}

#[test]
fn a_corrupt_line_in_the_middle_is_said_by_report_and_set_aside_by_repair() {
    let out = tempfile::tempdir().unwrap();
    let dir = finished_run(out.path());
    let good = lines(&dir);
    let records = good.len();
    let mut lines = good.clone();
    let at = first_sample(&lines) + 1;
    lines.insert(at, "{\"kind\":\"sample\",\"run_id\":\"x\",#garbage".into());
    write_lines(&dir, &lines);
    let dir_arg = dir.to_str().unwrap();
    // `report` keeps every record around it and says which line it left out.
    let reported = report(&dir);
    let said = stderr(&reported);
    assert_eq!(reported.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!("skipped 1 unreadable line ({}: ", at + 1))
            && said.contains(&format!("`formatbench repair {dir_arg}` sets it aside")),
        "{said}"
    );
    // `--resume` stops on it, naming it and the way out.
    let resumed = resume(&dir);
    let said = stderr(&resumed);
    assert_eq!(resumed.status.code(), Some(2), "{said}");
    assert!(
        said.contains(&format!("line {} is not a formatbench record", at + 1))
            && said.contains("formatbench repair"),
        "{said}"
    );
    // `repair` sets it aside and says so; every record stays, and both read it again.
    let repaired = formatbench(&["repair", dir_arg]);
    assert_eq!(repaired.status.code(), Some(0), "{}", stderr(&repaired));
    let said = stdout(&repaired);
    assert!(
        said.contains("set 1 unreadable line aside in")
            && said.contains(&format!("(line {}); {records} records kept", at + 1)),
        "{said}"
    );
    assert_eq!(self::lines(&dir), good);
    assert_eq!(
        std::fs::read_to_string(dir.join("results.jsonl.unreadable-1")).unwrap(),
        format!("{}\n", lines[at])
    );
    let reported = report(&dir);
    assert_eq!(reported.status.code(), Some(0), "{}", stderr(&reported));
    assert!(
        !stderr(&reported).contains("skipped"),
        "{}",
        stderr(&reported)
    );
    let resumed = resume(&dir);
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    let again = formatbench(&["repair", dir_arg]);
    assert!(
        stdout(&again).contains("nothing to repair"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn report_says_it_skipped_a_cut_off_last_line() {
    let out = tempfile::tempdir().unwrap();
    let dir = finished_run(out.path());
    let path = dir.join("results.jsonl");
    let mut text = std::fs::read(&path).unwrap();
    text.extend_from_slice(b"{\"kind\":\"sample\",\"run_id\":\"ru");
    std::fs::write(&path, &text).unwrap();
    let lines = lines(&dir).len();
    let reported = report(&dir);
    let said = stderr(&reported);
    assert_eq!(reported.status.code(), Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "skipped a cut-off last line ({lines}, 29 bytes: a crash mid-write)"
        )),
        "{said}"
    );
}
