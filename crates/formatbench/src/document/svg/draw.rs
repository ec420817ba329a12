//! Writing SVG elements, and mapping values to pixels.

use super::super::escape::html_escape as esc;
use std::fmt::Write;

/// A coordinate, to one decimal: enough for a screen and always the same text.
pub(super) fn n(v: f64) -> String {
    if v.is_finite() {
        format!("{:.1}", v + 0.0)
    } else {
        "0.0".to_string()
    }
}

/// A rough width of text at the chart's 12 px font, for margins.
pub(super) fn text_width(s: &str) -> f64 {
    s.chars().count() as f64 * 7.2
}

/// The widest of some labels, within bounds.
pub(super) fn label_width<'a>(labels: impl Iterator<Item = &'a String>, lo: f64, hi: f64) -> f64 {
    labels.map(|l| text_width(l)).fold(lo, f64::max).min(hi)
}

#[derive(Clone, Copy)]
pub(super) enum Anchor {
    Start,
    Middle,
    End,
}

/// SVG elements written in order. Marks carry a `<title>` that a browser shows on hover.
#[derive(Default)]
pub(super) struct Svg {
    out: String,
}

impl Svg {
    pub(super) fn tip(&mut self, tip: &str) {
        if !tip.is_empty() {
            let _ = write!(self.out, "<title>{}</title>", esc(tip));
        }
    }

    /// A rectangle at least one unit wide and high, so no mark ever vanishes.
    pub(super) fn rect(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), class: &str, tip: &str) {
        let _ = write!(
            self.out,
            "<rect class=\"{class}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\">",
            n(x),
            n(y),
            n(w.max(1.0)),
            n(h.max(1.0))
        );
        self.tip(tip);
        self.out.push_str("</rect>\n");
    }

    pub(super) fn circle(&mut self, (x, y): (f64, f64), r: f64, class: &str, tip: &str) {
        let _ = write!(
            self.out,
            "<circle class=\"{class}\" cx=\"{}\" cy=\"{}\" r=\"{}\">",
            n(x),
            n(y),
            n(r.max(3.0))
        );
        self.tip(tip);
        self.out.push_str("</circle>\n");
    }

    /// A line segment drawn as a thin filled band, so it has an area in any direction.
    pub(super) fn segment(&mut self, a: (f64, f64), b: (f64, f64), class: &str, tip: &str) {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let length = dx.hypot(dy).max(1e-9);
        let (px, py) = (-dy / length * 1.25, dx / length * 1.25);
        let _ = write!(
            self.out,
            "<polygon class=\"{class}\" points=\"{},{} {},{} {},{} {},{}\">",
            n(a.0 + px),
            n(a.1 + py),
            n(b.0 + px),
            n(b.1 + py),
            n(b.0 - px),
            n(b.1 - py),
            n(a.0 - px),
            n(a.1 - py)
        );
        self.tip(tip);
        self.out.push_str("</polygon>\n");
    }

    /// An axis or grid line: decoration, not data.
    pub(super) fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), class: &str) {
        let _ = writeln!(
            self.out,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
            n(x1),
            n(y1),
            n(x2),
            n(y2)
        );
    }

    pub(super) fn text(&mut self, (x, y): (f64, f64), anchor: Anchor, class: &str, text: &str) {
        let anchor = match anchor {
            Anchor::Start => "",
            Anchor::Middle => " text-anchor=\"middle\"",
            Anchor::End => " text-anchor=\"end\"",
        };
        let class = if class.is_empty() {
            String::new()
        } else {
            format!(" class=\"{class}\"")
        };
        let _ = writeln!(
            self.out,
            "<text{class} x=\"{}\" y=\"{}\"{anchor}>{}</text>",
            n(x),
            n(y),
            esc(text)
        );
    }

    pub(super) fn finish(self) -> String {
        self.out
    }
}

/// Maps values to pixels, linearly from zero or logarithmically when the values span more
/// than a factor of ten.
#[derive(Debug, Clone, Copy)]
pub(super) struct Scale {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
    pub from: f64,
    pub to: f64,
}

impl Scale {
    /// A scale over positive values `lo..=hi` onto `from..to`.
    pub(super) fn fit(lo: f64, hi: f64, (from, to): (f64, f64)) -> Scale {
        let (lo, hi) = (lo.min(hi), hi.max(lo));
        if lo > 0.0 && hi / lo > 10.0 {
            Scale {
                lo: lo / 1.3,
                hi: hi * 1.3,
                log: true,
                from,
                to,
            }
        } else {
            Self::from_zero(hi, (from, to))
        }
    }

    /// A linear scale from zero to a little past `hi`.
    pub(super) fn from_zero(hi: f64, (from, to): (f64, f64)) -> Scale {
        let hi = if hi > 0.0 && hi.is_finite() {
            hi * 1.08
        } else {
            1.0
        };
        Scale {
            lo: 0.0,
            hi,
            log: false,
            from,
            to,
        }
    }

    pub(super) fn at(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(self.lo).ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        let t = if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self.from + t * (self.to - self.from)
    }

    /// At most `max` round values inside the range: powers of ten on a log scale, 1-2-5 steps
    /// else.
    pub(super) fn ticks(&self, max: usize) -> Vec<f64> {
        if self.log {
            let first = self.lo.log10().ceil() as i32;
            let last = self.hi.log10().floor() as i32;
            if last > first {
                return thin((first..=last).map(|e| 10f64.powi(e)).collect(), max);
            }
            // Within about a decade: 1-2-5 steps, which a log axis spreads evenly (linear
            // steps would crowd its upper end).
            let steps: Vec<f64> = (first - 1..=last + 1)
                .flat_map(|e| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(e)))
                .filter(|v| (self.lo..=self.hi).contains(v))
                .collect();
            if steps.len() > 1 {
                return thin(steps, max);
            }
        }
        self.linear_ticks(1.0, max)
    }

    /// Ticks for a horizontal axis whose labels (`label` of each, centred on it) never run
    /// into each other: [`Self::ticks`], else on a log axis 1-3 steps (1, 3, 10, 30), else
    /// its powers of ten, else its two ends.
    pub(super) fn spaced_ticks(&self, max: usize, label: &dyn Fn(f64) -> String) -> Vec<f64> {
        let clear = |ticks: &[f64]| {
            ticks.windows(2).all(|pair| {
                let room = (text_width(&label(pair[0])) + text_width(&label(pair[1]))) / 2.0;
                (self.at(pair[1]) - self.at(pair[0])).abs() > room + 6.0
            })
        };
        let mut candidates = vec![self.ticks(max)];
        if self.log {
            let (first, last) = (
                self.lo.log10().floor() as i32,
                self.hi.log10().ceil() as i32,
            );
            let within = |v: &f64| (self.lo..=self.hi).contains(v);
            candidates.push(
                (first..=last)
                    .flat_map(|e| [1.0, 3.0].map(|m| m * 10f64.powi(e)))
                    .filter(within)
                    .collect(),
            );
            candidates.push(
                (first..=last)
                    .map(|e| 10f64.powi(e))
                    .filter(within)
                    .collect(),
            );
        }
        let ends = candidates
            .first()
            .and_then(|t| Some(vec![*t.first()?, *t.last()?]))
            .unwrap_or_default();
        candidates
            .into_iter()
            .find(|t| t.len() > 1 && clear(t))
            .unwrap_or(ends)
    }

    /// The same for bytes: powers of two on a log scale (1 KiB, 32 KiB, 1 MiB, …), steps of
    /// 1-2-5 in the largest binary unit else, so the labels come out round.
    pub(super) fn byte_ticks(&self, max: usize) -> Vec<f64> {
        if self.log {
            let first = self.lo.log2().ceil() as i32;
            let last = self.hi.log2().floor() as i32;
            let span = (last - first).max(0) as usize;
            let every = [1, 2, 3, 5, 10, 20]
                .into_iter()
                .find(|k| span / k < max)
                .unwrap_or(30);
            let start = first.div_euclid(every as i32) * every as i32;
            let ticks: Vec<f64> = (start..=last)
                .step_by(every)
                .filter(|e| *e >= first)
                .map(|e| 2f64.powi(e))
                .collect();
            if ticks.len() > 1 {
                return ticks;
            }
        }
        let unit = 1024f64.powf((self.hi.max(1.0).log2() / 10.0).floor());
        self.linear_ticks(unit, max)
    }

    /// Multiples of a round step (in `unit`s) inside the range, at most `max` of them.
    pub(super) fn linear_ticks(&self, unit: f64, max: usize) -> Vec<f64> {
        let mut step = nice((self.hi - self.lo) / unit / 4.0) * unit;
        if !(step > 0.0 && step.is_finite()) {
            return Vec::new();
        }
        let count = |step: f64| ((self.hi / step).floor() - (self.lo / step).ceil()) as usize + 1;
        while count(step) > max.max(2) {
            step = nice(step / unit * 2.0) * unit;
        }
        let start = (self.lo / step).ceil() as i64;
        let end = (self.hi / step).floor() as i64;
        (start..=end)
            .map(|i| i as f64 * step)
            .filter(|v| *v > 0.0 || !self.log)
            .collect()
    }
}

/// Every k-th value, so that at most `max` remain.
pub(super) fn thin(values: Vec<f64>, max: usize) -> Vec<f64> {
    let every = values.len().div_ceil(max.max(1)).max(1);
    values.into_iter().step_by(every).collect()
}

/// A round step near `x`: 1, 2 or 5 times a power of ten.
pub(super) fn nice(x: f64) -> f64 {
    if !(x > 0.0 && x.is_finite()) {
        return 0.0;
    }
    let power = 10f64.powf(x.log10().floor());
    let f = x / power;
    let m = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    m * power
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_ticks() {
        let log = Scale::fit(1.0, 1000.0, (0.0, 100.0));
        assert!(log.log);
        assert_eq!(log.ticks(6), [1.0, 10.0, 100.0, 1000.0]);
        let linear = Scale::fit(2.0, 10.0, (0.0, 100.0));
        assert!(!linear.log);
        assert_eq!(linear.ticks(6), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(linear.ticks(3), [0.0, 5.0, 10.0]);
        assert_eq!(linear.at(0.0), 0.0);
        // 1.32 ms to 46 ms on 300 px (a real run's take chart): its 1-2-5 steps put 5, 10
        // and 20 ms labels 51 px apart, too close for their width; 1-3 steps are not.
        let crowded = Scale::fit(1.32e-3, 46e-3, (0.0, 300.0));
        let label = |v: f64| crate::units::duration(v);
        let spaced = crowded.spaced_ticks(5, &label);
        assert_eq!(crowded.ticks(5).len(), 5);
        assert!(spaced.len() >= 2 && spaced.len() < 5, "{spaced:?}");
        for pair in spaced.windows(2) {
            assert!(
                crowded.at(pair[1]) - crowded.at(pair[0]) > 50.0 + 6.0,
                "{spaced:?}"
            );
        }
        let bytes = Scale::fit(4096.0, 48e6, (0.0, 100.0));
        let ticks: Vec<u64> = bytes.byte_ticks(6).iter().map(|t| *t as u64).collect();
        assert_eq!(ticks, [1 << 12, 1 << 15, 1 << 18, 1 << 21, 1 << 24]);
    }
}
