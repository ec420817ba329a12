//! Each competitor's samples as a strip (a dot per sample, spread so equal times stay
//! visible) on its fastest–slowest line with a tick at the median, fastest first, on a log
//! axis when times are far apart; and beside it the ratio to the fastest as a bar from 1×.
//! No time bar: on a log axis a bar's length would say nothing.

use super::super::{Bar, BarChart};
use super::{label_width, Anchor, Drawing, Scale, Svg};
use crate::units::{duration, ratio, ratio2, DASH};

const ROW: f64 = 24.0;
const BAR: f64 = 14.0;
/// Below the headings and, on a line of its own, what the marks mean.
const TOP: f64 = 44.0;
const BOTTOM: f64 = 30.0;
const TIME_WIDTH: f64 = 300.0;
/// Room after the longest whisker for its median's text.
const TIME_TEXT: f64 = 76.0;
const RATIO_WIDTH: f64 = 170.0;
const GAP: f64 = 18.0;

fn ratio_text(bar: &Bar) -> String {
    bar.ratio.map_or_else(|| DASH.to_string(), ratio)
}

pub(super) fn draw(chart: &BarChart) -> Option<Drawing> {
    let bars = &chart.bars;
    bars.first()?;
    let left = label_width(bars.iter().map(|b| &b.label), 60.0, 260.0) + 12.0;
    let time_x = (left, left + TIME_WIDTH);
    let ratio_left = time_x.1 + TIME_TEXT + GAP;
    let ratio_x = (ratio_left, ratio_left + RATIO_WIDTH);
    let ratio_texts: Vec<String> = bars.iter().map(ratio_text).collect();
    let width = ratio_x.1 + label_width(ratio_texts.iter(), 30.0, 120.0) + 12.0;
    let bottom = TOP + ROW * bars.len() as f64;
    let height = bottom + BOTTOM;

    let longest = bars.iter().map(|b| b.max.max(b.median)).fold(0.0, f64::max);
    // Times more than ten apart go on a log axis: on a linear one the fast bars vanish.
    let shortest = bars
        .iter()
        .map(|b| b.min.min(b.median))
        .filter(|t| *t > 0.0)
        .fold(f64::INFINITY, f64::min);
    let time = Scale::fit(shortest.min(longest), longest, time_x);
    let worst = bars.iter().filter_map(|b| b.ratio).fold(1.0, f64::max);
    let ratios = if worst > 10.0 {
        Scale {
            lo: 1.0,
            hi: worst * 1.3,
            log: true,
            from: ratio_x.0,
            to: ratio_x.1,
        }
    } else {
        Scale::from_zero(worst, ratio_x)
    };

    let mut svg = Svg::default();
    let heading = if time.log {
        "Wall time of every sample (log scale)"
    } else {
        "Wall time of every sample"
    };
    svg.text((time_x.0, 16.0), Anchor::Start, "heading", heading);
    // Under the heading: beside it, it ran into the ratio panel's heading.
    svg.text(
        (time_x.0, 30.0),
        Anchor::Start,
        "dim",
        "dots: samples; line: fastest–slowest; tick: median",
    );
    let ratio_heading = if ratios.log {
        "× fastest (log scale)"
    } else {
        "× fastest"
    };
    svg.text((ratio_x.0, 16.0), Anchor::Start, "heading", ratio_heading);
    for (scale, (from, _), show, max) in [
        (time, time_x, &duration as &dyn Fn(f64) -> String, 5),
        // Every decade of a log ratio axis; three round values of a linear one.
        (ratios, ratio_x, &ratio2, if ratios.log { 5 } else { 3 }),
    ] {
        svg.line((from, TOP - 4.0), (from, bottom), "axis");
        for tick in scale.spaced_ticks(max, show) {
            let x = scale.at(tick);
            svg.line((x, TOP - 4.0), (x, bottom), "grid");
            svg.text((x, bottom + 16.0), Anchor::Middle, "tick", &show(tick));
        }
    }
    let fastest = bars.iter().position(|b| !b.reference);
    for (i, bar) in bars.iter().enumerate() {
        let label = &bar.label;
        let y = TOP + ROW * i as f64 + (ROW - BAR) / 2.0;
        let mid = y + BAR / 2.0;
        svg.text((left - 8.0, mid + 4.0), Anchor::End, "", label);
        let class = match (Some(i) == fastest, bar.reference) {
            (true, _) => "mark bar fastest",
            (_, true) => "mark bar reference",
            _ => "mark bar",
        };
        let tip = format!(
            "{label}: median {}, fastest {}, slowest {}",
            duration(bar.median),
            duration(bar.min),
            duration(bar.max)
        );
        let end = time.at(bar.median);
        let (lo, hi) = (time.at(bar.min), time.at(bar.max));
        svg.rect(
            (lo, mid - 0.75),
            ((hi - lo).max(1.0), 1.5),
            "mark whisker",
            &tip,
        );
        // The strip: one dot per sample, spread over five lines so equal times stay visible.
        for (k, &value) in bar.samples.iter().enumerate() {
            let dy = [0.0, -4.0, 4.0, -2.0, 2.0][k % 5];
            svg.circle((time.at(value), mid + dy), 2.2, "sample", "");
        }
        // The median over the strip, in the row's colour.
        svg.rect((end - 1.5, y), (3.0, BAR), class, &tip);
        let text_x = end.max(hi) + 5.0;
        svg.text(
            (text_x, mid + 4.0),
            Anchor::Start,
            "",
            &duration(bar.median),
        );
        let r_text = ratio_text(bar);
        let r_end = bar.ratio.map_or(ratio_x.0, |r| ratios.at(r));
        if r_end > ratio_x.0 {
            let r_tip = format!("{label}: {r_text} the fastest");
            svg.rect(
                (ratio_x.0, y),
                (r_end - ratio_x.0, BAR),
                "mark bar ratio",
                &r_tip,
            );
        }
        svg.text(
            (r_end.max(ratio_x.0 + 1.0) + 5.0, mid + 4.0),
            Anchor::Start,
            "",
            &r_text,
        );
    }
    let words: Vec<String> = bars
        .iter()
        .map(|b| format!("{} {} ({})", b.label, duration(b.median), ratio_text(b)))
        .collect();
    Some(Drawing {
        title: chart.title.clone(),
        label: format!("{}, fastest first: {}", chart.title, words.join(", ")),
        width: width.ceil() as u32,
        height: height.ceil() as u32,
        body: svg.finish(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::super::{Bar, BarChart};
    use super::*;

    fn bar(label: &str, median: f64) -> Bar {
        Bar {
            label: label.into(),
            median,
            min: median * 0.9,
            max: median * 1.2,
            ratio: Some(median / 97e-6),
            samples: vec![median],
            reference: false,
        }
    }

    /// Where the median ticks are, fastest first.
    fn medians(body: &str) -> Vec<f64> {
        body.lines()
            .filter(|l| l.starts_with("<rect class=\"mark bar") && !l.contains("ratio"))
            .filter_map(|l| {
                let at = l.find(" x=\"")? + 4;
                l[at..].split('"').next()?.parse().ok()
            })
            .collect()
    }

    #[test]
    fn times_far_apart_go_on_a_log_axis_where_the_fast_strips_stay_visible() {
        let apart = BarChart {
            title: "reads".into(),
            bars: vec![bar("npy", 97e-6), bar("ipc", 8e-3), bar("csv", 0.62)],
        };
        let drawn = draw(&apart).unwrap_or_else(|| panic!("drawn"));
        assert!(drawn
            .body
            .contains(">Wall time of every sample (log scale)</text>"));
        let m = medians(&drawn.body);
        assert_eq!(m.len(), 3);
        // The fastest sits clear of the axis, and each slower one further along a decade
        // apart: 97 µs, 8 ms and 620 ms are spread over the panel, none crowded at one end.
        let from = m[0] - 30.0;
        assert!(from > 0.0 && m[0] < m[1] && m[1] < m[2], "{m:?}");
        assert!(m[1] - m[0] > 60.0 && m[2] - m[1] > 60.0, "{m:?}");
        // Every sample is a dot.
        assert_eq!(drawn.body.matches("class=\"sample\"").count(), 3);
        // The ratio axis ticks every decade up to 6,400×, its labels clear of each other.
        let ticks: Vec<(f64, usize)> = drawn
            .body
            .lines()
            .filter(|l| l.starts_with("<text class=\"tick\"") && l.contains("×<"))
            .filter_map(|l| {
                let at = l.find(" x=\"")? + 4;
                let x: f64 = l[at..].split('"').next()?.parse().ok()?;
                let words = l.split('>').nth(1)?.split('<').next()?;
                Some((x, words.chars().count()))
            })
            .collect();
        assert_eq!(ticks.len(), 4, "{ticks:?}");
        for pair in ticks.windows(2) {
            let room = (pair[0].1 + pair[1].1) as f64 * 7.2 / 2.0;
            assert!(pair[1].0 - pair[0].0 > room, "{ticks:?}");
        }
        let close = BarChart {
            title: "reads".into(),
            bars: vec![bar("ipc", 8e-3), bar("parquet", 12e-3)],
        };
        let drawn = draw(&close).unwrap_or_else(|| panic!("drawn"));
        assert!(drawn.body.contains(">Wall time of every sample</text>"));
    }
}
