//! The comparison as JSON for scripts: every cell with its keys, both sides, the ratio and its
//! interval and the verdict; the sizes; what differs; and each run's recommendation, Pareto
//! frontier and geometric means as its report computes them. Keys are in docs/results.md.

use super::model::{CellComparison, Comparison, RunSide, Side};
use crate::stats::RatioInterval;
use serde_json::{json, Value};

/// Bumped when a key changes meaning or goes away.
pub const FORMAT_VERSION: u32 = 1;

fn interval(r: Option<&RatioInterval>) -> Value {
    match r {
        Some(r) => json!({"estimate": r.estimate, "lo": r.lo, "hi": r.hi}),
        None => Value::Null,
    }
}

fn side(s: Option<&Side>) -> Value {
    match s {
        Some(s) => json!({
            "status": s.status.name(),
            "reason": s.reason,
            "samples": s.samples,
            "median_s": s.median_s,
            "peak_rss_bytes": s.peak_rss_bytes,
            "size_bytes": s.size_bytes,
            "bytes_per_s": s.throughput.and_then(|t| t.bytes_per_s),
            "rows_per_s": s.throughput.and_then(|t| t.rows_per_s),
        }),
        None => Value::Null,
    }
}

fn cell(c: &CellComparison, label: &str) -> Value {
    let k = &c.cell;
    json!({
        "label": label,
        "dataset": k.dataset,
        "dataset_fingerprint": k.dataset_fingerprint,
        "backend": k.backend,
        "profile": k.profile,
        "layout": k.layout,
        "target": k.target,
        "op": k.op,
        "threads": k.threads,
        "cache": k.cache,
        "storage": k.storage,
        "network": k.network,
        "row_group_rows": k.row_group_rows,
        "parquet_files": k.parquet_files,
        "sort_by": k.sort_by,
        "executors": k.executors,
        "verdict": c.verdict.key(),
        "regression": c.verdict.is_regression(),
        "note": c.note,
        "ratio": interval(c.ratio.as_ref()),
        "p_value": c.p_value,
        "base": side(c.base.as_ref()),
        "new": side(c.new.as_ref()),
        "memory": c.memory.map(|m| json!({
            "ratio": interval(Some(&m.ratio)),
            "verdict": m.verdict.key(),
            "p_value": m.p_value,
        })),
    })
}

fn run(r: &RunSide) -> Value {
    json!({
        "run_id": r.run_id,
        "dir": r.dir.display().to_string(),
        "report": crate::report::conclusions(&r.summary),
    })
}

pub fn value(cmp: &Comparison) -> Value {
    let counts: serde_json::Map<String, Value> = cmp
        .counts()
        .into_iter()
        .map(|(v, n)| (v.key().to_string(), json!(n)))
        .collect();
    json!({
        "formatbench_compare": FORMAT_VERSION,
        "base": run(&cmp.base),
        "new": run(&cmp.new),
        "call": cmp.call.name(),
        "threshold": cmp.threshold,
        "rule": cmp.rule_text(),
        "regressions": cmp.regressions(),
        "counts": counts,
        "unclassified": cmp.unclassified(),
        "environment_differences": cmp.differences.iter().map(|d| json!({
            "what": d.what, "base": d.base, "new": d.new,
        })).collect::<Vec<_>>(),
        "cells": cmp.cells.iter().zip(cmp.labels()).map(|(c, l)| cell(c, &l)).collect::<Vec<_>>(),
        "sizes": cmp.sizes.iter().map(|s| json!({
            "dataset": s.dataset,
            "backend": s.backend,
            "profile": s.profile,
            "layout": s.layout,
            "row_group_rows": s.row_group_rows,
            "parquet_files": s.parquet_files,
            "sort_by": s.sort_by,
            "base_bytes": s.base,
            "new_bytes": s.new,
            "changed": s.changed(),
        })).collect::<Vec<_>>(),
    })
}

pub fn render(cmp: &Comparison) -> Result<String, crate::Error> {
    let mut text = serde_json::to_string_pretty(&value(cmp))
        .map_err(crate::Error::encode("the comparison"))?;
    text.push('\n');
    Ok(text)
}
