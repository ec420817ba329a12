//! The summary across operations: each competitor's geometric mean of its ratios to the
//! fastest, per (dataset, cache, threads), best first.

use super::format;
use crate::stats::{GeoMean, RunSummary};

pub(super) const LEGEND_GEOMEAN: &str =
    "geometric mean of each competitor's ratios to the fastest across the operations it ran; \
     \"n of m\" marks one that ran fewer operations than the others";

/// One (dataset, cache, threads) table.
pub(super) struct GeoTable {
    pub dataset: String,
    pub cache: String,
    pub threads: u32,
    /// Where its cells read from (`OpGroup::place`), empty for local files.
    pub place: String,
    /// `dataset · cache warm · threads 2`, without the cache part for writes.
    pub title: String,
    /// The operations the table spans, in report order.
    pub ops: Vec<String>,
    pub rows: Vec<GeoRow>,
}

pub(super) struct GeoRow {
    pub backend: String,
    /// The profile, plus the layout or target where the table mixes several.
    pub profile: String,
    /// The profile alone, layout and target as recorded.
    pub plain_profile: String,
    pub layout: String,
    pub target: String,
    /// The geometric mean itself.
    pub value: f64,
    pub ratio: String,
    /// How many operations the mean spans ("2", or "1 of 2" when it missed some).
    pub ops: String,
}

type Key<'a> = (&'a str, &'a str, u32, &'a str);

fn key(g: &GeoMean) -> Key<'_> {
    (&g.dataset, &g.cache, g.threads, &g.place)
}

fn title((dataset, cache, threads, place): Key<'_>) -> String {
    let title = if cache == "n/a" {
        format!("{dataset} · threads {threads}")
    } else {
        format!("{dataset} · cache {cache} · threads {threads}")
    };
    match place {
        "" => title,
        place => format!("{title} · {place}"),
    }
}

/// The tables in the order their first competitor appears; rows sorted by ratio ascending
/// (ties by name, so the order never depends on float noise in the input order).
pub(super) fn geo_tables(summary: &RunSummary) -> Vec<GeoTable> {
    let mut keys: Vec<Key<'_>> = Vec::new();
    for g in &summary.geomeans {
        if !keys.contains(&key(g)) {
            keys.push(key(g));
        }
    }
    keys.into_iter()
        .map(|k| {
            let mut ops: Vec<String> = Vec::new();
            for group in &summary.groups {
                let place = group.place();
                if (
                    group.dataset.as_str(),
                    group.cache.as_str(),
                    group.threads,
                    place.as_str(),
                ) == k
                    && !ops.contains(&group.op)
                {
                    ops.push(group.op.clone());
                }
            }
            let mut members: Vec<&GeoMean> =
                summary.geomeans.iter().filter(|g| key(g) == k).collect();
            members.sort_by(|a, b| {
                a.ratio.total_cmp(&b.ratio).then_with(|| {
                    (&a.backend, &a.profile, &a.layout, &a.target)
                        .cmp(&(&b.backend, &b.profile, &b.layout, &b.target))
                })
            });
            let varies = |field: fn(&GeoMean) -> &str| {
                members
                    .iter()
                    .any(|m| field(m) != members.first().map_or("", |f| field(f)))
            };
            let show_layout = varies(|m| &m.layout);
            let show_target = varies(|m| &m.target);
            let total = ops
                .len()
                .max(members.iter().map(|m| m.ops).max().unwrap_or(0));
            let rows = members
                .iter()
                .map(|m| {
                    let mut profile = m.profile.clone();
                    if show_layout {
                        profile = format!("{profile} · {}", m.layout);
                    }
                    if show_target {
                        profile = format!("{profile} · {}", m.target);
                    }
                    GeoRow {
                        backend: m.backend.clone(),
                        profile,
                        plain_profile: m.profile.clone(),
                        layout: m.layout.clone(),
                        target: m.target.clone(),
                        value: m.ratio,
                        ratio: format::ratio(m.ratio),
                        ops: if m.ops < total {
                            format!("{} of {total}", m.ops)
                        } else {
                            m.ops.to_string()
                        },
                    }
                })
                .collect();
            GeoTable {
                dataset: k.0.to_string(),
                cache: k.1.to_string(),
                threads: k.2,
                place: k.3.to_string(),
                title: title(k),
                ops,
                rows,
            }
        })
        .collect()
}

impl GeoTable {
    /// The table as the document model's, under `headers` (the page's words or the
    /// terminal's): names left, figures right.
    pub fn document(&self, headers: [&str; 4]) -> crate::document::Table {
        let rows = self
            .rows
            .iter()
            .map(|r| {
                vec![
                    r.backend.clone(),
                    r.profile.clone(),
                    r.ratio.clone(),
                    r.ops.clone(),
                ]
            })
            .collect();
        super::layouts::Table {
            title: self.heading(),
            legend: "",
            headers: headers.map(String::from).to_vec(),
            text_columns: 2,
            rows,
        }
        .document()
    }

    /// The title with the operations it spans: `… · threads 2 (read, scan)`.
    pub fn heading(&self) -> String {
        if self.ops.is_empty() {
            self.title.clone()
        } else {
            format!("{} ({})", self.title, self.ops.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::fixture;
    use super::*;

    #[test]
    fn tables_group_and_sort_by_ratio() {
        let tables = geo_tables(&fixture());
        let headings: Vec<String> = tables.iter().map(GeoTable::heading).collect();
        assert_eq!(
            headings,
            [
                "mixed-100000x61 · cache warm · threads 2 (read, scan)",
                "mixed-100000x61 · cache cold · threads 2 (read)",
                "mixed-100000x61 · threads 1 (write)",
            ]
        );
        // The fixture lists parquet first; the table puts the smaller ratio first.
        let warm: Vec<(&str, &str, &str)> = tables[0]
            .rows
            .iter()
            .map(|r| (r.backend.as_str(), r.ratio.as_str(), r.ops.as_str()))
            .collect();
        assert_eq!(
            warm,
            [("ipc", "1.00×", "1 of 2"), ("parquet", "1.17×", "2")]
        );
    }
}
