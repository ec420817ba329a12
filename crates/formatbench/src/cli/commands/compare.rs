//! `compare`: two runs (or a saved baseline and a run) compared cell by cell, printed, and
//! exported on request; and `run --save-baseline`'s last step.

use crate::cli::CompareArgs;
use crate::compare::{self, Comparison};
use crate::Error;
use std::path::{Path, PathBuf};

/// `--threshold`'s value as a fraction.
pub(super) fn threshold(text: &str) -> Result<f64, Error> {
    crate::units::parse_precision(text)
        .map(|t| t.unwrap_or(0.0))
        .ok_or_else(|| {
            Error::Input(format!(
                "--threshold {text}: give a percentage below 100 (e.g. 5%) or a fraction (0.05)"
            ))
        })
}

pub fn compare(args: &CompareArgs) -> Result<i32, Error> {
    let threshold = threshold(&args.threshold)?;
    let (base_dir, new_dir) = dirs(args)?;
    let base = compare::load(&base_dir)?;
    let new = compare::load(&new_dir)?;
    let call = args.call;
    let cmp = compare::compare(&base, &new, threshold, call);
    print!("{}", compare::terminal(&cmp));
    export(&cmp, args)?;
    let regressions = cmp.regressions();
    if args.fail_on.is_none() {
        if let Some(why) = cmp.too_little_compared() {
            crate::progress::say(&format!("note: {why}"));
        }
        return Ok(0);
    }
    if regressions > 0 {
        crate::progress::fail(&format!(
            "--fail-on regression: {regressions} cells slower beyond ±{:.1} % or failed in NEW",
            threshold * 100.0
        ));
        return Ok(1);
    }
    // A comparison that matched nothing has no regression, and must not pass for it.
    if let Some(why) = cmp.too_little_compared() {
        crate::progress::fail(&format!("--fail-on regression: {why}"));
        return Ok(1);
    }
    Ok(0)
}

/// The results directory NEW's run directory is in when it holds baseline `name` (a run and
/// its baselines live under one `--out`), else `run`'s default.
fn results_dir_beside(new: &Path, name: &str) -> PathBuf {
    let beside = std::fs::canonicalize(new)
        .ok()
        .and_then(|dir| dir.parent().map(Path::to_path_buf));
    match beside {
        Some(dir) if compare::baseline_file(&dir, name).is_file() => dir,
        _ => PathBuf::from("formatbench-results"),
    }
}

/// BASE and NEW: the two positional directories, or the baseline's run and the one.
fn dirs(args: &CompareArgs) -> Result<(PathBuf, PathBuf), Error> {
    match (&args.baseline, args.runs.as_slice()) {
        (Some(name), [new]) => {
            let results = match &args.out {
                Some(out) => out.clone(),
                None => results_dir_beside(new, name),
            };
            Ok((compare::resolve_baseline(&results, name)?, new.clone()))
        }
        (Some(_), _) => Err(Error::Input(
            "with --baseline NAME, give one run directory (NEW)".into(),
        )),
        (None, [base, new]) => Ok((base.clone(), new.clone())),
        (None, _) => Err(Error::Input(
            "give two run directories (BASE NEW), or --baseline NAME and one (NEW)".into(),
        )),
    }
}

fn export(cmp: &Comparison, args: &CompareArgs) -> Result<(), Error> {
    let mut files: Vec<(&PathBuf, String)> = Vec::new();
    if let Some(path) = &args.export_markdown {
        files.push((path, compare::markdown(cmp)));
    }
    if let Some(path) = &args.export_html {
        files.push((path, compare::html(cmp)));
    }
    if let Some(path) = &args.export_json {
        files.push((path, compare::json(cmp)?));
    }
    for (path, text) in files {
        std::fs::write(path, text).map_err(Error::at("write", path))?;
        crate::progress::say(&format!("comparison written to {}", path.display()));
    }
    Ok(())
}

/// `run --save-baseline NAME`: only a run that ended cleanly (exit code 0) becomes a baseline.
pub fn save_baseline(name: &str, code: i32, run_dir: &Path, out: &Path) -> Result<(), Error> {
    if code != 0 {
        crate::progress::say(&format!(
            "baseline {name:?} not saved: the run ended with exit code {code}"
        ));
        return Ok(());
    }
    let run_id = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = compare::save_baseline(out, name, &run_id, run_dir)?;
    crate::progress::say(&format!(
        "baseline {name:?} → run {run_id} (saved in {})",
        path.display()
    ));
    Ok(())
}
