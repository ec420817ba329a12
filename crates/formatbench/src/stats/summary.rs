use super::completeness::Completeness;
use super::interval::paired_ratio;
use super::model::{CellSummary, OpGroup, RunSummary, MIN_TICKS, PARALLELISM_LIMIT};
use super::Summary;
use crate::results::CallMode;
use crate::results::{CellKey, Record, SampleRecord, SampleStatus, VerificationRecord};
use std::collections::{BTreeMap, BTreeSet};

/// Report order: the table operations, the matrix ones, then first_row and the store ones;
/// an operation this build does not know (from an older run) goes last, by name.
fn op_order(op: &str) -> (usize, String) {
    use formatbench_protocol::{Op, ALL_OPS, MATRIX_OPS, STORE_OPS};
    let position = ALL_OPS
        .iter()
        .chain(MATRIX_OPS.iter())
        .chain(std::iter::once(&Op::FirstRow))
        .chain(STORE_OPS.iter().skip(4))
        .position(|o| o.name() == op);
    (position.unwrap_or(usize::MAX), op.to_string())
}

fn median_u64(mut values: Vec<u64>) -> Option<u64> {
    values.sort_unstable();
    values.get(values.len() / 2).copied()
}

fn median_f64(values: &[f64]) -> Option<f64> {
    super::median(values)
}

/// The summary ranked by the call the run chose (its `call` setting; warm by default).
pub fn summarize_run(records: &[Record]) -> RunSummary {
    summarize_run_as(records, None)
}

/// The summary ranked by `call`, or by the run's own choice when `None`.
pub fn summarize_run_as(records: &[Record], call: Option<CallMode>) -> RunSummary {
    let mut summary = RunSummary::default();
    let mut verifications: BTreeMap<CellKey, &VerificationRecord> = BTreeMap::new();
    let mut samples: BTreeMap<CellKey, Vec<&SampleRecord>> = BTreeMap::new();
    // A resumed run repeats its dataset, artifact and not-run records; a slot counts once,
    // and a measured slot's later record (a sample a resume took again) replaces the earlier.
    let mut seen_slots = BTreeMap::new();
    for record in records {
        match record {
            Record::Environment(env) => {
                summary.environment.get_or_insert_with(|| env.clone());
                summary.formats.extend(env.formats.clone());
            }
            Record::Dataset(d) => {
                if !summary.datasets.iter().any(|x| {
                    x.dataset == d.dataset && x.dataset_fingerprint == d.dataset_fingerprint
                }) {
                    summary.datasets.push(d.clone());
                }
            }
            Record::Artifact(a) => {
                summary.artifacts.retain(|x| !x.same_artifact(a));
                summary.artifacts.push(a.clone());
            }
            // Pooled runs bring one schedule each: together they are the pool's plan.
            Record::Schedule(s) => match &mut summary.schedule {
                Some(pool) if pool.run_id != s.run_id || pool.hash != s.hash => {
                    pool.slots.extend(s.slots.iter().cloned());
                }
                _ => summary.schedule = Some(s.clone()),
            },
            Record::Verification(v) => {
                verifications.insert(v.cell.clone(), v);
            }
            Record::Sample(s) => {
                let of_cell = samples.entry(s.cell.clone()).or_default();
                match seen_slots.entry((s.cell.clone(), s.round, s.position)) {
                    std::collections::btree_map::Entry::Vacant(slot) => {
                        slot.insert(of_cell.len());
                        of_cell.push(s.as_ref());
                    }
                    std::collections::btree_map::Entry::Occupied(slot) if s.round.is_some() => {
                        of_cell[*slot.get()] = s.as_ref();
                    }
                    std::collections::btree_map::Entry::Occupied(_) => {}
                }
            }
            Record::Stop(stop) => {
                summary
                    .stops
                    .retain(|x| !(x.run_id == stop.run_id && x.covers_group(stop)));
                summary.stops.push(stop.clone());
            }
        }
    }
    summary.call = call
        .or_else(|| Some(summary.environment.as_ref()?.settings.call))
        .unwrap_or_default();
    let call = summary.call;
    let all_samples: Vec<&SampleRecord> = samples.values().flatten().copied().collect();
    summary.completeness =
        Completeness::of(summary.schedule.as_ref(), &summary.stops, &all_samples);
    summary.load = super::LoadSummary::of(all_samples.iter().copied());
    let resolution = summary
        .environment
        .as_ref()
        .and_then(|e| e.clock_resolution_s);
    let mut cells: Vec<CellSummary> = samples
        .into_iter()
        .map(|(key, samples)| {
            let verification = verifications.get(&key).copied();
            let mut cell = summarize_cell(key, &samples, verification, resolution, call);
            cell.flags.extend(summary.completeness.flag_of(&cell.cell));
            cell
        })
        .collect();
    let dataset_order: Vec<&str> = summary
        .datasets
        .iter()
        .map(|d| d.dataset.as_str())
        .collect();
    let dataset_rank = |name: &str| {
        dataset_order
            .iter()
            .position(|d| *d == name)
            .unwrap_or(usize::MAX)
    };
    let group_key = |c: &CellSummary| {
        (
            dataset_rank(&c.cell.dataset),
            op_order(&c.cell.op),
            c.cell.cache.clone(),
            c.cell.threads,
            c.cell.storage.clone(),
            c.cell.network.clone(),
        )
    };
    cells.sort_by_key(group_key);
    for cell in cells {
        let same = summary.groups.last().is_some_and(|g: &OpGroup| {
            g.dataset == cell.cell.dataset
                && g.op == cell.cell.op
                && g.threads == cell.cell.threads
                && g.cache == cell.cell.cache
                && g.storage == cell.cell.storage
                && g.network == cell.cell.network
        });
        if !same {
            summary.groups.push(OpGroup {
                dataset: cell.cell.dataset.clone(),
                op: cell.cell.op.clone(),
                threads: cell.cell.threads,
                cache: cell.cell.cache.clone(),
                storage: cell.cell.storage.clone(),
                network: cell.cell.network.clone(),
                cells: Vec::new(),
                no_clear_winner: false,
                warnings: Vec::new(),
                stopped: summary
                    .stops
                    .iter()
                    .find(|s| s.covers(&cell.cell))
                    .map(|s| s.detail.clone()),
            });
        }
        if let Some(group) = summary.groups.last_mut() {
            group.cells.push(cell);
        }
    }
    for group in &mut summary.groups {
        for cell in &mut group.cells {
            cell.bytes_per_value = summary
                .artifacts
                .iter()
                .find(|a| a.is_of(&cell.cell))
                .and_then(|a| a.bytes_per_value);
            let source = summary.datasets.iter().find(|d| {
                d.dataset == cell.cell.dataset
                    && d.dataset_fingerprint == cell.cell.dataset_fingerprint
            });
            cell.throughput = throughput(cell, source);
        }
        rank(group);
        if group
            .cells
            .iter()
            .any(|c| summary.completeness.flag_of(&c.cell).is_some())
        {
            group.warnings.push(
                "partial group: the run stopped before every competitor's samples were taken; \
                 its ranking is not a result"
                    .into(),
            );
        }
    }
    super::full_read::fill(&mut summary.groups);
    summary.geomeans = super::across::geomeans(&summary.groups);
    summary.cache_ratios = super::across::cache_ratios(&summary.groups);
    summary
}

fn summarize_cell(
    cell: CellKey,
    samples: &[&SampleRecord],
    verification: Option<&VerificationRecord>,
    resolution: Option<f64>,
    call: CallMode,
) -> CellSummary {
    let ok: Vec<&SampleRecord> = samples
        .iter()
        .copied()
        .filter(|s| s.status == SampleStatus::Ok)
        .collect();
    let not_ok: Vec<&SampleRecord> = samples
        .iter()
        .copied()
        .filter(|s| s.status != SampleStatus::Ok)
        .collect();
    let wall_of = |s: &SampleRecord| call.wall_of(s).map(|(w, _)| w);
    let walls: Vec<f64> = ok.iter().filter_map(|s| wall_of(s)).collect();
    let cpu_of = |s: &SampleRecord| call.cpu_of(s);
    let cpus: Vec<f64> = ok.iter().filter_map(|s| cpu_of(s)).collect();
    let rounds: BTreeMap<u32, f64> = ok
        .iter()
        .filter_map(|s| Some((s.round?, wall_of(s)?)))
        .collect();
    // A CPU reading of 0 is below the clock's resolution (R's clock ticks in milliseconds),
    // not a time: it takes no part in CPU ratios, and the cell says so.
    let cpu_rounds: BTreeMap<u32, f64> = ok
        .iter()
        .filter_map(|s| Some((s.round?, cpu_of(s).filter(|c| *c > 0.0)?)))
        .collect();
    let cpu_below_clock = ok
        .iter()
        .filter(|s| cpu_of(s).is_some_and(|c| c <= 0.0))
        .count();
    let verified = verification.is_some_and(|v| v.status == SampleStatus::Ok);
    let (status, reason) = if let Some(first) = not_ok.first() {
        (first.status, first.reason.clone())
    } else if !verified {
        (
            SampleStatus::Failed,
            verification
                .and_then(|v| v.reason.clone())
                .or_else(|| Some("the result was never verified".into())),
        )
    } else {
        (SampleStatus::Ok, None)
    };
    let mut flags: BTreeSet<String> = ok.iter().flat_map(|s| s.flags.iter().cloned()).collect();
    if flags.remove(crate::results::BUSY_FLAG) {
        flags.extend(super::load::cell_flag(&ok));
    }
    if ok
        .iter()
        .any(|s| call.wall_of(s).is_some_and(|(_, asked)| !asked))
    {
        flags.insert(format!(
            "no {} call recorded (older results): the mean over every call of a sample",
            call.name()
        ));
    }
    if cpu_below_clock > 0 {
        flags.insert(format!(
            "CPU time below the clock's resolution in {cpu_below_clock} of {} samples: no CPU \
             ratio from them",
            ok.len()
        ));
    }
    let first_calls: Vec<f64> = ok.iter().filter_map(|s| s.first_call_s).collect();
    let warm_calls: Vec<f64> = ok.iter().filter_map(|s| s.warm_call_s).collect();
    let wall = Summary::of(&walls);
    if let (Some(w), Some(res)) = (wall, resolution) {
        if w.median < MIN_TICKS * res {
            flags.insert(format!(
                "median below {MIN_TICKS:.0}× the clock resolution ({res:.1e} s): no ratio"
            ));
        }
    }
    let amplifications: Vec<f64> = ok
        .iter()
        .filter_map(|s| {
            let fetched = match call.traffic_of(s) {
                Some((traffic, _)) if s.cell.op != "write" => traffic.bytes_sent,
                Some(_) => return None,
                None if s.cell.cache == "cold" => s.read_bytes?,
                None => return None,
            };
            Some(fetched as f64 / s.result_bytes.filter(|b| *b > 0)? as f64)
        })
        .collect();
    let traffic = super::traffic::median_traffic(&ok, call);
    let names: BTreeSet<&String> = ok.iter().flat_map(|s| call.phases_of(s).keys()).collect();
    let phases = names
        .into_iter()
        .filter_map(|name| {
            let values: Vec<f64> = ok
                .iter()
                .filter_map(|s| call.phases_of(s).get(name).copied())
                .collect();
            Some((name.clone(), median_f64(&values)?))
        })
        .collect();
    CellSummary {
        cell,
        status,
        reason,
        wall,
        cpu: Summary::of(&cpus),
        first_call: Summary::of(&first_calls),
        warm_call: Summary::of(&warm_calls),
        peak_rss_bytes: median_u64(ok.iter().filter_map(|s| s.peak_rss_bytes).collect()),
        size_bytes: samples.iter().find_map(|s| s.size_bytes),
        bytes_per_value: None,
        ratio_to_best: None,
        ratio: None,
        cpu_ratio: None,
        // CPU ÷ wall of the ranked call, like the times beside it; a record without per-call
        // figures keeps its whole sample's.
        parallelism: median_f64(
            &ok.iter()
                .filter_map(|s| match (call.wall_of(s), call.cpu_of(s)) {
                    (Some((wall, true)), Some(cpu)) if wall > 0.0 => Some(cpu / wall),
                    _ => s.parallelism,
                })
                .collect::<Vec<_>>(),
        ),
        resident_fraction: median_f64(
            &ok.iter()
                .filter_map(|s| s.resident_fraction)
                .collect::<Vec<_>>(),
        ),
        // Per call, as times are: a sample's count covers all its calls.
        read_bytes: median_u64(
            ok.iter()
                .filter_map(|s| Some(s.read_bytes? / s.calls.unwrap_or(1).max(1)))
                .collect(),
        ),
        requested_bytes: median_u64(
            ok.iter()
                .filter_map(|s| Some(s.requested_bytes? / s.calls.unwrap_or(1).max(1)))
                .collect(),
        ),
        full_read: None,
        rows_returned: median_u64(ok.iter().filter_map(|s| s.rows_returned).collect()),
        throughput: None,
        read_amplification: median_f64(&amplifications),
        object_traffic_is_mean: traffic.as_ref().is_some_and(|(_, own)| !own),
        object_traffic: traffic.map(|(t, _)| t),
        needed_bytes: median_u64(samples.iter().filter_map(|s| s.needed_bytes).collect()),
        needed_ranges: median_u64(samples.iter().filter_map(|s| s.needed_ranges).collect()),
        phases,
        session_queries: ok.iter().find_map(|s| s.session_queries),
        cluster_start_s: median_f64(
            &ok.iter()
                .filter_map(|s| s.cluster_start_s)
                .collect::<Vec<_>>(),
        ),
        calls: median_u64(ok.iter().filter_map(|s| s.calls).collect()),
        method: ok.first().and_then(|s| s.method.clone()),
        failed_samples: not_ok
            .iter()
            .filter(|s| s.status == SampleStatus::Failed)
            .count(),
        flags: flags.into_iter().collect(),
        rounds,
        cpu_rounds,
    }
}

fn rankable(c: &CellSummary) -> Option<f64> {
    match (c.status, c.wall) {
        (SampleStatus::Ok, Some(w)) => Some(w.median),
        _ => None,
    }
}

/// Whether a backend is a reference shown beside the formats (the memory-copy floor), never
/// among them: ratios are to the fastest format, so a reference's is below 1 where it is faster.
pub fn is_reference(backend: &str) -> bool {
    backend == crate::catalog::FLOOR
}

/// The cell a group ranks against: [`super::fastest`] among the formats that ran (the
/// references only when no format did), by median where no rounds were recorded.
fn fastest_cell(cells: &[CellSummary]) -> Option<CellSummary> {
    let ran = || cells.iter().filter(|c| rankable(c).is_some());
    let formats: Vec<&CellSummary> = ran().filter(|c| !is_reference(&c.cell.backend)).collect();
    let pool = if formats.is_empty() {
        ran().collect()
    } else {
        formats
    };
    let rounds: Vec<&BTreeMap<u32, f64>> = pool.iter().map(|c| &c.rounds).collect();
    let median = |c: &CellSummary| rankable(c).unwrap_or(f64::NAN);
    super::fastest(&rounds)
        .and_then(|i| pool.get(i))
        .or_else(|| pool.iter().min_by(|a, b| median(a).total_cmp(&median(b))))
        .map(|c| (*c).clone())
}

/// Sorts a group fastest first (cells that did not run last), fills in ratios and intervals
/// against the fastest format (a reference is never the base), and the group's warnings. The
/// fastest is [`super::fastest`]'s, and every cell is placed by its paired estimate to it, so
/// the order, `×best` and everything built on them agree.
fn rank(group: &mut OpGroup) {
    // A ratio needs both sides well above the clock's resolution.
    let trusted = |c: &CellSummary| !c.flags.iter().any(|f| f.contains("clock resolution"));
    let best = fastest_cell(&group.cells);
    let base = best
        .clone()
        .filter(|b| trusted(b) && rankable(b).is_some_and(|m| m > 0.0));
    if let Some(best) = &base {
        for cell in &mut group.cells {
            if rankable(cell).is_none() || !trusted(cell) {
                continue;
            }
            cell.ratio = paired_ratio(&cell.rounds, &best.rounds);
            cell.ratio_to_best = cell.ratio_over(best);
            cell.cpu_ratio = paired_ratio(&cell.cpu_rounds, &best.cpu_rounds);
        }
    }
    // Fastest first by the ratio every view shows; cells without one by their median.
    let best_median = best.as_ref().and_then(rankable).unwrap_or(1.0);
    let position =
        |c: &CellSummary| rankable(c).map(|median| c.ratio_to_best.unwrap_or(median / best_median));
    group
        .cells
        .sort_by(|a, b| match (position(a), position(b)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => {
                (&a.cell.backend, &a.cell.profile).cmp(&(&b.cell.backend, &b.cell.profile))
            }
        });
    if base.is_none() {
        return;
    }
    group.no_clear_winner = group
        .cells
        .iter()
        .filter(|c| rankable(c).is_some() && !is_reference(&c.cell.backend))
        .nth(1)
        .and_then(|c| c.ratio)
        .is_some_and(|r| r.contains_one());
    let parallelisms: Vec<(String, f64)> = group
        .cells
        .iter()
        .filter_map(|c| {
            Some((
                format!("{}/{}", c.cell.backend, c.cell.profile),
                c.parallelism?,
            ))
        })
        .collect();
    let (lo, hi) = parallelisms
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), (_, p)| {
            (lo.min(*p), hi.max(*p))
        });
    if hi > PARALLELISM_LIMIT && hi > 1.5 * lo {
        let busiest = parallelisms
            .iter()
            .filter(|(_, p)| *p == hi)
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>();
        group.warnings.push(format!(
            "competitors differ in measured parallelism ({lo:.2}–{hi:.2}, highest: {}): compare CPU-time ratios too",
            busiest.join(", ")
        ));
    }
}

#[cfg(test)]
mod tests;

/// A cell's [`Throughput`] at its median, from its dataset's `source` record.
fn throughput(
    cell: &CellSummary,
    source: Option<&crate::results::DatasetRecord>,
) -> Option<super::Throughput> {
    let median = cell.wall.map(|w| w.median).filter(|m| *m > 0.0)?;
    let op = cell.cell.op.as_str();
    let bytes = source
        .filter(|_| super::WHOLE_SOURCE_OPS.contains(&op))
        .map(|d| d.source_bytes as f64 / median);
    let rows = match op {
        "write" => source.map(|d| d.rows),
        _ => cell.rows_returned.filter(|r| *r > 0),
    }
    .map(|r| r as f64 / median);
    (bytes.is_some() || rows.is_some()).then_some(super::Throughput {
        bytes_per_s: bytes,
        rows_per_s: rows,
    })
}
