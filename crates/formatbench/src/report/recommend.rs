//! One or two sentences naming the competitor to use, for the priority the run was given
//! (`--prefer read|write|size|balanced`), picked from the Pareto frontier with the figures that
//! justify it.

use super::format::{bytes, duration, ratio, ratio_interval};
use super::pareto::{frontiers, metric_text, timed_op, Competitor, Frontier, READ, SIZE, WRITE};
use crate::results::Prefer;
use crate::stats::RunSummary;

/// What the user cares most about: the run's `prefer` setting.
fn priority(summary: &RunSummary) -> Prefer {
    summary
        .environment
        .as_ref()
        .map(|e| e.settings.prefer)
        .unwrap_or_default()
}

/// The recommendation for the run's priority, from the frontier of its largest dataset;
/// `None` when nothing ran. An incomplete run gets none: its groups are partial.
pub fn recommendation(summary: &RunSummary) -> Option<String> {
    let text = recommend(summary)?;
    Some(match summary.completeness.describe() {
        Some(why) => format!(
            "none: {why}, and a partial group's ranking is not a result (see Not measured)."
        ),
        None => text,
    })
}

fn recommend(summary: &RunSummary) -> Option<String> {
    let all = frontiers(summary);
    let cells = |f: &Frontier| {
        super::pick::shape(summary, &f.dataset).map_or(0, |(r, c)| r.saturating_mul(c.max(1)))
    };
    // The largest dataset stands for the run; the first of equals wins.
    let frontier = all
        .iter()
        .rev()
        .max_by_key(|f| cells(f))
        .filter(|f| !f.members.is_empty())?;
    Some(pick_for(summary, frontier, priority(summary))?.text)
}

pub use crate::stats::{Margin, Pick};

/// Every dataset's recommendation for every priority, for `recommendation.json`.
pub fn picks(summary: &RunSummary) -> Vec<Pick> {
    let mut picks = Vec::new();
    for frontier in frontiers(summary).iter().filter(|f| !f.members.is_empty()) {
        for prefer in [Prefer::Read, Prefer::Write, Prefer::Size, Prefer::Balanced] {
            picks.extend(pick_for(summary, frontier, prefer).filter(|p| p.prefer == prefer.name()));
        }
    }
    picks
}

/// The pick for `prefer` on one frontier, with the sentence that ends in where it came from.
/// A priority with nothing measured falls back to the balanced pick.
fn pick_for(summary: &RunSummary, frontier: &Frontier, prefer: Prefer) -> Option<Pick> {
    let first = match prefer {
        Prefer::Read => by_metric(summary, frontier, READ),
        Prefer::Write => by_metric(summary, frontier, WRITE),
        Prefer::Size => by_metric(summary, frontier, SIZE),
        Prefer::Balanced => None,
    }
    .map(|(pick, best, m)| (pick, best, Some(m)))
    .or_else(|| balanced(frontier).map(|(pick, best)| (pick, best, None)))?;
    let (mut pick, best, metric) = first;
    pick.dataset = frontier.dataset.clone();
    let own = own_store_note(frontier, best, metric);
    let context = format!(
        "Picked from the Pareto frontier of {} ({} of {} competitors).",
        frontier.dataset,
        frontier.members.len(),
        frontier.competitors.len()
    );
    pick.text = format!("{}{own} {context}", pick.text);
    Some(pick)
}

/// Stores of formatbench's own, which no other tool opens as a store.
const OWN_STORES: [&str; 1] = ["ipc-parts"];

/// For a pick that is formatbench's own store: what other tools can read of it, and the best
/// standard format beside it (on the same figure, or balanced).
fn own_store_note(f: &Frontier, best: &Competitor, metric: Option<usize>) -> String {
    if !OWN_STORES.contains(&best.id.0.as_str()) {
        return String::new();
    }
    let standard = f
        .competitors
        .iter()
        .filter(|c| !OWN_STORES.contains(&c.id.0.as_str()));
    let alternative = match metric {
        Some(m) => standard.filter(|c| c.metrics[m].is_some()).min_by(order(m)),
        None => standard.min_by(|a, b| a.balance.total_cmp(&b.balance)),
    };
    let beside = alternative
        .map(|c| format!("; the best standard format here is {}", c.label))
        .unwrap_or_default();
    format!(
        " {} is formatbench's own store: other tools cannot read it as a store (its partitions \
         are Arrow IPC files any Arrow reader opens){beside}.",
        best.id.0
    )
}

fn members(f: &Frontier) -> impl Iterator<Item = &Competitor> {
    f.members.iter().filter_map(|i| f.competitors.get(*i))
}

/// Lowest first; ties go to the better geometric mean, then the name.
fn order(m: usize) -> impl Fn(&&Competitor, &&Competitor) -> std::cmp::Ordering {
    move |a, b| {
        let value = |c: &Competitor| c.scores[m].unwrap_or(f64::INFINITY);
        let geo = |c: &Competitor| c.geomean.unwrap_or(f64::INFINITY);
        value(a)
            .total_cmp(&value(b))
            .then_with(|| geo(a).total_cmp(&geo(b)))
            .then_with(|| a.label.cmp(&b.label))
    }
}

/// The frontier member best on one metric, against the best other competitor on it.
fn by_metric<'a>(
    summary: &RunSummary,
    f: &'a Frontier,
    m: usize,
) -> Option<(Pick, &'a Competitor, usize)> {
    let best = members(f)
        .filter(|c| c.metrics[m].is_some())
        .min_by(order(m))?;
    let value = best.metrics[m]?;
    let runner_up = f
        .competitors
        .iter()
        .filter(|c| c.id != best.id && c.metrics[m].is_some())
        .min_by(order(m))
        .and_then(|c| Some((c, c.metrics[m]?)));
    let verb = if m == SIZE {
        "For the smallest files"
    } else if m == WRITE {
        "For writing"
    } else {
        "For reading"
    };
    // A time margin is the tables' ratio (paired by round) with its interval, so that a margin
    // the tables call "no clear winner" is called so here too; sizes have one value each.
    let margin_of = |c: &Competitor, v: f64| {
        let plain = (value > 0.0).then(|| (v / value, None));
        if m == SIZE {
            return plain;
        }
        let group = super::pick::group(summary, &f.dataset, timed_op(m)?)?;
        let cell = |id: &super::pick::Id| {
            super::pick::ran(&group.cells).find(|x| super::pick::id(&x.cell) == *id)
        };
        let (runner, best) = (cell(&c.id)?, cell(&best.id)?);
        let interval = crate::stats::paired_ratio(&runner.rounds, &best.rounds);
        runner.ratio_over(best).map(|r| (r, interval)).or(plain)
    };
    let measured = runner_up.and_then(|(c, v)| Some((c, margin_of(c, v)?)));
    let margin = match measured {
        Some((c, (r, _))) if m == SIZE && r >= 1.005 => {
            format!(" (the runner-up {} is {} larger)", c.label, ratio(r))
        }
        Some((c, (_, Some(interval)))) if interval.contains_one() => format!(
            " (no clear winner: the runner-up {} is {}, an interval that includes 1)",
            c.label,
            ratio_interval(interval.estimate, interval.lo, interval.hi)
        ),
        Some((c, (r, _))) if r >= 1.005 => {
            format!(" ({} faster than the runner-up {})", ratio(r), c.label)
        }
        Some((c, _)) => format!(" (level with {})", c.label),
        None => String::new(),
    };
    let size = best.metrics[SIZE].map(|s| format!("{} on disk", bytes(s.round() as u64)));
    let text = if m == SIZE {
        let read = best.metrics[READ].map(|r| format!(", read {}", duration(r)));
        format!(
            "{verb}, {}: {}{margin}{}.",
            best.label,
            size.unwrap_or_default(),
            read.unwrap_or_default()
        )
    } else {
        let name = if m == WRITE { "write" } else { "read" };
        let size = size.map(|s| format!(", {s}")).unwrap_or_default();
        format!(
            "{verb}, {}: {name} {}{margin}{size}.",
            best.label,
            duration(value)
        )
    };
    let margin = measured.map(|(c, (r, interval))| Margin {
        runner_up: c.label.clone(),
        ratio: r,
        lo: interval.map(|i| i.lo),
        hi: interval.map(|i| i.hi),
        clear: interval.map(|i| !i.contains_one()),
    });
    let prefer = match m {
        SIZE => Prefer::Size,
        WRITE => Prefer::Write,
        _ => Prefer::Read,
    };
    Some((pick(prefer, best, text, margin), best, m))
}

fn pick(prefer: Prefer, best: &Competitor, text: String, margin: Option<Margin>) -> Pick {
    Pick {
        dataset: String::new(),
        prefer: prefer.name(),
        backend: best.id.0.clone(),
        profile: best.id.1.clone(),
        text,
        margin,
    }
}

/// The frontier member with the lowest balanced score, with its figures.
fn balanced(f: &Frontier) -> Option<(Pick, &Competitor)> {
    let best = members(f).min_by(|a, b| {
        a.balance
            .total_cmp(&b.balance)
            .then_with(|| order(READ)(a, b))
    })?;
    let mut parts = Vec::new();
    if let Some(s) = best.metrics[SIZE] {
        parts.push(format!("{} on disk", bytes(s.round() as u64)));
    }
    for (m, name) in [(WRITE, "write"), (READ, "read")] {
        if best.metrics[m].is_some() {
            parts.push(format!("{name} {}", metric_text(m, best.metrics[m])));
        }
    }
    if best.metrics[super::pareto::PEAK].is_some() {
        parts.push(format!(
            "peak memory {}",
            metric_text(super::pareto::PEAK, best.metrics[super::pareto::PEAK])
        ));
    }
    let average = if best.balance.is_finite() {
        format!(" ({} the best on each, on average)", ratio(best.balance))
    } else {
        String::new()
    };
    let text = format!(
        "For a balance of size, speed and memory, {}: {}{average}.",
        best.label,
        parts.join(", ")
    );
    Some((pick(Prefer::Balanced, best, text, None), best))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{fixture, small};
    use super::*;

    const CONTEXT: &str =
        " Picked from the Pareto frontier of mixed-100000x10 (4 of 5 competitors).";

    #[test]
    fn every_dataset_and_priority_has_a_pick_with_its_margin() {
        let summary = small("read");
        let picks = picks(&summary);
        let prefers: Vec<&str> = picks.iter().map(|p| p.prefer).collect();
        assert_eq!(prefers, ["read", "write", "size", "balanced"]);
        let read = &picks[0];
        assert_eq!(
            (read.backend.as_str(), read.profile.as_str()),
            ("ipc", "mmap")
        );
        assert_eq!(read.dataset, "mixed-100000x10");
        // The run's own sentence is the pick for its priority.
        assert_eq!(Some(read.text.clone()), recommendation(&summary));
        let margin = read.margin.as_ref().unwrap_or_else(|| panic!("a margin"));
        assert_eq!(margin.runner_up, "parquet/snappy");
        assert!(
            margin.ratio > 2.0 && margin.clear != Some(false),
            "{margin:?}"
        );
        assert!(
            picks[3].margin.is_none(),
            "a balanced pick has no single margin"
        );
    }

    #[test]
    fn formatbench_own_store_is_named_as_such_beside_the_best_standard_format() {
        let mut summary = small("read");
        for group in &mut summary.groups {
            for cell in group.cells.iter_mut().filter(|c| c.cell.backend == "ipc") {
                cell.cell.backend = "ipc-parts".into();
            }
        }
        for artifact in summary.artifacts.iter_mut().filter(|a| a.backend == "ipc") {
            artifact.backend = "ipc-parts".into();
        }
        let text = recommendation(&summary).unwrap_or_default();
        assert!(text.starts_with("For reading, ipc-parts/mmap"), "{text}");
        assert!(
            text.contains(
                "ipc-parts is formatbench's own store: other tools cannot read it as a store \
                 (its partitions are Arrow IPC files any Arrow reader opens); the best standard \
                 format here is parquet/snappy."
            ),
            "{text}"
        );
        assert!(!recommendation(&small("read"))
            .unwrap_or_default()
            .contains("own store"));
    }

    #[test]
    fn a_margin_whose_interval_includes_one_is_no_clear_winner() {
        let mut summary = small("write");
        let alternating = |first: f64, second: f64| {
            (1..=6u32)
                .map(|r| (r, if r % 2 == 0 { first } else { second }))
                .collect::<std::collections::BTreeMap<u32, f64>>()
        };
        for group in summary.groups.iter_mut().filter(|g| g.op == "write") {
            for cell in &mut group.cells {
                match (cell.cell.backend.as_str(), cell.cell.profile.as_str()) {
                    ("npy", "default") => cell.rounds = alternating(0.02, 0.03),
                    ("parquet", "snappy") => cell.rounds = alternating(0.03, 0.02),
                    _ => {}
                }
            }
        }
        let text = recommendation(&summary).unwrap_or_default();
        assert!(
            text.contains("(no clear winner: the runner-up parquet/snappy is ")
                && text.contains("an interval that includes 1)"),
            "{text}"
        );
        assert!(!text.contains("faster than the runner-up"), "{text}");
        let write = picks(&summary)
            .into_iter()
            .find(|p| p.prefer == "write")
            .and_then(|p| p.margin);
        assert_eq!(write.and_then(|m| m.clear), Some(false));
    }

    #[test]
    fn each_priority_picks_its_own_competitor() {
        let text = |prefer: &str| recommendation(&small(prefer)).unwrap_or_default();
        assert_eq!(
            text("read"),
            format!(
                "For reading, ipc/mmap: read 5.00 ms (2.4× faster than the runner-up \
                 parquet/snappy), 100 MiB on disk.{CONTEXT}"
            )
        );
        assert_eq!(
            text("write"),
            format!(
                "For writing, npy/default: write 20.0 ms (4.0× faster than the runner-up \
                 parquet/snappy), 90.0 MiB on disk.{CONTEXT}"
            )
        );
        assert_eq!(
            text("size"),
            format!(
                "For the smallest files, parquet/zstd: 20.0 MiB on disk (the runner-up \
                 parquet/snappy is 1.50× larger), read 60.0 ms.{CONTEXT}"
            )
        );
        let balanced = format!(
            "For a balance of size, speed and memory, parquet/snappy: 30.0 MiB on disk, \
             write 80.0 ms, read 12.0 ms, peak memory 180 MiB (1.95× the best on each, on \
             average).{CONTEXT}"
        );
        assert_eq!(text("balanced"), balanced);
        // Anything else, or no setting at all, is balanced.
        assert_eq!(text("fastest"), balanced);
        let mut summary = small("read");
        summary.environment = None;
        assert_eq!(recommendation(&summary), Some(balanced));
    }

    #[test]
    fn ties_go_to_the_better_geomean() {
        let mut summary = small("read");
        // parquet/snappy reads as fast as ipc/mmap (its median and its ratio to the fastest),
        // but ipc/mmap's geomean is worse.
        let mmap_ratio = summary.groups[1]
            .cells
            .iter()
            .find(|c| c.cell.profile == "mmap")
            .and_then(|c| c.ratio_to_best);
        for cell in &mut summary.groups[1].cells {
            if cell.cell.profile == "snappy" {
                if let Some(w) = cell.wall.as_mut() {
                    w.median = 0.005;
                }
                cell.ratio_to_best = mmap_ratio;
            }
        }
        for g in &mut summary.geomeans {
            if g.profile == "mmap" && g.cache == "warm" {
                g.ratio = 1.5;
            }
        }
        let text = recommendation(&summary).unwrap_or_default();
        assert!(
            text.starts_with("For reading, parquet/snappy: read 5.00 ms (level with ipc/mmap)"),
            "{text}"
        );
    }

    #[test]
    fn the_main_fixture_and_an_empty_run() {
        let mut summary = fixture();
        if let Some(env) = summary.environment.as_mut() {
            env.settings.prefer = crate::results::Prefer::Read;
        }
        assert_eq!(
            recommendation(&summary).as_deref(),
            Some(
                "For reading, ipc/plain: read 12.3 ms (1.36× faster than the runner-up \
                 parquet/zstd), 45.8 MiB on disk. Picked from the Pareto frontier of \
                 mixed-100000x61 (3 of 3 competitors)."
            )
        );
        assert_eq!(recommendation(&RunSummary::default()), None);
    }
}
