//! Charts drawn as inline SVG: no scripts, no fonts, no clock. Every colour comes from a CSS
//! class that reads a custom property, so the same markup follows the page's light or dark
//! scheme. The standalone files (a Markdown page's) carry the same rules with the colours
//! written out, light by default and dark under `prefers-color-scheme`, because renderers
//! without CSS custom properties (librsvg, which pandoc-to-PDF and GNOME's viewers use) draw
//! every `var()` fill black.

mod bars;
mod draw;
mod heat;
mod lines;
mod overlap;
mod scatter;

use super::escape::html_escape as esc;
use super::Chart;
use draw::{label_width, text_width, Anchor, Scale, Svg};
#[cfg(test)]
pub(crate) use heat::{level_in, levels, LEVELS};
pub use overlap::overlapping_labels;

/// A chart drawn: the words a screen reader says for it, its size and its elements.
pub struct Drawing {
    pub title: String,
    pub label: String,
    pub width: u32,
    pub height: u32,
    pub body: String,
}

/// The chart drawn, for the kinds drawn as SVG (not the interval chart, which a page draws
/// with its own colours); `None` for those and for a chart with nothing to draw.
pub fn drawing(chart: &Chart) -> Option<Drawing> {
    match chart {
        Chart::Bars(c) => bars::draw(c),
        Chart::Heat(c) => Some(heat::draw(c)),
        Chart::Lines(c) => lines::draw(c),
        Chart::Scatter(c) => scatter::draw(c),
        Chart::Intervals(_) => None,
    }
}

/// The smallest share of its own width a chart is drawn at on a page: its 12 px text stays
/// at least 9 px on a phone, and a narrower screen scrolls the chart sideways instead.
pub const MIN_SCALE: f64 = 0.75;

impl Drawing {
    fn svg(&self, xmlns: &str, attributes: &str, style: &str) -> String {
        format!(
            "<svg{xmlns} class=\"chart\" role=\"img\" aria-label=\"{}\" viewBox=\"0 0 {w} {h}\" \
             width=\"{w}\" height=\"{h}\"{attributes}>\n<title>{}</title>\n{style}{}</svg>\n",
            esc(&self.label),
            esc(&self.title),
            self.body,
            w = self.width,
            h = self.height,
        )
    }

    /// For an HTML page whose stylesheet includes [`style`]: it shrinks with the page down to
    /// [`MIN_SCALE`] of its width.
    pub fn inline(&self) -> String {
        let least = (f64::from(self.width) * MIN_SCALE).round();
        self.svg("", &format!(" style=\"min-width: {least}px\""), "")
    }

    /// A file of its own, with its colours for either scheme written out.
    pub fn standalone(&self) -> String {
        let light = resolved(CHART_RULES, &[BASE_LIGHT, CHART_LIGHT]);
        let dark = resolved(CHART_RULES, &[BASE_DARK, CHART_DARK]);
        let style = format!(
            "<style>\n:root {{ color-scheme: light dark; }}{light}\
             @media (prefers-color-scheme: dark) {{{dark}}}\n</style>\n"
        );
        let svg = self.svg(" xmlns=\"http://www.w3.org/2000/svg\"", "", &style);
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{svg}")
    }
}

/// The colours the HTML page already defines, for the standalone files.
const BASE_LIGHT: &str = "--fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --win-edge: #1a7f37;";
const BASE_DARK: &str = "--fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --win-edge: #3fb950;";
const CHART_LIGHT: &str = "--accent: #0969da; --accent-2: #bc4c00; --s0: #0969da; \
     --s1: #bc4c00; --s2: #1a7f37; --s3: #8250df; --s4: #bf3989; --s5: #6e7781; \
     --heat-0: #dafbe1; --heat-1: #fff8c5; --heat-2: #ffe2a8; --heat-3: #ffcba4; \
     --heat-4: #ffaba8; --heat-5: #ff8182; \
     --faster-1: #ddf4ff; --faster-2: #b6e3ff; --faster-3: #80ccff;";
const CHART_DARK: &str = "--accent: #4493f8; --accent-2: #f0883e; --s0: #4493f8; \
     --s1: #f0883e; --s2: #3fb950; --s3: #ab7df8; --s4: #f778ba; --s5: #9198a1; \
     --heat-0: #12361f; --heat-1: #3a3112; --heat-2: #4b3212; --heat-3: #5a2a14; \
     --heat-4: #6b2121; --heat-5: #8e1519; \
     --faster-1: #0c2d6b; --faster-2: #0d419d; --faster-3: #1f6feb;";
const CHART_RULES: &str = r#"
svg.chart { display: block; max-width: 100%; height: auto; margin: 0.5rem 0 0.75rem;
  font: 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
svg.chart text { fill: var(--fg); }
svg.chart .tick, svg.chart .dim { fill: var(--muted); }
svg.chart .heading { font-weight: 600; }
svg.chart .axis { stroke: var(--border); stroke-width: 1; }
svg.chart .grid { stroke: var(--border); stroke-width: 1; stroke-dasharray: 2 3; }
svg.chart .leader { stroke: var(--muted); stroke-width: 1; }
svg.chart .bar { fill: var(--accent); }
svg.chart .bar.fastest { fill: var(--win-edge); }
svg.chart .bar.reference { fill: var(--muted); }
svg.chart .sample { fill: var(--fg); fill-opacity: 0.6; }
svg.chart .whisker, svg.chart .cap { fill: var(--fg); }
svg.chart .ratio { fill: var(--accent-2); }
svg.chart .read { fill: var(--accent); }
svg.chart .write { fill: var(--accent-2); }
svg.chart .na { fill: none; stroke: var(--border); }
svg.chart .s0 { fill: var(--s0); } svg.chart .s1 { fill: var(--s1); }
svg.chart .s2 { fill: var(--s2); } svg.chart .s3 { fill: var(--s3); }
svg.chart .s4 { fill: var(--s4); } svg.chart .s5 { fill: var(--s5); }
svg.chart .heat-0 { fill: var(--heat-0); } svg.chart .heat-1 { fill: var(--heat-1); }
svg.chart .heat-2 { fill: var(--heat-2); } svg.chart .heat-3 { fill: var(--heat-3); }
svg.chart .heat-4 { fill: var(--heat-4); } svg.chart .heat-5 { fill: var(--heat-5); }
svg.chart .faster-1 { fill: var(--faster-1); } svg.chart .faster-2 { fill: var(--faster-2); }
svg.chart .faster-3 { fill: var(--faster-3); }
"#;

/// `rules` with each `var(--name)` replaced by the colour `palettes` give it (`--name: #hex;`
/// declarations); a name without one is left as it was.
fn resolved(rules: &str, palettes: &[&str]) -> String {
    let mut out = rules.to_string();
    for declaration in palettes.iter().flat_map(|p| p.split(';')) {
        if let Some((name, colour)) = declaration.split_once(':') {
            out = out.replace(&format!("var({})", name.trim()), colour.trim());
        }
    }
    out
}

/// The chart colours and rules, for a page's stylesheet (which defines the base colours
/// itself).
pub fn style() -> String {
    format!(
        ":root {{ {CHART_LIGHT} }}\n@media (prefers-color-scheme: dark) {{ :root {{ {CHART_DARK} }} }}\
         {CHART_RULES}"
    )
}
