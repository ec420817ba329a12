//! Progress on stderr: indicatif's bar, redrawn in place, when stderr is a terminal, a plain
//! line every few seconds when it is not; `--quiet` keeps only errors, `--verbose` adds a line per sample.
//! stdout is never touched: it carries only the summary.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    Quiet = 0,
    Normal = 1,
    Verbose = 2,
}

static VERBOSITY: AtomicU8 = AtomicU8::new(Verbosity::Normal as u8);
/// The bar drawn now, so that a log line is printed above it rather than through it.
static BAR: Mutex<Option<ProgressBar>> = Mutex::new(None);

pub fn set_verbosity(v: Verbosity) {
    VERBOSITY.store(v as u8, Ordering::SeqCst);
}

pub fn verbosity() -> Verbosity {
    match VERBOSITY.load(Ordering::SeqCst) {
        0 => Verbosity::Quiet,
        1 => Verbosity::Normal,
        _ => Verbosity::Verbose,
    }
}

fn print_line(message: &str) {
    let shown = BAR.lock().ok().and_then(|bar| bar.clone());
    match shown {
        Some(bar) => bar.suspend(|| eprintln!("formatbench: {message}")),
        None => eprintln!("formatbench: {message}"),
    }
}

/// A log line (not shown under `--quiet`).
pub fn say(message: &str) {
    if verbosity() >= Verbosity::Normal {
        print_line(message);
    }
}

/// A line even `--quiet` shows: why the command exits non-zero when it ends without an error
/// (a gate that failed, a run that measured nothing).
pub fn fail(message: &str) {
    print_line(message);
}

/// A line only `--verbose` shows.
pub fn detail(message: &str) {
    if verbosity() >= Verbosity::Verbose {
        print_line(message);
    }
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}", s / 60, s % 60)
}

/// Progress through one phase (verification of cells, measurement of samples): indicatif's
/// bar on a terminal, a plain line every few seconds otherwise (a log file, CI).
pub struct Progress {
    phase: &'static str,
    total: usize,
    done: usize,
    started: Instant,
    bar: Option<ProgressBar>,
    last_plain: Instant,
}

/// How often a plain (non-terminal) progress line is printed.
const PLAIN_EVERY: Duration = Duration::from_secs(10);
const BAR_TEMPLATE: &str =
    "{prefix} [{bar:24}] {pos}/{len} {percent}% · {msg} · {elapsed_precise} elapsed · ETA {eta}";

fn terminal_bar(phase: &'static str, total: usize) -> ProgressBar {
    let style = ProgressStyle::with_template(BAR_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("#>.");
    let bar = ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
        .with_style(style)
        .with_prefix(phase);
    if let Ok(mut shown) = BAR.lock() {
        *shown = Some(bar.clone());
    }
    bar
}

impl Progress {
    pub fn new(phase: &'static str, total: usize) -> Self {
        let now = Instant::now();
        let drawn = verbosity() >= Verbosity::Normal && std::io::stderr().is_terminal();
        Progress {
            phase,
            total,
            done: 0,
            started: now,
            bar: drawn.then(|| terminal_bar(phase, total)),
            last_plain: now,
        }
    }

    /// Counts one item; `current` names what runs next.
    pub fn step(&mut self, current: &str) {
        self.done += 1;
        if verbosity() < Verbosity::Normal {
            return;
        }
        if let Some(bar) = &self.bar {
            bar.set_message(current.chars().take(50).collect::<String>());
            bar.inc(1);
            return;
        }
        if self.last_plain.elapsed() >= PLAIN_EVERY || self.done == self.total {
            self.last_plain = Instant::now();
            let elapsed = self.started.elapsed();
            let eta = (self.done > 0 && self.done < self.total)
                .then(|| elapsed.mul_f64((self.total - self.done) as f64 / self.done as f64));
            let eta = eta.map_or_else(|| "—".to_string(), clock);
            let percent = (100 * self.done).checked_div(self.total).unwrap_or(100);
            eprintln!(
                "formatbench: {} {}/{} ({percent}%), {} elapsed, ETA {eta}; now {current}",
                self.phase,
                self.done,
                self.total,
                clock(elapsed)
            );
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
            if let Ok(mut shown) = BAR.lock() {
                *shown = None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_formats_minutes_and_seconds() {
        assert_eq!(clock(Duration::from_secs(75)), "01:15");
        assert_eq!(clock(Duration::from_secs(5)), "00:05");
    }
}
