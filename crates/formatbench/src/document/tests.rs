use super::*;

fn sample() -> Document {
    Document {
        title: "reads of mixed-1000x6".into(),
        summary: Some(Text::strong("3 backends, 2 verified")),
        blocks: vec![
            Block::Text(Text::strong("parquet is fastest").then(Span::Plain(" by 1.42×".into()))),
            Block::Heading("Results".into()),
            Block::List(vec![Text::plain("cold cache"), Text::muted("2 rounds")]),
            Block::Table(Table::new(
                vec![Column::left("backend"), Column::right("median")],
                vec![
                    Row::from(vec![
                        Cell::text("parquet"),
                        Cell::figure("1.23 ms", Some(0.00123)),
                    ]),
                    Row::from(vec![
                        Cell::text("csv | <gz>"),
                        Cell::figure("17.5 ms", Some(0.0175)).toned(Tone::Worse),
                    ]),
                ],
            )),
            Block::Chart(Chart::Intervals(IntervalChart {
                title: "ratio".into(),
                axis: "ratio (log scale)".into(),
                reference: 1.0,
                band: (0.95, 1.05),
                rows: vec![IntervalRow {
                    label: "csv".into(),
                    estimate: 14.2,
                    lo: 12.0,
                    hi: 16.1,
                    tone: Tone::Worse,
                    detail: "14× [12–16]".into(),
                }],
                empty: "nothing".into(),
            })),
        ],
    }
}

/// Every cell's text, as each medium escapes it.
fn cell_texts(doc: &Document) -> Vec<String> {
    doc.blocks
        .iter()
        .filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        })
        .flat_map(|t| t.rows.iter().flat_map(|r| &r.cells).map(|c| c.text.clone()))
        .collect()
}

#[test]
fn one_document_holds_the_same_numbers_in_every_medium() {
    let doc = sample();
    let (text, md, page) = (terminal(&doc), markdown(&doc), html(&doc));
    for cell in cell_texts(&doc) {
        assert!(text.contains(&cell), "terminal lacks {cell:?}:\n{text}");
        assert!(
            md.contains(&markdown_escape(&cell)),
            "markdown lacks {cell:?}:\n{md}"
        );
        assert!(page.contains(&html_escape(&cell)), "page lacks {cell:?}");
    }
    for medium in [&text, &md, &page] {
        assert!(medium.contains("parquet is fastest"), "{medium}");
        assert!(medium.contains("3 backends, 2 verified"), "{medium}");
        assert!(medium.contains("Results"), "{medium}");
        assert!(medium.contains("2 rounds"), "{medium}");
    }
}

#[test]
fn each_medium_draws_what_it_can() {
    let doc = sample();
    let text = terminal(&doc);
    // Figures line up on the right, names on the left.
    let lines: Vec<&str> = text.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("backend"))
        .unwrap_or(0);
    assert!(lines[header + 1].ends_with("1.23 ms"));
    assert_eq!(lines[header + 1].len(), lines[header + 2].len(), "{text}");
    // Markdown: a pipe table with right-aligned figures, an escaped `|`, no HTML and no links.
    let md = markdown(&doc);
    assert!(md.contains("| --- | ---: |"), "{md}");
    assert!(md.contains("csv \\| &lt;gz>"), "{md}");
    assert!(!md.contains("<svg") && !md.contains("]("), "{md}");
    // The page: a self-contained document with the chart drawn, light and dark, no scripts.
    let page = html(&doc);
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains("<svg") && page.contains("prefers-color-scheme: dark"));
    assert!(
        page.contains("class=\"num t-worse\""),
        "the worse figure is marked"
    );
    assert!(!page.contains("<script"));
    // A chart the terminal cannot draw is left to the table with its numbers.
    assert!(!text.contains("14× [12–16]"));
}
