//! `formatbench calibrate`: runs workers with known behaviour through the normal runner and
//! checks that the measurements recover what is known: a 2× CPU-time ratio, for operations
//! that run once per sample and for ones that repeat inside a sample (CPU is per call, like
//! wall time), and 512 MiB; then that the printed 95 % intervals contain a known ratio in
//! about 95 % of groups (calibrate_coverage.rs).

use super::selftest_plan::{competitor, run_options, selftest_plan, tiny_table};
use crate::document::{Block, Document, Text};
use crate::run::{execute_plan, install_interrupt_handler};
use crate::stats::{paired_ratio, CellSummary};
use crate::Error;
use std::path::Path;

/// How far a recovered figure may be from the known one.
const TOLERANCE: f64 = 0.05;
const KNOWN_BYTES: f64 = 512.0 * 1024.0 * 1024.0;

pub fn calibrate(blocks: u32, precision: Option<&str>, out: &Path) -> Result<i32, Error> {
    let stopping = precision
        .map(super::resolve::precision)
        .transpose()?
        .flatten()
        .map(|precision| crate::plan::Stopping {
            precision,
            budget_s: None,
        });
    if blocks == 0 {
        return Err(Error::Input(
            "--rounds 0: calibration needs at least one block".into(),
        ));
    }
    let mut plan = selftest_plan("calibrate", vec![tiny_table(16)]);
    plan.competitors = vec![
        competitor("selftest-spin", "x1"),
        competitor("selftest-spin", "x2"),
        competitor("selftest-spin", "short-x1"),
        competitor("selftest-spin", "short-x2"),
        competitor("selftest-alloc", "512mib"),
        competitor("selftest-noop", "default"),
    ];
    plan.blocks = blocks;
    plan.stopping = stopping;
    let options = run_options("calibrate", out);
    install_interrupt_handler();
    let outcome = execute_plan(&plan, &options)?;
    if outcome.interrupted {
        return Ok(130);
    }
    let records = crate::results::read_records(&outcome.results)?;
    let summary = crate::report::write_all(&records, None, &outcome.run_dir)?;
    let cells: Vec<&CellSummary> = summary.groups.iter().flat_map(|g| &g.cells).collect();
    let find = |backend: &str, profile: &str| {
        cells
            .iter()
            .copied()
            .find(|c| c.cell.backend == backend && c.cell.profile == profile)
    };
    let (Some(x1), Some(x2), Some(short1), Some(short2), Some(alloc), Some(noop)) = (
        find("selftest-spin", "x1"),
        find("selftest-spin", "x2"),
        find("selftest-spin", "short-x1"),
        find("selftest-spin", "short-x2"),
        find("selftest-alloc", "512mib"),
        find("selftest-noop", "default"),
    ) else {
        return Err(Error::Io(
            "calibration cells are missing from the run".into(),
        ));
    };
    let cpu = paired_ratio(&x2.cpu_rounds, &x1.cpu_rounds);
    let wall = paired_ratio(&x2.rounds, &x1.rounds);
    let short_cpu = paired_ratio(&short2.cpu_rounds, &short1.cpu_rounds);
    let short_wall = paired_ratio(&short2.rounds, &short1.rounds);
    let memory = alloc.peak_rss_bytes.map(|b| b as f64);
    let twice = |r: Option<crate::stats::RatioInterval>| {
        r.is_some_and(|r| (r.estimate / 2.0 - 1.0).abs() <= TOLERANCE)
    };
    let cpu_ok = twice(cpu);
    let short_cpu_ok = twice(short_cpu);
    let memory_ok = memory.is_some_and(|m| (m / KNOWN_BYTES - 1.0).abs() <= TOLERANCE);
    let verdict = |ok: bool| if ok { "ok" } else { "FAILED" };
    let interval = |r: Option<crate::stats::RatioInterval>| {
        r.map_or("—".to_string(), |r| {
            format!(
                "{:.3} [{:.3}–{:.3}], {} rounds",
                r.estimate, r.lo, r.hi, r.rounds
            )
        })
    };
    let mib = |b: f64| b / (1024.0 * 1024.0);
    let calls = |c: &CellSummary| c.calls.map_or("—".to_string(), |n| n.to_string());
    let mut figures = vec![
        format!(
            "CPU time  spin x2 / x1: {}  expected 2 ± 5 %: {}",
            interval(cpu),
            verdict(cpu_ok)
        ),
        format!("wall time spin x2 / x1: {}", interval(wall)),
        format!(
            "CPU time  short spin x2 / x1 (repeated: {} and {} calls a sample): {}  expected 2 ± 5 %: {}",
            calls(short2),
            calls(short1),
            interval(short_cpu),
            verdict(short_cpu_ok)
        ),
        format!("wall time short spin x2 / x1: {}", interval(short_wall)),
        format!(
            "memory    512 MiB touched: peak {:.1} MiB ({:+.1} %): {}",
            memory.map_or(f64::NAN, mib),
            memory.map_or(f64::NAN, |m| (m / KNOWN_BYTES - 1.0) * 100.0),
            verdict(memory_ok)
        ),
        format!(
            "floor     no-op worker: peak {:.1} MiB, median {:.1} µs",
            noop.peak_rss_bytes.map_or(f64::NAN, |b| mib(b as f64)),
            noop.wall.map_or(f64::NAN, |w| w.median * 1e6)
        ),
    ];
    // Wall-time figures (and the coverage study's) hold only on a machine nothing else used.
    figures.push(match (summary.load.describe(), summary.load.warning()) {
        (_, Some(warning)) => format!("machine   {warning}"),
        (Some(load), None) => format!("machine   {load}"),
        (None, None) => "machine   load not recorded".to_string(),
    });
    let title = format!("calibration on {} (threads 1)", outcome.run_dir.display());
    // The figures print before the coverage study, which takes a while longer.
    print_lines(vec![Block::Text(Text::plain(title)), list(figures)]);
    let Some(coverage) = super::calibrate_coverage::measure(out)? else {
        return Ok(130);
    };
    let coverage_ok = coverage.ok();
    print_lines(vec![list(vec![format!(
        "coverage  {} of {} groups' 95 % intervals of short spin x2 / x1 ({} rounds each) \
         contain 2.00: {:.0} %, at least {:.0} % required: {}",
        coverage.covered(),
        super::calibrate_coverage::GROUPS,
        coverage.intervals.first().map_or(0, |r| r.rounds),
        coverage.share() * 100.0,
        super::calibrate_coverage::REQUIRED_COVERAGE * 100.0,
        verdict(coverage_ok)
    )])]);
    Ok(if cpu_ok && short_cpu_ok && memory_ok && coverage_ok {
        0
    } else {
        1
    })
}

fn list(lines: Vec<String>) -> Block {
    Block::List(lines.into_iter().map(Text::plain).collect())
}

/// Blocks of the calibration's document, printed as they are known.
fn print_lines(blocks: Vec<Block>) {
    let doc = Document {
        title: "calibration".to_string(),
        summary: None,
        blocks,
    };
    print!("{}", crate::document::terminal_fitted(&doc, usize::MAX));
}
