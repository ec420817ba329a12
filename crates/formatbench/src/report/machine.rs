//! The report's conclusions as JSON: the recommendation, each dataset's Pareto frontier and the
//! geometric means, exactly as the Markdown and HTML reports compute them (this file only
//! serialises what `recommend`, `pareto` and the summary's geomeans already hold).

use super::pareto::{frontiers, METRICS};
use super::recommendation;
use crate::stats::RunSummary;
use serde_json::{json, Map, Value};

/// The JSON names of the Pareto metrics, in [`METRICS`] order.
const METRIC_KEYS: [&str; 6] = [
    "size_bytes",
    "write_s",
    "read_s",
    "project_s",
    "take_s",
    "peak_memory_bytes",
];

/// `{"recommendation": …, "pareto": […], "geomeans": […]}` of one run's summary.
pub fn conclusions(summary: &RunSummary) -> Value {
    let pareto: Vec<Value> = frontiers(summary)
        .iter()
        .map(|f| {
            let competitors: Vec<Value> = f
                .competitors
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let mut metrics = Map::new();
                    for (m, key) in METRIC_KEYS.iter().enumerate().take(METRICS.len()) {
                        metrics.insert((*key).to_string(), json!(c.metrics[m]));
                    }
                    let dominated_by = f
                        .dominated
                        .iter()
                        .find(|(d, _)| *d == i)
                        .and_then(|(_, by)| f.competitors.get(*by))
                        .map(|o| o.label.clone());
                    json!({
                        "label": c.label,
                        "backend": c.id.0,
                        "profile": c.id.1,
                        "layout": c.id.2,
                        "target": c.id.3,
                        "metrics": metrics,
                        "geomean": c.geomean,
                        "balance": c.balance.is_finite().then_some(c.balance),
                        "on_frontier": f.members.contains(&i),
                        "dominated_by": dominated_by,
                    })
                })
                .collect();
            let members: Vec<&str> = f
                .members
                .iter()
                .filter_map(|i| f.competitors.get(*i).map(|c| c.label.as_str()))
                .collect();
            json!({
                "dataset": f.dataset,
                "sources": f.sources,
                "frontier": members,
                "competitors": competitors,
            })
        })
        .collect();
    let geomeans: Vec<Value> = summary
        .geomeans
        .iter()
        .map(|g| {
            json!({
                "dataset": g.dataset,
                "cache": g.cache,
                "threads": g.threads,
                "place": g.place,
                "backend": g.backend,
                "profile": g.profile,
                "layout": g.layout,
                "target": g.target,
                "ratio_to_fastest": g.ratio,
                "ops": g.ops,
            })
        })
        .collect();
    json!({
        "recommendation": recommendation(summary),
        "pareto": pareto,
        "geomeans": geomeans,
    })
}

#[cfg(test)]
mod tests {
    use super::super::fixture::fixture;
    use super::*;

    #[test]
    fn the_conclusions_are_the_reports_own() {
        let summary = fixture();
        let value = conclusions(&summary);
        assert_eq!(
            value["recommendation"].as_str(),
            recommendation(&summary).as_deref()
        );
        let frontier = &frontiers(&summary)[0];
        assert_eq!(
            value["pareto"][0]["frontier"].as_array().map(Vec::len),
            Some(frontier.members.len())
        );
        assert_eq!(
            value["geomeans"].as_array().map(Vec::len),
            Some(summary.geomeans.len())
        );
    }
}
