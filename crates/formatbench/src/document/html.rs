//! A document as one self-contained HTML page: inline CSS (light and dark, from the reader's
//! colour scheme) and inline SVG charts, no scripts, no external files.

pub use super::escape::html_escape;
use super::{Block, Chart, Document, IntervalChart, Para, Role, Span, Text, Tone};
use std::fmt::Write;

mod table;

pub use table::table;

/// The page's own rules; the SVG charts' come from `svg::style`, once, where a page has one.
const STYLE: &str = r#"
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --head: #f6f8fa;
  --win: #dafbe1; --win-edge: #1a7f37; --bad: #cf222e;
  --worse: #cf222e; --better: #1a7f37; --same: #59636e; --unsure: #9a6700; --band: #eaeef2;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --head: #151b23;
    --win: #12361f; --win-edge: #3fb950; --bad: #f85149;
    --worse: #f85149; --better: #3fb950; --same: #9198a1; --unsure: #d29922; --band: #21262d;
  }
}
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 86rem; margin: 0 auto; padding: 1.5rem 1rem; }
h1 { margin-top: 0; }
h2 { border-bottom: 1px solid var(--border); padding-bottom: 0.2rem; margin-top: 2rem; }
h3 { margin-bottom: 0.3rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-variant-numeric: tabular-nums;
  font-size: 0.88em; }
caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
th, td { border: 1px solid var(--border); padding: 0.25rem 0.45rem; text-align: left; vertical-align: top; }
th { background: var(--head); }
.num { text-align: right; white-space: nowrap; }
th.num { white-space: normal; }
td.parts { white-space: normal; }
tr:has(> td > .badge) td { background: var(--win); font-weight: 600; }
tr:has(> td > .badge) td:first-child { box-shadow: inset 4px 0 0 var(--win-edge); }
figure { margin: 0; }
td.median { text-align: right; white-space: nowrap; }
#recommendation { border-left: 4px solid var(--win-edge); background: var(--head);
  padding: 0.4rem 0.8rem; margin: 0.5rem 0 1rem; }
.badge { display: inline-block; margin-left: 0.4rem; padding: 0 0.4rem; border-radius: 0.6rem;
  font-size: 0.75em; font-weight: 600; color: var(--bg); background: var(--win-edge); }
.status, .flag { color: var(--bad); font-weight: 600; }
.warning { color: var(--bad); margin: 0.3rem 0; }
.note { font-weight: 600; margin: 0.3rem 0; }
ul.flags { margin-top: -1rem; color: var(--muted); }
.muted, .legend { color: var(--muted); }
td.long { max-width: 40rem; overflow-wrap: anywhere; }
td.long summary { cursor: pointer; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
.t-worse { color: var(--worse); font-weight: 600; }
.t-better { color: var(--better); font-weight: 600; }
.t-unsure { color: var(--unsure); }
.chart { max-width: 100%; overflow-x: auto; }
svg text { fill: var(--fg); font-size: 12px; }
svg .axis { stroke: var(--muted); stroke-width: 1; }
svg .band { fill: var(--band); }
svg .m-worse { fill: var(--worse); stroke: var(--worse); }
svg .m-better { fill: var(--better); stroke: var(--better); }
svg .m-unsure { fill: var(--unsure); stroke: var(--unsure); }
svg .m-plain, svg .m-muted { fill: var(--same); stroke: var(--same); }
"#;

pub fn html(doc: &Document) -> String {
    let mut out = html_head(&doc.title);
    out.push_str(STYLE);
    let drawn = super::svg_charts(doc);
    // The charts' rules once, however many charts share them.
    if !drawn.is_empty() {
        out.push_str(&super::svg::style());
    }
    out.push_str("</style>\n</head>\n<body>\n<main>\n");
    let _ = writeln!(out, "<h1>{}</h1>", html_escape(&doc.title));
    if let Some(summary) = &doc.summary {
        let _ = writeln!(out, "<p>{}</p>", inline(summary));
    }
    let mut in_section = false;
    for (i, block) in doc.blocks.iter().enumerate() {
        match block {
            Block::Heading(text) => {
                let _ = writeln!(out, "<h2>{}</h2>", html_escape(text));
            }
            Block::Section { id, title } => {
                if in_section {
                    out.push_str("</section>\n");
                }
                in_section = true;
                let _ = writeln!(
                    out,
                    "<section id=\"{}\">\n<h2>{}</h2>",
                    html_escape(id),
                    html_escape(title)
                );
            }
            Block::Subheading(text) => {
                let _ = writeln!(out, "<h3>{}</h3>", html_escape(text));
            }
            Block::Text(text) => {
                let _ = writeln!(out, "<p>{}</p>", inline(text));
            }
            Block::Para(para) => out.push_str(&paragraph(para)),
            Block::List(items) | Block::Remarks(items) => {
                let class = match block {
                    Block::Remarks(_) => " class=\"flags\"",
                    _ => "",
                };
                let _ = writeln!(out, "<ul{class}>");
                for item in items {
                    let _ = writeln!(out, "<li>{}</li>", inline(item));
                }
                out.push_str("</ul>\n");
            }
            Block::Table(t) => out.push_str(&table(t)),
            Block::Chart(Chart::Intervals(chart)) => out.push_str(&intervals(chart)),
            Block::Chart(_) => {
                if let Some((_, _, drawing)) = drawn.iter().find(|(at, _, _)| *at == i) {
                    let _ = write!(
                        out,
                        "<figure class=\"scroll\">\n{}</figure>\n",
                        drawing.inline()
                    );
                }
            }
        }
    }
    if in_section {
        out.push_str("</section>\n");
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn paragraph(para: &Para) -> String {
    let id = para
        .id
        .as_ref()
        .map(|id| format!(" id=\"{}\"", html_escape(id)))
        .unwrap_or_default();
    let class = match para.role {
        Role::Plain => "",
        Role::Legend => " class=\"legend\"",
        Role::Note => " class=\"note\"",
        Role::Warning => " class=\"warning\"",
        Role::Muted => " class=\"muted\"",
    };
    format!("<p{id}{class}>{}</p>\n", inline(&para.text))
}

fn inline(text: &Text) -> String {
    text.spans
        .iter()
        .map(|span| match span {
            Span::Plain(t) => html_escape(t),
            Span::Strong(t) => format!("<strong>{}</strong>", html_escape(t)),
            Span::Code(t) => format!("<code>{}</code>", html_escape(t)),
            Span::Muted(t) => format!("<span class=\"muted\">{}</span>", html_escape(t)),
            Span::Status(t) => format!("<span class=\"status\">{}</span>", html_escape(t)),
        })
        .collect()
}

/// Each row's estimate as a dot and its interval as a whisker on a log scale, the reference a
/// line and the band shaded; labels right-aligned at the left.
fn intervals(chart: &IntervalChart) -> String {
    if chart.rows.is_empty() {
        return format!("<p class=\"muted\">{}</p>\n", html_escape(&chart.empty));
    }
    let (band_lo, band_hi) = chart.band;
    let (mut lo, mut hi) = (band_lo.min(0.8), band_hi.max(1.25));
    for r in &chart.rows {
        lo = lo.min(r.lo.max(1e-3));
        hi = hi.max(r.hi.min(1e3));
    }
    let (left, width, row, top) = (300.0, 460.0, 18.0, 24.0);
    let n = chart.rows.len() as f64;
    let height = top + row * n + 28.0;
    let x = |r: f64| left + (r.clamp(lo, hi).ln() - lo.ln()) / (hi.ln() - lo.ln()) * width;
    let total = left + width + 20.0;
    // It shrinks with the page, down to the scale every chart keeps (then it scrolls).
    let least = (total * super::svg::MIN_SCALE).round();
    let mut svg = format!(
        "<div class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" \
         width=\"{total:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {total:.0} {height:.0}\" \
         style=\"max-width: 100%; height: auto; min-width: {least}px\">\
         <title>{}</title>\n",
        html_escape(&chart.title)
    );
    let bottom = top + row * n;
    let _ = writeln!(
        svg,
        "<rect class=\"band\" x=\"{:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{:.1}\"/>",
        x(band_lo),
        x(band_hi) - x(band_lo),
        row * n
    );
    let _ = writeln!(
        svg,
        "<line class=\"axis\" x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom:.1}\"/>",
        x(chart.reference)
    );
    for tick in [lo, chart.reference, hi] {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(tick),
            bottom + 16.0,
            crate::units::ratio(tick)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">{}</text>",
        left + width / 2.0,
        html_escape(&chart.axis)
    );
    for (i, r) in chart.rows.iter().enumerate() {
        let y = top + row * i as f64 + row / 2.0;
        let class = match r.tone {
            Tone::Worse => "m-worse",
            Tone::Better => "m-better",
            Tone::Unsure => "m-unsure",
            Tone::Muted => "m-muted",
            Tone::Plain => "m-plain",
        };
        let label = html_escape(&r.label);
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>\n\
             <line class=\"{class}\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke-width=\"2\"/>\n\
             <circle class=\"{class}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\"><title>{label}: {}</title></circle>",
            left - 8.0,
            y + 4.0,
            x(r.lo),
            x(r.hi),
            x(r.estimate),
            html_escape(&r.detail)
        );
    }
    svg.push_str("</svg></div>\n");
    svg
}

/// A self-contained page's start, up to its open `<style>` element (light and dark).
pub fn html_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"color-scheme\" content=\"light dark\">\n\
         <title>{}</title>\n<style>",
        html_escape(title)
    )
}
