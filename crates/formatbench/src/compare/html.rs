//! The comparison as one self-contained HTML page (inline CSS and SVG, no scripts), light and
//! dark like the report: what differs, the counts, a before/after chart (each cell's NEW ÷
//! BASE with its interval on a log scale, BASE at 1, the threshold band shaded) and the table.

use super::model::{CellComparison, Comparison, Verdict};
use super::rows::{listing, Row};
use crate::report::{html_escape as esc, html_head};
use crate::units::DASH;
use std::fmt::Write;

const STYLE: &str = r#"
:root { color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --head: #f6f8fa;
  --slower: #cf222e; --faster: #1a7f37; --same: #59636e; --unsure: #9a6700; --band: #eaeef2; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --head: #151b23;
  --slower: #f85149; --faster: #3fb950; --same: #9198a1; --unsure: #d29922; --band: #21262d; } }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 86rem; margin: 0 auto; padding: 1.5rem 1rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.88em;
  font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--border); padding: 0.25rem 0.45rem; text-align: left; }
th { background: var(--head); }
.num { text-align: right; white-space: nowrap; }
.muted { color: var(--muted); }
.v-slower, .v-failed { color: var(--slower); font-weight: 600; }
.v-faster, .v-fixed { color: var(--faster); font-weight: 600; }
.v-inconclusive { color: var(--unsure); }
svg text { fill: var(--fg); font-size: 12px; }
svg .axis { stroke: var(--muted); stroke-width: 1; }
svg .band { fill: var(--band); }
svg .m-slower { fill: var(--slower); stroke: var(--slower); }
svg .m-faster { fill: var(--faster); stroke: var(--faster); }
svg .m-inconclusive { fill: var(--unsure); stroke: var(--unsure); }
svg .m-same { fill: var(--same); stroke: var(--same); }
"#;

fn class(v: Verdict) -> &'static str {
    match v {
        Verdict::Slower => "v-slower",
        Verdict::FailedInNew => "v-failed",
        Verdict::Faster => "v-faster",
        Verdict::FixedInNew => "v-fixed",
        Verdict::Inconclusive => "v-inconclusive",
        _ => "muted",
    }
}

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Slower => "m-slower",
        Verdict::Faster => "m-faster",
        Verdict::Inconclusive => "m-inconclusive",
        _ => "m-same",
    }
}

pub fn render(cmp: &Comparison) -> String {
    let mut out = html_head("formatbench compare");
    out.push_str(STYLE);
    out.push_str("</style>\n</head>\n<body>\n<main>\n");
    let _ = writeln!(
        out,
        "<h1>formatbench compare</h1>\n<p>BASE <code>{}</code> ({}) → NEW <code>{}</code> ({})</p>",
        esc(&cmp.base.run_id),
        esc(&cmp.base.dir.display().to_string()),
        esc(&cmp.new.run_id),
        esc(&cmp.new.dir.display().to_string())
    );
    out.push_str("<h2>What differs between the environments</h2>\n");
    if cmp.differences.is_empty() {
        out.push_str("<p class=\"muted\">No difference recorded.</p>\n");
    } else {
        out.push_str("<ul>\n");
        for d in &cmp.differences {
            let _ = writeln!(out, "<li>{}</li>", esc(&d.text()));
        }
        out.push_str("</ul>\n");
    }
    let _ = writeln!(
        out,
        "<p><strong>{}</strong></p>\n<p class=\"muted\">{}</p>",
        esc(&cmp.counts_text()),
        esc(&cmp.rule_text())
    );
    out.push_str("<h2>Before and after</h2>\n");
    out.push_str(&chart(cmp));
    out.push_str("<h2>Cells</h2>\n");
    table(&mut out, &listing(cmp, usize::MAX).rows);
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn table(out: &mut String, rows: &[Row]) {
    out.push_str(
        "<table>\n<thead><tr><th>cell</th><th class=\"num\">base</th><th class=\"num\">new</th>\
         <th class=\"num\">NEW ÷ BASE [95 %]</th><th class=\"num\">peak mem</th>\
         <th>verdict</th></tr></thead>\n<tbody>\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"{}\">{}</td></tr>",
            esc(&r.label),
            esc(&r.base),
            esc(&r.new),
            esc(&r.ratio),
            esc(&r.memory),
            class(r.verdict),
            esc(&r.verdict_text)
        );
    }
    out.push_str("</tbody>\n</table>\n");
}

/// Each compared cell's ratio as a dot with its interval as a whisker, on a log scale where
/// BASE is the line at 1 and the threshold band is shaded: a dot right of the band is slower.
fn chart(cmp: &Comparison) -> String {
    let labels = cmp.labels();
    let cells: Vec<(&CellComparison, &String)> = cmp
        .cells
        .iter()
        .zip(&labels)
        .filter(|(c, _)| c.ratio.is_some())
        .collect();
    if cells.is_empty() {
        return format!("<p class=\"muted\">{DASH} no cell ran in both runs.</p>\n");
    }
    let (upper, lower) = (1.0 + cmp.threshold, 1.0 / (1.0 + cmp.threshold));
    let (mut lo, mut hi) = (lower.min(0.8), upper.max(1.25));
    for (c, _) in &cells {
        if let Some(r) = c.ratio {
            lo = lo.min(r.lo.max(1e-3));
            hi = hi.max(r.hi.min(1e3));
        }
    }
    let (left, width, row, top) = (300.0, 460.0, 18.0, 24.0);
    let height = top + row * cells.len() as f64 + 28.0;
    let x = |r: f64| left + (r.clamp(lo, hi).ln() - lo.ln()) / (hi.ln() - lo.ln()) * width;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"{:.0}\" height=\"{height:.0}\" \
         viewBox=\"0 0 {:.0} {height:.0}\"><title>NEW ÷ BASE per cell</title>\n",
        left + width + 20.0,
        left + width + 20.0
    );
    let _ = writeln!(
        svg,
        "<rect class=\"band\" x=\"{:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{:.1}\"/>",
        x(lower),
        x(upper) - x(lower),
        row * cells.len() as f64
    );
    let bottom = top + row * cells.len() as f64;
    let _ = writeln!(
        svg,
        "<line class=\"axis\" x1=\"{0:.1}\" y1=\"{top}\" x2=\"{0:.1}\" y2=\"{bottom:.1}\"/>",
        x(1.0)
    );
    for (tick, text) in [(lo, lo), (1.0, 1.0), (hi, hi)] {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            x(tick),
            bottom + 16.0,
            super::model::ratio_text(text)
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">← faster · NEW ÷ BASE (log scale) · slower →</text>",
        left + width / 2.0
    );
    for (i, (c, label)) in cells.iter().enumerate() {
        let Some(r) = c.ratio else { continue };
        let y = top + row * i as f64 + row / 2.0;
        let class = mark(c.verdict);
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>\n\
             <line class=\"{class}\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke-width=\"2\"/>\n\
             <circle class=\"{class}\" cx=\"{:.1}\" cy=\"{y:.1}\" r=\"4\"><title>{}: {}</title></circle>",
            left - 8.0,
            y + 4.0,
            esc(label),
            x(r.lo),
            x(r.hi),
            x(r.estimate),
            esc(label),
            esc(&format!(
                "{} — {}",
                super::model::interval_text(Some(&r)),
                c.verdict.name()
            ))
        );
    }
    svg.push_str("</svg>\n");
    svg
}
