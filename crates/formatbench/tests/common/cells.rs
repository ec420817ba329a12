//! One backend's cells run through the real runner (`formatbench run`) and read back from
//! results.jsonl: the verifier suites' way of asking what the runner decided for each.

use super::{formatbench, run_dir, stderr};
use formatbench::results::{read_records, Record, SampleRecord, VerificationRecord};
use std::collections::BTreeMap;
use std::path::Path;

/// A cell of one backend: (profile, operation).
pub type Cell = (String, String);

/// The run's verification records and measured samples, by profile and operation.
pub struct Cells {
    pub verified: BTreeMap<Cell, VerificationRecord>,
    pub samples: BTreeMap<Cell, Vec<SampleRecord>>,
    /// Why a cell was never run, when the runner says so itself (no round).
    pub not_run: BTreeMap<Cell, String>,
}

/// One cell as the runner left it: its verification, its measured samples and how many of
/// them were ok.
pub struct Outcome<'a> {
    pub verified: &'a VerificationRecord,
    pub samples: &'a [SampleRecord],
    pub ok: usize,
}

impl Cells {
    /// The cell's outcome, or why the runner never ran it.
    pub fn outcome(&self, profile: &str, op: &str) -> Result<Outcome<'_>, String> {
        let key = (profile.to_string(), op.to_string());
        let Some(verified) = self.verified.get(&key) else {
            let why = self.not_run.get(&key).cloned().unwrap_or_default();
            return Err(format!("never run: {why}"));
        };
        let samples = self.samples.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        let ok = samples
            .iter()
            .filter(|s| s.status == formatbench::results::SampleStatus::Ok)
            .count();
        Ok(Outcome {
            verified,
            samples,
            ok,
        })
    }
}

/// Runs `backend`'s `profiles` doing `ops` on `dataset` (e.g. `["--input", path]`), `samples`
/// measured samples a cell, into `out`, and collects what the runner recorded.
pub fn run_cells(
    dataset: &[&str],
    backend: &str,
    ops: &[&str],
    profiles: &[String],
    samples: &str,
    out: &Path,
) -> Cells {
    let out_dir = out.to_str().unwrap();
    let ops_arg = ops.join(",");
    let profiles_arg = profiles.join(",");
    let mut args = vec!["run"];
    args.extend(dataset);
    args.extend([
        "--backends",
        backend,
        "--profiles",
        &profiles_arg,
        "--ops",
        &ops_arg,
        "--samples",
        samples,
        "--min-sample-ms",
        "0",
        "--threads",
        "1",
        "--timeout",
        "60",
        "--quiet",
        "--out",
        out_dir,
    ]);
    let result = formatbench(&args);
    // Failed cells make the run exit 1; anything else is the runner's own failure.
    assert!(
        matches!(result.status.code(), Some(0 | 1)) && !stderr(&result).contains("panicked"),
        "{}",
        stderr(&result)
    );
    let records = read_records(&run_dir(out).join("results.jsonl")).unwrap();
    let mut cells = Cells {
        verified: BTreeMap::new(),
        samples: BTreeMap::new(),
        not_run: BTreeMap::new(),
    };
    for record in records {
        match record {
            Record::Verification(v) => {
                let key = (v.cell.profile.clone(), v.cell.op.clone());
                cells.verified.insert(key, v);
            }
            Record::Sample(s) if s.round.is_some() => {
                let key = (s.cell.profile.clone(), s.cell.op.clone());
                cells.samples.entry(key).or_default().push(*s);
            }
            Record::Sample(s) => {
                let key = (s.cell.profile.clone(), s.cell.op.clone());
                cells.not_run.insert(key, s.reason.unwrap_or_default());
            }
            _ => {}
        }
    }
    cells
}
