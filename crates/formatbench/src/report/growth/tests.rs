use super::tables;
use crate::report::fixture::{group_of, sweep, Competitor};
use crate::stats::{OpGroup, RunSummary};

#[test]
fn a_tenfold_sweep_with_tenfold_times_grows_linearly() {
    let tables = tables(&sweep());
    // write and read: one slope table each, and no crossing (every time scales alike).
    assert_eq!(
        tables.len(),
        2,
        "{:?}",
        tables.iter().map(|t| &t.title).collect::<Vec<_>>()
    );
    let write = &tables[0];
    assert_eq!(
        write.title,
        "mixed-*x10 · write · threads 1: growth with rows"
    );
    assert_eq!(write.headers[2], "at 10,000 rows");
    assert_eq!(write.headers[3], "at 100,000 rows");
    assert_eq!(write.rows.len(), 5);
    for row in &write.rows {
        assert_eq!(row[1], "2");
        assert_eq!(row[4], "10×", "{row:?}");
        // One sample a size: a slope, and no interval (nothing to build one from).
        assert_eq!(row[5], "1.00 (1 sample a size)", "{row:?}");
    }
}

/// Two competitors whose lines cross: `a` is half `b`'s time at 100,000 rows and twice it at
/// 1,000,000. Each round's times carry the same factor for both, so paired ratios are exact.
fn crossing_run() -> RunSummary {
    let small: [Competitor; 2] = [
        ("a", "default", 1.0, 0.01, 0.01, 1.0),
        ("b", "default", 1.0, 0.02, 0.02, 1.0),
    ];
    let large: [Competitor; 2] = [
        ("a", "default", 1.0, 0.2, 0.2, 1.0),
        ("b", "default", 1.0, 0.1, 0.1, 1.0),
    ];
    let with_rounds = |mut g: OpGroup| {
        for c in &mut g.cells {
            let m = c.wall.map_or(0.0, |w| w.median);
            c.rounds = (1..=6).map(|r| (r, m * (1.0 + 0.01 * r as f64))).collect();
        }
        g
    };
    RunSummary {
        groups: vec![
            with_rounds(group_of(&small, "long-100000x12", "read", "warm", 1.0)),
            with_rounds(group_of(&large, "long-1000000x12", "read", "warm", 1.0)),
        ],
        ..RunSummary::default()
    }
}

#[test]
fn crossing_lines_are_found_interpolated_and_credible() {
    let tables = tables(&crossing_run());
    assert_eq!(tables.len(), 2);
    let slopes = &tables[0];
    let a = slopes.rows.iter().find(|r| r[0] == "a/default").unwrap();
    assert_eq!(a[4], "20×");
    assert!(a[5].starts_with("1.30 ["), "{a:?}");
    let cross = &tables[1];
    assert_eq!(
        cross.title,
        "long-*x12 · read · cache warm · threads 1: crossovers over rows"
    );
    assert_eq!(cross.rows.len(), 1);
    let row = &cross.rows[0];
    assert_eq!(row[0], "a/default → b/default");
    assert_eq!(row[1], "100,000–1,000,000 rows");
    // ln(0.5) → ln(2) is symmetric about zero: the lines meet at the sizes' geometric middle.
    assert_eq!(row[2], "316,228 rows");
    assert_eq!(row[3], "0.50× → 2.0×");
    assert_eq!(row[4], "yes");
}

#[test]
fn a_crossing_within_noise_is_not_credible() {
    let mut run = crossing_run();
    // b's rounds at the small size now straddle a's: the ratio's interval holds 1.
    for c in &mut run.groups[0].cells {
        if c.cell.backend == "b" {
            c.rounds = (1..=6)
                .map(|r| (r, if r % 2 == 0 { 0.005 } else { 0.04 }))
                .collect();
        }
    }
    let tables = tables(&run);
    let cross = tables.last().unwrap();
    assert_eq!(cross.rows.len(), 1, "{:?}", cross.rows);
    assert_eq!(cross.rows[0][4], "no");
}
