//! Progress on stderr: indicatif's bar, redrawn in place, when stderr is a terminal, a plain
//! line every few seconds when it is not; `--quiet` keeps only errors, `--verbose` adds a line per sample.
//! stdout is never touched: it carries only the summary.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
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
/// bar on a terminal, ticking while a long sample runs and cut to the terminal's width, and a
/// plain line every few seconds otherwise (a log file, CI). What is left is the caller's
/// estimate where it has one ([`Progress::begin`]), else the pace so far.
pub struct Progress {
    phase: &'static str,
    /// Items finished, and the items still expected (the current one included).
    done: usize,
    to_go: usize,
    started: Instant,
    bar: Option<ProgressBar>,
    last_plain: Instant,
    /// The time left as last estimated, and when: the bar counts it down between estimates.
    left: Arc<Mutex<Option<(Instant, Duration)>>>,
}

/// How often a plain (non-terminal) progress line is printed.
const PLAIN_EVERY: Duration = Duration::from_secs(10);
/// How often the bar redraws while nothing is counted (the clocks keep moving).
const TICK: Duration = Duration::from_millis(500);
const BAR_TEMPLATE: &str =
    "{prefix} [{bar:16}] {pos}/~{len} · {elapsed_precise} · {left} left · {wide_msg}";

/// The time left now, counted down from the last estimate (never below a second while the
/// phase runs: the estimate was short, not the work done).
fn left_now(left: &Mutex<Option<(Instant, Duration)>>) -> Option<Duration> {
    let (at, estimate) = (*left.lock().ok()?)?;
    Some(
        estimate
            .saturating_sub(at.elapsed())
            .max(Duration::from_secs(1)),
    )
}

fn terminal_bar(phase: &'static str, left: Arc<Mutex<Option<(Instant, Duration)>>>) -> ProgressBar {
    let style = ProgressStyle::with_template(BAR_TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "left",
            move |_: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                let text = left_now(&left).map_or_else(|| "—".to_string(), clock);
                let _ = out.write_str(&text);
            },
        )
        .progress_chars("#>.");
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
        .with_style(style)
        .with_prefix(phase);
    bar.enable_steady_tick(TICK);
    if let Ok(mut shown) = BAR.lock() {
        *shown = Some(bar.clone());
    }
    bar
}

impl Progress {
    /// A phase of `total` items, unless the caller's estimate says otherwise later.
    pub fn new(phase: &'static str, total: usize) -> Self {
        let now = Instant::now();
        let drawn = verbosity() >= Verbosity::Normal && std::io::stderr().is_terminal();
        let left = Arc::new(Mutex::new(None));
        Progress {
            phase,
            done: 0,
            to_go: total,
            started: now,
            bar: drawn.then(|| terminal_bar(phase, left.clone())),
            last_plain: now,
            left,
        }
    }

    /// The next item starts: `current` names it, `to_go` items are expected after those done
    /// (this one included), and `left_s` is the caller's estimate of their time, if it has one.
    pub fn begin(&mut self, current: &str, to_go: usize, left_s: Option<f64>) {
        self.to_go = to_go;
        let left = left_s
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
            .or_else(|| self.by_pace());
        if let Ok(mut shown) = self.left.lock() {
            *shown = left.map(|l| (Instant::now(), l));
        }
        self.show(current);
    }

    /// The item begun last is done.
    pub fn end_item(&mut self) {
        self.done += 1;
        self.to_go = self.to_go.saturating_sub(1);
    }

    /// What is left at the pace so far.
    fn by_pace(&self) -> Option<Duration> {
        (self.done > 0).then(|| {
            self.started
                .elapsed()
                .mul_f64(self.to_go as f64 / self.done as f64)
        })
    }

    fn show(&mut self, current: &str) {
        if verbosity() < Verbosity::Normal {
            return;
        }
        if let Some(bar) = &self.bar {
            bar.set_length((self.done + self.to_go) as u64);
            bar.set_position(self.done as u64);
            bar.set_message(format!("now {current}"));
            return;
        }
        if self.last_plain.elapsed() >= PLAIN_EVERY {
            self.last_plain = Instant::now();
            let left = left_now(&self.left).map_or_else(|| "—".to_string(), clock);
            eprintln!(
                "formatbench: {} {} done, ~{} to go, {} elapsed, about {left} left; now {current}",
                self.phase,
                self.done,
                self.to_go,
                clock(self.started.elapsed())
            );
        }
    }

    /// The phase ended: the bar goes; a log gets one line of what was done, and in how long.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
            if let Ok(mut shown) = BAR.lock() {
                *shown = None;
            }
        } else if verbosity() >= Verbosity::Normal {
            eprintln!(
                "formatbench: {} {} done in {}",
                self.phase,
                self.done,
                clock(self.started.elapsed())
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_counts_down_from_the_estimate_and_never_reaches_zero_early() {
        let left = Mutex::new(None);
        assert_eq!(left_now(&left), None);
        *left.lock().unwrap() = Some((Instant::now(), Duration::from_secs(90)));
        let now = left_now(&left).unwrap();
        assert!(now <= Duration::from_secs(90) && now > Duration::from_secs(85));
        let past = Instant::now() - Duration::from_secs(120);
        *left.lock().unwrap() = Some((past, Duration::from_secs(90)));
        assert_eq!(left_now(&left), Some(Duration::from_secs(1)));
        // Without an estimate of the caller's, the pace so far: 2 of 6 done in the time taken.
        let mut p = Progress::new("test", 6);
        p.started = Instant::now() - Duration::from_secs(20);
        p.done = 2;
        p.to_go = 4;
        let pace = p.by_pace().unwrap().as_secs_f64();
        assert!((39.0..=41.0).contains(&pace), "{pace}");
    }

    #[test]
    fn clock_formats_minutes_and_seconds() {
        assert_eq!(clock(Duration::from_secs(75)), "01:15");
        assert_eq!(clock(Duration::from_secs(5)), "00:05");
    }
}
