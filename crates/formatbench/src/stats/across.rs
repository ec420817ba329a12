//! Summaries across groups: each competitor's geometric mean over operations, and what a cold
//! cache costs it.

use super::interval::{geometric_mean, unpaired_ratio};
use super::model::{CacheRatio, CellSummary, GeoMean, OpGroup};
use std::collections::BTreeMap;

/// (dataset, cache, threads, place, backend, profile, layout, target).
type GeoKey = (String, String, u32, String, String, String, String, String);

pub fn geomeans(groups: &[OpGroup]) -> Vec<GeoMean> {
    let mut ratios: BTreeMap<GeoKey, Vec<f64>> = BTreeMap::new();
    let mut order = Vec::new();
    for group in groups {
        for cell in &group.cells {
            let Some(ratio) = cell.ratio_to_best else {
                continue;
            };
            let key = (
                group.dataset.clone(),
                group.cache.clone(),
                group.threads,
                group.place(),
                cell.cell.backend.clone(),
                cell.cell.shown_profile(),
                cell.cell.layout.clone(),
                cell.cell.target.clone(),
            );
            if !ratios.contains_key(&key) {
                order.push(key.clone());
            }
            ratios.entry(key).or_default().push(ratio);
        }
    }
    order
        .into_iter()
        .filter_map(|key| {
            let values = ratios.get(&key)?;
            let ratio = geometric_mean(values)?;
            let (dataset, cache, threads, place, backend, profile, layout, target) = key;
            Some(GeoMean {
                dataset,
                cache,
                threads,
                place,
                backend,
                profile,
                layout,
                target,
                ratio,
                ops: values.len(),
            })
        })
        .collect()
}

pub fn cache_ratios(groups: &[OpGroup]) -> Vec<CacheRatio> {
    let warm: Vec<&CellSummary> = groups
        .iter()
        .filter(|g| g.cache == "warm")
        .flat_map(|g| &g.cells)
        .collect();
    let mut out = Vec::new();
    for group in groups.iter().filter(|g| g.cache == "cold") {
        for cold in &group.cells {
            let Some(hot) = warm.iter().find(|w| {
                let (a, b) = (&w.cell, &cold.cell);
                (
                    &a.dataset_fingerprint,
                    &a.backend,
                    &a.profile,
                    &a.layout,
                    &a.target,
                    &a.op,
                    a.threads,
                    (
                        &a.storage,
                        &a.network,
                        a.row_group_rows,
                        a.parquet_files,
                        &a.sort_by,
                    ),
                ) == (
                    &b.dataset_fingerprint,
                    &b.backend,
                    &b.profile,
                    &b.layout,
                    &b.target,
                    &b.op,
                    b.threads,
                    (
                        &b.storage,
                        &b.network,
                        b.row_group_rows,
                        b.parquet_files,
                        &b.sort_by,
                    ),
                )
            }) else {
                continue;
            };
            let cold_walls: Vec<f64> = cold.rounds.values().copied().collect();
            let warm_walls: Vec<f64> = hot.rounds.values().copied().collect();
            if let (Some(ratio), Some(c), Some(w)) = (
                unpaired_ratio(&cold_walls, &warm_walls),
                cold.wall,
                hot.wall,
            ) {
                out.push(CacheRatio {
                    dataset: group.dataset.clone(),
                    op: group.op.clone(),
                    threads: group.threads,
                    backend: cold.cell.backend.clone(),
                    profile: cold.cell.shown_profile(),
                    cold_median: c.median,
                    warm_median: w.median,
                    ratio,
                });
            }
        }
    }
    out
}
