#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The default suite's report, as `formatbench run` writes it (quick, few samples): no two
//! labels of any of its charts overlap. (The browser test checks the same with Chromium's own
//! text metrics at 1,400 and 390 px.)

mod common;

use common::{formatbench, run_dir, stderr};

#[test]
fn no_label_of_the_default_reports_charts_overlaps_another() {
    let out = tempfile::tempdir().unwrap();
    let result = formatbench(&[
        "run",
        "--quick",
        "--samples",
        "3",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", stderr(&result));
    let run = run_dir(out.path());
    let charts: Vec<_> = std::fs::read_dir(&run)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    assert!(charts.len() >= 5, "{charts:?}");
    for chart in charts {
        let svg = std::fs::read_to_string(&chart).unwrap();
        let overlaps = formatbench::document::svg::overlapping_labels(&svg);
        assert!(overlaps.is_empty(), "{}: {overlaps:?}", chart.display());
    }
}
