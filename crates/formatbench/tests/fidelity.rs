#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `formatbench fidelity`: one table per type through each backend, verified, nothing timed;
//! the matrix printed and written as fidelity.md and fidelity.json.

mod common;

use common::{formatbench, run_dir, stderr, stdout};

fn cells(dir: &std::path::Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(run_dir(dir).join("fidelity.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["cells"].as_array().unwrap().clone()
}

fn outcome<'a>(cells: &'a [serde_json::Value], column: &str, backend: &str) -> &'a str {
    cells
        .iter()
        .find(|c| c["column"] == column && c["backend"] == backend)
        .and_then(|c| c["outcome"].as_str())
        .unwrap_or_else(|| panic!("no cell {column} · {backend}"))
}

#[test]
fn every_type_goes_through_every_backend_verified_and_untimed() {
    let out = tempfile::tempdir().unwrap();
    let ran = formatbench(&[
        "fidelity",
        "--backends",
        "ipc,npy,parquet",
        "--rows",
        "20",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    // The matrix on the terminal, lined up; as Markdown and a page beside the results.
    let printed = stdout(&ran);
    let header = printed
        .lines()
        .find(|l| l.starts_with("type "))
        .unwrap_or_default();
    assert_eq!(
        header.split_whitespace().collect::<Vec<_>>(),
        ["type", "source", "ipc", "npy", "parquet"],
        "{printed}"
    );
    let run = run_dir(out.path());
    let markdown = std::fs::read_to_string(run.join("fidelity.md")).unwrap();
    assert!(
        markdown.contains("| type | source | ipc | npy | parquet |"),
        "{markdown}"
    );
    let page = std::fs::read_to_string(run.join("fidelity.html")).unwrap();
    assert!(page.contains("<th scope=\"col\">parquet</th>") && !page.contains("<script"));
    let cells = cells(out.path());
    let types: Vec<&str> = cells
        .iter()
        .filter(|c| c["backend"] == "ipc")
        .filter_map(|c| c["column"].as_str())
        .collect();
    assert!(types.len() >= 25, "{types:?}");
    // Arrow IPC is Arrow on disk: every type comes back as it went.
    for column in &types {
        assert_eq!(outcome(&cells, column, "ipc"), "same", "ipc · {column}");
    }
    // The .npy floor holds float arrays only: text is refused, with the reason.
    assert_eq!(outcome(&cells, "utf8", "npy"), "refused");
    // … and no nulls: a float column with some is refused, not written with zeros.
    assert_eq!(outcome(&cells, "float64", "npy"), "refused");
    // Parquet keeps unsigned 64-bit integers past the signed range.
    assert_eq!(outcome(&cells, "uint64", "parquet"), "same");
    // Nothing was timed: the results hold verifications and refusals only.
    let samples = common::samples(&run_dir(out.path()));
    assert!(
        samples.iter().all(|s| s.round.is_none()),
        "a measured sample"
    );
    // The single-column inputs are gone.
    assert!(!out.path().join(".fidelity-inputs").exists());
    // The run's reports carry the matrix too, and `report` regenerates it from the records.
    let run = run_dir(out.path());
    for name in ["report.md", "report.html"] {
        let text = std::fs::read_to_string(run.join(name)).unwrap();
        assert!(
            text.contains("Fidelity: which types survive a write and a read")
                && text.contains("what changed, and why"),
            "{name}"
        );
    }
    std::fs::remove_file(run.join("report.md")).unwrap();
    let again = formatbench(&["report", run.to_str().unwrap()]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    let text = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(text.contains("| uint64 | UInt64 |"), "{text}");
}

#[test]
fn a_users_file_gets_the_rows_of_its_own_columns() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("mine.csv");
    std::fs::write(&csv, "id,name,score\n1,ann,1.5\n2,bob,2.25\n3,,3.0\n").unwrap();
    let out = dir.path().join("out");
    let ran = formatbench(&[
        "fidelity",
        "--input",
        csv.to_str().unwrap(),
        "--index",
        "id",
        "--backends",
        "ipc,csv",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(ran.status.code(), Some(0), "{}", stderr(&ran));
    let cells = cells(&out);
    let mut columns: Vec<&str> = cells.iter().filter_map(|c| c["column"].as_str()).collect();
    columns.sort_unstable();
    columns.dedup();
    // Every column of the user's table, the index too.
    assert_eq!(columns, ["id", "name", "score"]);
    assert_eq!(outcome(&cells, "score", "ipc"), "same");
}
