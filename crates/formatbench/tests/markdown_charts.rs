#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Markdown report's charts render in renderers without CSS custom properties: librsvg
//! (what pandoc-to-PDF and GNOME's viewers use) draws their bars in colour, not black.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn rsvg_convert() -> bool {
    let found = Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    common::available("rsvg-convert (Debian librsvg2-bin)", found)
}

/// Pixels of a PNG as RGBA.
fn pixels(png_file: &Path) -> Vec<[u8; 4]> {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(png_file).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(
        info.color_type,
        png::ColorType::Rgba,
        "rsvg-convert writes RGBA"
    );
    buf[..info.buffer_size()]
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect()
}

fn charts_with_bars(run: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(run)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .filter(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .contains("class=\"mark bar")
        })
        .collect();
    out.sort();
    out
}

#[test]
fn librsvg_draws_the_markdown_reports_bars_in_colour() {
    if !rsvg_convert() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["run"];
    args.extend(common::SMALL_MIXED);
    let out = dir.path().join("out");
    args.extend([
        "--backends",
        "ipc,csv",
        "--ops",
        "read",
        "--rounds",
        "1",
        "--min-sample-ms",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    let ran = common::formatbench(&args);
    assert!(ran.status.success(), "{}", common::stderr(&ran));
    let charts = charts_with_bars(&common::run_dir(&out));
    assert!(!charts.is_empty(), "the report has a bar chart");
    let png_file = dir.path().join("chart.png");
    let rendered = Command::new("rsvg-convert")
        .args(["-f", "png", "-o"])
        .arg(&png_file)
        .arg(&charts[0])
        .output()
        .unwrap();
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let drawn: Vec<[u8; 4]> = pixels(&png_file)
        .into_iter()
        .filter(|p| p[3] > 200)
        .collect();
    // The light scheme's mark colours: the median ticks' accent (#0969da), the fastest's
    // (#1a7f37) and the ratio bars' second accent (#bc4c00).
    let near = |p: &[u8; 4], (r, g, b): (i32, i32, i32)| {
        (i32::from(p[0]) - r).abs() + (i32::from(p[1]) - g).abs() + (i32::from(p[2]) - b).abs() < 24
    };
    let coloured = drawn
        .iter()
        .filter(|p| {
            near(p, (0x09, 0x69, 0xda))
                || near(p, (0x1a, 0x7f, 0x37))
                || near(p, (0xbc, 0x4c, 0x00))
        })
        .count();
    let black = drawn.iter().filter(|p| near(p, (0, 0, 0))).count();
    assert!(
        coloured > 200,
        "{}: {coloured} bar-coloured pixels of {} drawn",
        charts[0].display(),
        drawn.len()
    );
    assert!(
        black < coloured,
        "{}: {black} black pixels against {coloured} coloured",
        charts[0].display()
    );
}
