//! Tests of the charts: what each kind draws, the markup contract, and reproducibility.

use super::super::fixture::{feature_sweep, fixture, small, sweep, DATASET};
use super::Place;
use crate::document::svg::{self as draw, level_in, levels, Drawing, LEVELS};
use crate::stats::RunSummary;

/// A chart of the report drawn, with where it goes and its table's text.
struct Chart {
    place: Place,
    title: String,
    label: String,
    width: u32,
    height: u32,
    body: String,
    table: Option<Strings>,
    drawing: Drawing,
}

/// A table's headers and rows as text.
struct Strings {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Chart {
    fn inline(&self) -> String {
        self.drawing.inline()
    }

    fn standalone(&self) -> String {
        self.drawing.standalone()
    }
}

/// Every chart of the report, drawn.
fn all(summary: &RunSummary) -> Vec<Chart> {
    super::all(summary)
        .into_iter()
        .map(|placed| {
            let drawing = draw::drawing(&placed.chart).unwrap_or_else(|| panic!("undrawn"));
            Chart {
                place: placed.place,
                title: drawing.title.clone(),
                label: drawing.label.clone(),
                width: drawing.width,
                height: drawing.height,
                body: drawing.body.clone(),
                table: placed.table.map(|t| Strings {
                    headers: t.columns.into_iter().map(|c| c.header).collect(),
                    rows: t
                        .rows
                        .into_iter()
                        .map(|r| r.cells.into_iter().map(|c| c.text).collect())
                        .collect(),
                }),
                drawing,
            }
        })
        .collect()
}

fn marks(chart: &Chart) -> usize {
    chart.body.matches("class=\"mark").count()
}

fn at<'a>(charts: &'a [Chart], place: &Place) -> Vec<&'a Chart> {
    charts.iter().filter(|c| c.place == *place).collect()
}

/// The numeric value of `name="…"` in each element that has it.
fn attributes(svg: &str, name: &str) -> Vec<f64> {
    let needle = format!(" {name}=\"");
    svg.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &svg[i + needle.len()..];
            rest.split('"').next()?.parse().ok()
        })
        .collect()
}

/// Every element of the body whose class starts with `mark`.
fn mark_elements(svg: &str) -> Vec<&str> {
    svg.lines().filter(|l| l.contains("class=\"mark")).collect()
}

#[test]
fn bars_per_group_fastest_first_with_whiskers_and_ratios() {
    let charts = all(&fixture());
    // Write, warm read, cold read, scan: every group had a cell that ran.
    for i in 0..4 {
        assert_eq!(at(&charts, &Place::Group(i)).len(), 1, "group {i}");
    }
    let warm = at(&charts, &Place::Group(1))[0];
    // Two competitors ran (the csv crash is left out): bar, whisker and ratio bar each.
    assert_eq!(marks(warm), 6);
    assert_eq!(warm.body.matches("class=\"mark bar fastest\"").count(), 1);
    assert_eq!(warm.body.matches("class=\"mark whisker\"").count(), 2);
    assert_eq!(warm.body.matches("class=\"mark bar ratio\"").count(), 2);
    assert!(!warm.body.contains("csv"));
    assert!(warm.body.contains(">1.36×</text>"));
    // A strip of every sample over each bar.
    let mut summary = fixture();
    for cell in &mut summary.groups[1].cells {
        cell.rounds = (1..=5)
            .map(|r| (r, 0.012 + 0.0005 * f64::from(r)))
            .collect();
    }
    let strip = &all(&summary)[1];
    assert_eq!(strip.place, Place::Group(1));
    assert_eq!(strip.body.matches("class=\"sample\"").count(), 2 * 5);
    // The write group lists ipc first, but npy is faster: the chart sorts by median.
    let write = at(&charts, &Place::Group(0))[0];
    let npy = write.body.find(">npy/default</text>");
    let ipc = write.body.find(">ipc/plain</text>");
    assert!(npy.is_some() && npy < ipc);
    assert!(write
        .body
        .contains("<title>npy/default: median 850 ns, fastest"));
    let ys: Vec<f64> = write
        .body
        .lines()
        .filter(|l| l.starts_with("<rect class=\"mark bar"))
        .filter(|l| !l.contains("ratio"))
        .flat_map(|l| attributes(l, "y"))
        .collect();
    assert_eq!(ys, [49.0, 73.0]);
    // npy is below the clock's resolution: no ratio, as in the table, and ipc is 1×.
    assert!(write
        .label
        .ends_with("fastest first: npy/default 850 ns (—), ipc/plain 500 ms (1.00×)"));
}

#[test]
fn heat_map_per_summary_table_with_a_geomean_column() {
    let charts = all(&fixture());
    let heat: Vec<&Chart> = charts
        .iter()
        .filter(|c| matches!(c.place, Place::Geo(_)))
        .collect();
    assert_eq!(heat.len(), 3);
    let warm = heat[0];
    assert_eq!(warm.place, Place::Geo(0));
    // ipc: read and geomean (it did not scan); parquet: read, scan and geomean.
    assert_eq!(marks(warm), 5);
    assert_eq!(warm.body.matches("class=\"na\"").count(), 1);
    assert!(warm.body.contains(">geomean</text>"));
    assert!(warm
        .body
        .contains("<title>parquet/zstd · geomean: 1.17×</title>"));
    assert!(warm.body.contains("class=\"mark tile heat-1\""));
    assert!(warm
        .body
        .contains("<title>parquet/zstd · read: 1.36×</title>"));
    assert_eq!(level_in(1.0, &LEVELS), 0);
    assert_eq!(level_in(1.36, &LEVELS), 1);
    assert_eq!(level_in(3.0, &LEVELS), 3);
    assert_eq!(level_in(50.0, &LEVELS), 5);
    // A run whose ratios reach 5,760× spreads its slow shades up to there.
    let bounds = levels(5_760.0);
    assert_eq!(&bounds[..3], &[1.1, 1.5, 2.0]);
    assert!(
        bounds[3] > 10.0 && bounds[4] > bounds[3] && bounds[4] < 5_760.0,
        "{bounds:?}"
    );
    assert_ne!(
        level_in(10.0, &bounds),
        level_in(5_000.0, &bounds),
        "10× and 5,000× look different"
    );
    assert_eq!(levels(8.0), LEVELS);
}

#[test]
fn scatter_per_dataset_with_read_and_write_series() {
    let charts = all(&fixture());
    let scatter = at(&charts, &Place::Dataset(DATASET.into()));
    assert_eq!(scatter.len(), 1);
    let body = &scatter[0].body;
    // Warm read: ipc and parquet; write: ipc and npy.
    assert_eq!(marks(scatter[0]), 4);
    assert_eq!(body.matches("<circle class=\"mark point read\"").count(), 2);
    assert_eq!(body.matches("<rect class=\"mark point write\"").count(), 2);
    assert!(body.contains("read · cache warm · threads 2"));
    // Sizes from 3.9 KiB to 46 MiB: a log axis with round binary ticks.
    assert!(body.contains(">size on disk (log scale)</text>"));
    assert!(body.contains(">4.00 KiB</text>") && body.contains(">2.00 MiB</text>"));
    let small = all(&small("balanced"));
    let one = at(&small, &Place::Dataset("mixed-100000x10".into()));
    assert_eq!(marks(one[0]), 10);
}

#[test]
fn scaling_lines_only_for_a_sweep() {
    assert!(at(&all(&fixture()), &Place::Scaling).is_empty());
    assert!(at(&all(&small("read")), &Place::Scaling).is_empty());
    let charts = all(&sweep());
    let scaling = at(&charts, &Place::Scaling);
    // Write and read, five competitors each with two points and one segment.
    assert_eq!(scaling.len(), 2);
    for chart in &scaling {
        assert_eq!(marks(chart), 15);
        assert_eq!(chart.body.matches("<polygon class=\"mark line").count(), 5);
        assert_eq!(chart.body.matches("<circle class=\"mark point").count(), 10);
    }
    assert_eq!(
        scaling[1].title,
        "mixed-*x10 · read · cache warm · threads 1: median time against rows"
    );
    let table = scaling[1]
        .table
        .as_ref()
        .unwrap_or_else(|| panic!("no table"));
    assert_eq!(table.headers, ["Competitor", "10,000 rows", "100,000 rows"]);
    assert!(table.rows.contains(&vec![
        "ipc/mmap".to_string(),
        "500 µs".to_string(),
        "5.00 ms".to_string()
    ]));
    // A competitor keeps its colour from chart to chart.
    let colour = |c: &Chart| {
        c.body
            .lines()
            .find(|l| l.contains("<title>ipc/mmap"))
            .and_then(|l| l.split(' ').nth(3).map(str::to_string))
    };
    assert_eq!(colour(scaling[0]), colour(scaling[1]));
}

#[test]
fn every_chart_keeps_the_markup_contract() {
    for summary in [fixture(), small("read"), sweep()] {
        for chart in all(&summary) {
            let svg = chart.inline();
            assert!(svg.starts_with("<svg class=\"chart\" role=\"img\" aria-label=\""));
            // On a page it shrinks to three quarters of its width at most, then scrolls.
            assert!(svg.contains(&format!(
                "viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
                 style=\"min-width: {least}px\">\n<title>",
                w = chart.width,
                h = chart.height,
                least = (f64::from(chart.width) * 0.75).round()
            )));
            assert!(chart.width > 100 && chart.height > 50);
            let elements = mark_elements(&chart.body);
            assert_eq!(elements.len(), marks(&chart));
            for element in elements {
                if element.starts_with("<rect") {
                    let size = [attributes(element, "width"), attributes(element, "height")];
                    assert!(
                        size.iter().all(|v| v.len() == 1 && v[0] >= 1.0),
                        "{element}"
                    );
                } else if element.starts_with("<circle") {
                    assert!(attributes(element, "r").iter().all(|r| *r >= 3.0));
                } else {
                    assert!(element.starts_with("<polygon"), "{element}");
                }
            }
            // Colours come from classes only, so both schemes apply.
            assert!(!chart.body.contains("fill=") && !chart.body.contains("stroke="));
            assert!(!chart.body.contains('#'));
            assert!(!svg.to_ascii_lowercase().contains("<script"));
        }
    }
}

#[test]
fn standalone_files_carry_both_schemes() {
    let charts = all(&fixture());
    let svg = charts[0].standalone();
    assert!(svg.starts_with(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\""
    ));
    assert!(svg.contains("@media (prefers-color-scheme: dark)"));
    // Colours written out, light first (what a renderer without media queries keeps).
    assert!(!svg.contains("var("), "no custom properties left");
    let light = svg.find("svg.chart .bar { fill: #0969da; }").unwrap();
    let dark = svg.find("svg.chart .bar { fill: #4493f8; }").unwrap();
    assert!(light < svg.find("@media").unwrap() && dark > svg.find("@media").unwrap());
    assert!(svg.contains("svg.chart text { fill: #1f2328; }"));
    assert!(svg.ends_with("</svg>\n"));
    assert!(draw::style().contains("--heat-5"));
}

#[test]
fn same_summary_same_charts() {
    for summary in [fixture, sweep] {
        let a: Vec<String> = all(&summary()).iter().map(Chart::standalone).collect();
        let b: Vec<String> = all(&summary()).iter().map(Chart::standalone).collect();
        assert_eq!(a, b);
    }
    assert!(all(&RunSummary::default()).is_empty());
}

#[test]
fn old_chart_files_are_known_by_their_number() {
    assert_eq!(super::file_number("chart-12.svg"), Some(12));
    assert_eq!(super::file_number("chart-.svg"), None);
    assert_eq!(super::file_number("chart-1.svg.bak"), None);
}

#[test]
fn scaling_lines_for_a_sweep_over_columns() {
    let charts = all(&feature_sweep());
    let scaling = at(&charts, &Place::Scaling);
    assert_eq!(scaling.len(), 2, "write and read");
    assert_eq!(
        scaling[1].title,
        "features-2000x* · read · cache warm · threads 1: median time against columns"
    );
    let table = scaling[1]
        .table
        .as_ref()
        .unwrap_or_else(|| panic!("no table"));
    assert_eq!(
        table.headers,
        ["Competitor", "260 columns", "1,028 columns"]
    );
    assert!(scaling[1].body.contains("columns (log scale)"));
}

#[test]
fn heat_map_against_a_chosen_reference() {
    let mut summary = small("read");
    if let Some(env) = summary.environment.as_mut() {
        env.settings.reference = Some("ipc/mmap".into());
    }
    let charts = all(&summary);
    let heat = at(&charts, &Place::Geo(0));
    assert_eq!(heat.len(), 1);
    assert!(
        heat[0].title.ends_with("ratio to ipc/mmap"),
        "{}",
        heat[0].title
    );
    // The reference against itself is 1 on every operation and in the geometric mean.
    // Writes form their own table (their cache state is n/a): ratios to ipc/mmap, not to the fastest.
    assert!(
        heat[0]
            .label
            .contains("ipc/mmap: write 1.00×, geomean 1.00×"),
        "{}",
        heat[0].label
    );
    assert!(
        heat[0].label.contains("npy/default: write 0.20×"),
        "{}",
        heat[0].label
    );
    // Faster than the reference has a shade of its own, not "about the same".
    let tile = heat[0]
        .body
        .lines()
        .find(|l| l.contains("<title>npy/default · write: 0.20×"))
        .unwrap_or_default();
    assert!(tile.contains("class=\"mark tile faster-3\""), "{tile}");
    // The page says the heat maps and the tables under them have different references.
    let md = crate::report::markdown(&summary);
    assert!(
        md.contains("The heat maps are ratios to ipc/mmap (--reference)"),
        "{md}"
    );
}

#[test]
fn no_two_labels_of_any_chart_overlap() {
    for summary in [
        fixture(),
        small("read"),
        small("balanced"),
        sweep(),
        feature_sweep(),
    ] {
        for chart in all(&summary) {
            let overlaps = crate::document::svg::overlapping_labels(&chart.body);
            assert!(overlaps.is_empty(), "{}: {overlaps:?}", chart.title);
        }
    }
}
