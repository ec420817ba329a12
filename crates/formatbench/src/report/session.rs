//! Sessions (seed 003's "compare lazy and eager scan metadata"): a table opened once, then K
//! queries. Each reader's time splits into what it pays once (`init`) and what it pays per
//! query (`plan` + `execute`); a reader that loads more up front pays back after some number of
//! queries, and that crossover moves with the network's latency. One table per dataset,
//! profile and network, then the crossovers of every pair whose lines cross.

use super::format;
use super::layouts::Table;
use crate::stats::{CellSummary, RunSummary};
use std::collections::BTreeMap;

const LEGEND: &str = "medians per session over its samples: init = opening the table (its log, and whatever the reader loads up front), plan and execute = per query (the session's total ÷ its queries), session = the measured time of one whole session; a session runs the projection K times on one opened table";

const CROSSOVER_LEGEND: &str = "for each pair of readers where one pays more at init and less per query: the number of queries after which its whole session is the cheaper one, init difference ÷ per-query difference (from the medians above); below one query it is cheaper from the first, beyond 1,000 never in practice";

/// One reader's session split into its fixed and per-query parts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct SessionCost {
    pub backend: String,
    pub queries: u64,
    pub init: f64,
    pub plan: f64,
    pub execute: f64,
    pub total: f64,
}

impl SessionCost {
    fn of(cell: &CellSummary, queries: u64) -> Option<SessionCost> {
        let queries = cell.session_queries.unwrap_or(queries);
        let phase = |name: &str| cell.phases.get(name).copied();
        let per_query = |s: f64| s / queries.max(1) as f64;
        Some(SessionCost {
            backend: cell.cell.backend.clone(),
            queries,
            init: phase("init")?,
            plan: per_query(phase("plan")?),
            execute: per_query(phase("execute")?),
            total: cell.wall.as_ref()?.median,
        })
    }

    fn per_query(&self) -> f64 {
        self.plan + self.execute
    }
}

/// The queries of the run's sessions (`--queries`), as its settings record them: for samples
/// written before each recorded its own.
fn queries_of(summary: &RunSummary) -> u64 {
    summary
        .environment
        .as_ref()
        .and_then(|env| env.settings.session_queries)
        .unwrap_or(formatbench_protocol::DEFAULT_SESSION_QUERIES)
}

/// The queries after which `eager` (more at init, less per query) becomes cheaper than
/// `lazy`; `None` when the lines do not cross at a positive count.
pub(super) fn crossover(eager: &SessionCost, lazy: &SessionCost) -> Option<f64> {
    let extra_init = eager.init - lazy.init;
    let saved_per_query = lazy.per_query() - eager.per_query();
    (extra_init > 0.0 && saved_per_query > 0.0).then(|| extra_init / saved_per_query)
}

fn crossover_text(k: f64) -> String {
    if k > 1_000.0 {
        "never in practice (> 1,000)".into()
    } else if k < 1.0 {
        // Its extra start-up is paid back within one query.
        "from the first query".into()
    } else {
        format!("{:.1}", k)
    }
}

/// The session tables, then one table of crossovers for every set of readers that has one.
pub(super) fn tables(summary: &RunSummary) -> Vec<Table> {
    let queries = queries_of(summary);
    // One set per group (dataset, cache, threads, place) and profile: only like compares.
    let mut sets: BTreeMap<(String, String), Vec<SessionCost>> = BTreeMap::new();
    for group in summary.groups.iter().filter(|g| g.op == "session") {
        for cell in &group.cells {
            if let Some(cost) = SessionCost::of(cell, queries) {
                let mut title = format!(
                    "{} · profile {} · threads {}",
                    group.dataset, cell.cell.profile, group.threads
                );
                if group.cache != "warm" && group.cache != "n/a" {
                    title.push_str(&format!(" · cache {}", group.cache));
                }
                let key = (title, format!("network {}", group.network));
                sets.entry(key).or_default().push(cost);
            }
        }
    }
    let mut out = Vec::new();
    for ((title, network), mut costs) in sets {
        costs.sort_by(|a, b| a.total.total_cmp(&b.total));
        let title = format!("{title} · {network}");
        out.push(Table {
            title: title.clone(),
            legend: LEGEND,
            headers: [
                "Backend",
                "Queries",
                "Init",
                "Plan / query",
                "Execute / query",
                "Session",
            ]
            .map(String::from)
            .to_vec(),
            text_columns: 1,
            rows: costs
                .iter()
                .map(|c| {
                    vec![
                        c.backend.clone(),
                        c.queries.to_string(),
                        format::duration(c.init),
                        format::duration(c.plan),
                        format::duration(c.execute),
                        format::duration(c.total),
                    ]
                })
                .collect(),
        });
        let mut rows = Vec::new();
        for eager in &costs {
            for lazy in &costs {
                if let Some(k) = crossover(eager, lazy) {
                    rows.push(vec![
                        eager.backend.clone(),
                        lazy.backend.clone(),
                        format::duration(eager.init - lazy.init),
                        format::duration(lazy.per_query() - eager.per_query()),
                        crossover_text(k),
                    ]);
                }
            }
        }
        if !rows.is_empty() {
            out.push(Table {
                title: format!("{title} · where loading more up front pays back"),
                legend: CROSSOVER_LEGEND,
                headers: [
                    "More at init",
                    "Less per query",
                    "Init cost",
                    "Saved per query",
                    "Cheaper after (queries)",
                ]
                .map(String::from)
                .to_vec(),
                text_columns: 2,
                rows,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(backend: &str, init: f64, per_query: f64) -> SessionCost {
        SessionCost {
            backend: backend.into(),
            queries: 6,
            init,
            plan: per_query / 2.0,
            execute: per_query / 2.0,
            total: init + 6.0 * per_query,
        }
    }

    #[test]
    fn an_eager_reader_pays_back_where_the_lines_cross() {
        let eager = cost("eager", 1.2, 0.1);
        let lazy = cost("lazy", 0.2, 0.35);
        // 1.0 s more at init, 0.25 s less per query: cheaper from the 4th query on.
        let k = crossover(&eager, &lazy).unwrap_or(f64::NAN);
        assert!((k - 4.0).abs() < 1e-9, "{k}");
        assert_eq!(crossover(&lazy, &eager), None);
        // Cheaper both ways: no crossover, it simply wins.
        assert_eq!(crossover(&cost("a", 0.1, 0.1), &cost("b", 0.2, 0.2)), None);
        assert_eq!(crossover_text(4.0), "4.0");
        assert_eq!(crossover_text(0.1), "from the first query");
        assert_eq!(crossover_text(5_000.0), "never in practice (> 1,000)");
    }
}
