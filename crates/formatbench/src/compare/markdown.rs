//! The comparison as Markdown short enough to paste into an issue: a header with what differs
//! between the environments, a one-line summary, then one row per cell. A comparison of more
//! than [`ROWS`] cells lists only the cells that changed (at most [`ROWS`]) and counts the rest,
//! so even the default suite stays well under 60 lines.

use super::model::Comparison;
use super::rows::{listing, short};
use crate::report::markdown_escape as escape;
use crate::units::bytes;

/// Table rows at most.
pub const ROWS: usize = 40;

/// Differences named in the header; the rest are counted (the JSON export has them all).
const DIFFERENCES: usize = 6;

/// Size changes named; the rest are counted.
const SIZES: usize = 4;

pub fn render(cmp: &Comparison) -> String {
    let mut out = format!(
        "### formatbench compare: `{}` → `{}`\n\n",
        cmp.base.run_id, cmp.new.run_id
    );
    if cmp.differences.is_empty() {
        out.push_str("Environments: no difference recorded.  \n");
    } else {
        let named: Vec<String> = cmp
            .differences
            .iter()
            .take(DIFFERENCES)
            .map(|d| escape(&short(&d.text(), 90)))
            .collect();
        let more = cmp.differences.len().saturating_sub(DIFFERENCES);
        let more = if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        };
        out.push_str(&format!("Differences: {}{more}.  \n", named.join("; ")));
    }
    out.push_str(&format!("Rule: {}.  \n", cmp.rule_text()));
    out.push_str(&format!("**{}**\n\n", cmp.counts_text()));
    let listing = listing(cmp, ROWS);
    if !listing.rows.is_empty() {
        out.push_str("| cell | base | new | NEW ÷ BASE [95 %] | peak mem | verdict |\n");
        out.push_str("|---|--:|--:|--:|--:|---|\n");
        for r in &listing.rows {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                escape(&r.label),
                escape(&r.base),
                escape(&r.new),
                escape(&r.ratio),
                escape(&r.memory),
                escape(&r.verdict_text)
            ));
        }
        out.push('\n');
    }
    let mut notes = Vec::new();
    if listing.unchanged_left_out > 0 {
        notes.push(format!(
            "{} cells with no change or inconclusive not listed (the counts above have each)",
            listing.unchanged_left_out
        ));
    }
    if listing.changed_left_out > 0 {
        notes.push(format!(
            "{} more changed cells not listed",
            listing.changed_left_out
        ));
    }
    if listing.not_measured > 0 {
        notes.push(format!(
            "{} cells measured in neither run",
            listing.not_measured
        ));
    }
    if !notes.is_empty() {
        out.push_str(&format!("{} (see the JSON export).  \n", notes.join("; ")));
    }
    out.push_str(&sizes_line(cmp));
    out
}

fn sizes_line(cmp: &Comparison) -> String {
    let changed: Vec<_> = cmp.sizes.iter().filter(|s| s.changed()).collect();
    if cmp.sizes.is_empty() {
        return String::new();
    }
    if changed.is_empty() {
        return format!("Sizes: all {} artifacts identical.\n", cmp.sizes.len());
    }
    let text = |n: Option<u64>| n.map_or_else(|| "—".to_string(), bytes);
    let named: Vec<String> = changed
        .iter()
        .take(SIZES)
        .map(|s| {
            let change = match (s.base, s.new) {
                (Some(b), Some(n)) if b > 0 => {
                    format!(" ({:+.1} %)", (n as f64 / b as f64 - 1.0) * 100.0)
                }
                _ => String::new(),
            };
            format!("{} {} → {}{change}", s.label(), text(s.base), text(s.new))
        })
        .collect();
    let more = changed.len().saturating_sub(SIZES);
    let more = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    format!(
        "Sizes: {} of {} artifacts changed: {}{more}.\n",
        changed.len(),
        cmp.sizes.len(),
        escape(&named.join("; "))
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::model::{CellComparison, RunSide, Side, Verdict};
    use crate::results::{CellKey, SampleStatus};
    use crate::stats::{CallMode, RatioInterval, RunSummary};

    fn comparison(cells: usize, verdict: impl Fn(usize) -> Verdict) -> Comparison {
        let side = || RunSide {
            dir: "runs/x".into(),
            run_id: "x".into(),
            summary: RunSummary::default(),
        };
        let ran = Side {
            status: SampleStatus::Ok,
            reason: None,
            samples: 8,
            median_s: Some(0.01),
            peak_rss_bytes: Some(1 << 20),
            size_bytes: Some(1 << 20),
        };
        Comparison {
            base: side(),
            new: side(),
            threshold: 0.05,
            call: CallMode::Warm,
            differences: Vec::new(),
            cells: (0..cells)
                .map(|i| CellComparison {
                    cell: CellKey {
                        dataset: "d".into(),
                        dataset_fingerprint: "f".into(),
                        backend: format!("b{i}"),
                        profile: "default".into(),
                        layout: "wide".into(),
                        target: "arrow".into(),
                        op: "read".into(),
                        threads: 2,
                        cache: "warm".into(),
                        storage: "local".into(),
                        network: "n/a".into(),
                        row_group_rows: None,
                        sort_by: None,
                    },
                    verdict: verdict(i),
                    note: None,
                    base: Some(ran.clone()),
                    new: Some(ran.clone()),
                    ratio: Some(RatioInterval {
                        estimate: 1.0,
                        lo: 0.9,
                        hi: 1.1,
                        rounds: 8,
                    }),
                    p_value: None,
                    memory: None,
                })
                .collect(),
            sizes: Vec::new(),
        }
    }

    #[test]
    fn a_big_suite_lists_only_its_changes_under_60_lines() {
        // More cells than the default suite has (11 competitors × 6 operations), all changed.
        let all_slower = render(&comparison(80, |_| Verdict::Slower));
        assert!(all_slower.lines().count() < 60, "{all_slower}");
        assert!(all_slower.contains("40 more changed cells not listed"));
        // Mostly unchanged: the changes are listed, the rest counted.
        let few = render(&comparison(66, |i| {
            if i % 20 == 0 {
                Verdict::Slower
            } else {
                Verdict::NoChange
            }
        }));
        assert!(
            few.contains("62 cells with no change or inconclusive not listed"),
            "{few}"
        );
        assert_eq!(few.matches("| slower |").count(), 4);
        // A small comparison lists every cell.
        let small = render(&comparison(5, |_| Verdict::NoChange));
        assert_eq!(small.matches("| no change |").count(), 5);
    }
}
