//! Whether a drawing's labels run into each other: each `<text>` as a box (its width the
//! drawing's own estimate, 7.2 px a character at 12 px; its height the font's), and every pair
//! that overlaps by more than a pixel. The chart tests run it on every chart of the report
//! fixtures and of a real run's report; the browser test checks the same with Chromium's own
//! text metrics.

use super::text_width;

/// A label's box: left, top, right, bottom, and its words.
type LabelBox = (f64, f64, f64, f64, String);

fn attribute(line: &str, name: &str) -> Option<f64> {
    let needle = format!(" {name}=\"");
    let at = line.find(&needle)? + needle.len();
    line[at..].split('"').next()?.parse().ok()
}

fn label_boxes(body: &str) -> Vec<LabelBox> {
    body.lines()
        .filter(|l| l.trim_start().starts_with("<text"))
        .filter_map(|l| {
            let (x, y) = (attribute(l, "x")?, attribute(l, "y")?);
            let words = l.split('>').nth(1)?.split("</text").next()?;
            let words = words
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&");
            let width = text_width(&words);
            let left = if l.contains("text-anchor=\"middle\"") {
                x - width / 2.0
            } else if l.contains("text-anchor=\"end\"") {
                x - width
            } else {
                x
            };
            Some((left, y - 10.0, left + width, y + 2.0, words))
        })
        .collect()
}

/// Every pair of labels of `body` (a drawing's body, or a whole SVG file) that overlap.
pub fn overlapping_labels(body: &str) -> Vec<(String, String)> {
    let boxes = label_boxes(body);
    let mut out = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            // A pixel of slack: the widths are estimates.
            let apart =
                a.2 <= b.0 + 1.0 || b.2 <= a.0 + 1.0 || a.3 <= b.1 + 1.0 || b.3 <= a.1 + 1.0;
            if !apart {
                out.push((a.4.clone(), b.4.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_on_one_line_overlap_and_labels_a_row_apart_do_not() {
        let body = "<text x=\"10\" y=\"20\">parquet/default</text>\n\
                    <text x=\"60\" y=\"20\">12.3 ms</text>\n\
                    <text x=\"10\" y=\"44\">ipc/default</text>\n";
        assert_eq!(
            overlapping_labels(body),
            vec![("parquet/default".to_string(), "12.3 ms".to_string())]
        );
        let apart = "<text x=\"10\" y=\"20\" text-anchor=\"end\">a</text>\n\
                     <text x=\"14\" y=\"20\">b</text>\n";
        assert!(overlapping_labels(apart).is_empty());
    }
}
