#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Adaptive stopping through the real runner: a group stops after the round that makes its
//! ratios known to the precision asked, says so in its records and reports, counts as
//! complete, and resumes without measuring what it chose not to.

mod common;

use common::{formatbench, run_dir, samples, stderr, stdout};
use formatbench::results::{read_records, Record, SampleStatus, StopRecord};

fn stops(dir: &std::path::Path) -> Vec<StopRecord> {
    read_records(&dir.join("results.jsonl"))
        .unwrap()
        .into_iter()
        .filter_map(|r| match r {
            Record::Stop(s) => Some(s),
            _ => None,
        })
        .collect()
}

/// The runs of this file one at a time, so that whether a group stops for precision depends
/// on the stopping rule, not on the other runs.
static ONE_RUN_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Two sleeps, one twice the other (20 and 40 ms a call): known to ±10 % in a few rounds even
/// on a machine busy with a build, where CPU spins are not (a cold CI run saw 12 rounds of
/// spins miss ±10 % beside the heavy workers' build).
fn sleeps(out: &std::path::Path, extra: &[&str]) -> std::process::Output {
    let _alone = ONE_RUN_AT_A_TIME
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut args = vec!["run", "--out", out.to_str().unwrap()];
    args.extend(["--dataset", "mixed", "--rows", "16", "--per-type", "1"]);
    args.extend([
        "--backends",
        "selftest-sleep",
        "--profiles",
        "x1,x2",
        "--ops",
        "read",
        "--threads",
        "1",
    ]);
    args.extend(extra);
    formatbench(&args)
}

#[test]
fn a_group_stops_once_its_ratio_is_known_and_the_report_says_so() {
    let out = tempfile::tempdir().unwrap();
    // Up to 3 blocks of 4 rounds; the sleeps' ratio is known long before.
    let ran = sleeps(out.path(), &["--rounds", "3", "--precision", "10%"]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let dir = run_dir(out.path());
    let stops = stops(&dir);
    assert_eq!(stops.len(), 1, "{stops:?}");
    let stop = &stops[0];
    assert_eq!(
        (stop.reason.as_str(), stop.planned_rounds),
        ("precision", 12)
    );
    assert!(stop.after_round >= 5 && stop.after_round < 12, "{stop:?}");
    let ok: Vec<_> = samples(&dir)
        .into_iter()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    assert_eq!(ok.len() as u32, 2 * stop.after_round, "a whole round each");
    assert!(ok.iter().all(|s| s.round.unwrap() <= stop.after_round));
    // The report: complete (the rounds left out were not planned), with the stop's sentence.
    let printed = stdout(&ran);
    assert!(printed.contains("sampling: stopped after"), "{printed}");
    assert!(!printed.contains("partial"), "{printed}");
    let markdown = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(markdown.contains("every ratio to the fastest known to ±10 %"));
    let summary = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let x2 = summary
        .lines()
        .find(|l| l.contains("selftest-sleep,x2,"))
        .unwrap();
    // By the header's name: a column added before it must not move what is read.
    let column = summary
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|name| name == "ratio")
        .unwrap();
    let ratio: f64 = x2.split(',').nth(column).unwrap().parse().unwrap();
    assert!((1.7..2.3).contains(&ratio), "x2 ÷ x1 = {ratio}: {x2}");
}

#[test]
fn a_fixed_design_runs_whole_and_writes_no_stop() {
    let out = tempfile::tempdir().unwrap();
    let ran = sleeps(out.path(), &["--rounds", "1"]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let dir = run_dir(out.path());
    assert!(stops(&dir).is_empty());
    assert_eq!(
        samples(&dir).len(),
        8,
        "one block: 2 × 2 rounds of 2 competitors"
    );
}

#[test]
fn a_bad_precision_or_budget_is_one_clear_error() {
    let out = tempfile::tempdir().unwrap();
    for (flag, value, expect) in [
        (
            "--precision",
            "150%",
            "--precision 150%: give a percentage below 100%",
        ),
        (
            "--budget",
            "soon",
            "--budget soon: give a duration such as 60s",
        ),
    ] {
        let ran = sleeps(out.path(), &[flag, value]);
        assert_eq!(ran.status.code(), Some(2));
        assert!(stderr(&ran).contains(expect), "{}", stderr(&ran));
    }
}

#[test]
fn pooled_adaptive_runs_count_only_the_rounds_each_chose_to_take() {
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for out in [&first, &second] {
        // A budget spent at once stops each group after the fewest rounds a group takes (5),
        // whatever the noise; the sleeps' ratio may be known to ±5 % by then too.
        let ran = sleeps(out.path(), &["--rounds", "3", "--budget", "1ms"]);
        assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    }
    let (a, b) = (run_dir(first.path()), run_dir(second.path()));
    for dir in [&a, &b] {
        let stop = &stops(dir)[0];
        assert!(
            matches!(stop.reason.as_str(), "budget" | "precision") && stop.after_round == 5,
            "{stop:?}"
        );
    }
    let pooled = tempfile::tempdir().unwrap();
    let report = formatbench(&[
        "report",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--allow-dirty",
        "--out",
        pooled.path().to_str().unwrap(),
    ]);
    assert_eq!(report.status.code(), Some(0), "{}", stderr(&report));
    let markdown = std::fs::read_to_string(pooled.path().join("report.md")).unwrap();
    assert!(!markdown.contains("partial"), "{markdown}");
    assert!(!markdown.contains("scheduled samples"), "{markdown}");
    let measured: u32 = [&a, &b].iter().map(|d| 2 * stops(d)[0].after_round).sum();
    let summary = std::fs::read_to_string(pooled.path().join("summary.csv")).unwrap();
    let x1 = summary
        .lines()
        .find(|l| l.contains("selftest-sleep,x1,"))
        .unwrap()
        .to_string();
    assert!(
        x1.contains(&format!(",{},", measured / 2)),
        "x1 pools both runs' {} samples: {x1}",
        measured / 2
    );
}
