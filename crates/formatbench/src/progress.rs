//! Progress on stderr: a bar redrawn in place when stderr is a terminal, a plain line every few
//! seconds when it is not; `--quiet` keeps only errors, `--verbose` adds a line per sample.
//! stdout is never touched: it carries only the summary.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    Quiet = 0,
    Normal = 1,
    Verbose = 2,
}

static VERBOSITY: AtomicU8 = AtomicU8::new(Verbosity::Normal as u8);
/// Set while a bar is drawn, so a log line first clears it.
static BAR_SHOWN: AtomicU8 = AtomicU8::new(0);

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

fn clear_bar() {
    if BAR_SHOWN.swap(0, Ordering::SeqCst) == 1 {
        eprint!("\r\x1b[2K");
    }
}

/// A log line (not shown under `--quiet`).
pub fn say(message: &str) {
    if verbosity() >= Verbosity::Normal {
        clear_bar();
        eprintln!("formatbench: {message}");
    }
}

/// A line only `--verbose` shows.
pub fn detail(message: &str) {
    if verbosity() >= Verbosity::Verbose {
        clear_bar();
        eprintln!("formatbench: {message}");
    }
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{:02}:{:02}", s / 60, s % 60)
}

/// Progress through one phase (verification of cells, measurement of samples).
pub struct Progress {
    phase: &'static str,
    total: usize,
    done: usize,
    started: Instant,
    tty: bool,
    last_plain: Instant,
}

/// How often a plain (non-terminal) progress line is printed.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

impl Progress {
    pub fn new(phase: &'static str, total: usize) -> Self {
        let now = Instant::now();
        Progress {
            phase,
            total,
            done: 0,
            started: now,
            tty: std::io::stderr().is_terminal(),
            last_plain: now,
        }
    }

    /// Counts one item (`skipped` ones, e.g. resumed, count without taking time).
    pub fn step(&mut self, current: &str) {
        self.done += 1;
        if verbosity() < Verbosity::Normal {
            return;
        }
        let elapsed = self.started.elapsed();
        let eta = (self.done > 0 && self.done < self.total)
            .then(|| elapsed.mul_f64((self.total - self.done) as f64 / self.done as f64));
        let eta = eta.map_or_else(|| "—".to_string(), clock);
        let percent = (100 * self.done).checked_div(self.total).unwrap_or(100);
        if self.tty {
            let width = 24;
            let filled = (width * self.done).checked_div(self.total).unwrap_or(width);
            let bar = format!("{}{}", "#".repeat(filled), ".".repeat(width - filled));
            let mut err = std::io::stderr().lock();
            let shown: String = current.chars().take(50).collect();
            let _ = write!(
                err,
                "\r\x1b[2K{} [{bar}] {}/{} {percent}% · {shown} · {} elapsed · ETA {eta}",
                self.phase,
                self.done,
                self.total,
                clock(elapsed)
            );
            let _ = err.flush();
            BAR_SHOWN.store(1, Ordering::SeqCst);
        } else if self.last_plain.elapsed() >= PLAIN_EVERY || self.done == self.total {
            self.last_plain = Instant::now();
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
        clear_bar();
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
