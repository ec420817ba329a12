//! Named parts of a measured operation, timed from inside it: a backend marks the moment its
//! first batch arrives ([`first_batch`]) or adds the time of a part it runs apart
//! ([`add`]: a session's table initialization, planning and execution). The measuring loop
//! starts each call's clock ([`begin_call`]) and collects the totals when it ends
//! ([`take`]); the answer carries them as phases beside `op`.
//!
//! A worker measures one operation at a time on one thread, so one process-wide record is
//! enough; a mark outside a measurement is kept until the next one starts, then discarded.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The phase a first-batch mark adds to: from the call's start to the first batch the reader
/// hands back (time to first batch).
pub const FIRST_BATCH: &str = "first_batch";

#[derive(Default)]
struct Record {
    call_start: Option<Instant>,
    first_batch_marked: bool,
    totals: BTreeMap<&'static str, f64>,
}

static RECORD: Mutex<Record> = Mutex::new(Record {
    call_start: None,
    first_batch_marked: false,
    totals: BTreeMap::new(),
});

/// Whether this call's first batch is marked: readers mark every batch, so all but the first
/// mark of a call return after one atomic load, without the lock.
static FIRST_BATCH_MARKED: AtomicBool = AtomicBool::new(true);

impl Record {
    fn begin_call(&mut self) {
        self.call_start = Some(Instant::now());
        self.first_batch_marked = false;
    }

    fn mark_first_batch(&mut self) {
        if let (Some(start), false) = (self.call_start, self.first_batch_marked) {
            self.first_batch_marked = true;
            self.add(FIRST_BATCH, start.elapsed().as_secs_f64());
        }
    }

    fn add(&mut self, name: &'static str, seconds: f64) {
        *self.totals.entry(name).or_default() += seconds;
    }

    fn totals(&self) -> Vec<(String, f64)> {
        self.totals
            .iter()
            .map(|(name, seconds)| (name.to_string(), *seconds))
            .collect()
    }
}

fn with<T>(f: impl FnOnce(&mut Record) -> T) -> T {
    // A poisoned lock only means a panic elsewhere; the record is still plain data.
    let mut record = RECORD.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut record)
}

/// Discards what earlier marks left: called when a measurement starts.
pub fn reset() {
    with(|r| *r = Record::default());
    FIRST_BATCH_MARKED.store(true, Ordering::Release);
}

/// Starts a call's clock (the measuring loop calls this before each call).
pub fn begin_call() {
    with(Record::begin_call);
    FIRST_BATCH_MARKED.store(false, Ordering::Release);
}

/// Marks the first batch of this call: the time since the call started goes to
/// [`FIRST_BATCH`]. Later marks in the same call are ignored. A reader decoding on several
/// threads marks the first batch any of them decoded.
pub fn first_batch() {
    // A load first: every later batch of the call, on any thread, stops at it.
    if FIRST_BATCH_MARKED.load(Ordering::Acquire) || FIRST_BATCH_MARKED.swap(true, Ordering::AcqRel)
    {
        return;
    }
    with(Record::mark_first_batch);
}

/// Adds `seconds` to the phase `name` (summed over the calls of a sample).
pub fn add(name: &'static str, seconds: f64) {
    with(|r| r.add(name, seconds));
}

/// Times `f` as part of the phase `name`.
pub fn timed<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let value = f();
    add(name, start.elapsed().as_secs_f64());
    value
}

/// The totals of every phase since [`reset`], kept (the measuring loop reads them after the
/// first call).
pub fn snapshot() -> Vec<(String, f64)> {
    with(|r| r.totals())
}

/// The totals of every phase since [`reset`], emptied.
pub fn take() -> Vec<(String, f64)> {
    FIRST_BATCH_MARKED.store(true, Ordering::Release);
    with(|r| {
        let totals = r.totals();
        *r = Record::default();
        totals
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The record itself, not the process's: other tests measure in parallel.
    #[test]
    fn first_batch_counts_once_per_call_and_phases_sum_over_calls() {
        let mut record = Record::default();
        // A mark before any call adds nothing.
        record.mark_first_batch();
        assert!(record.totals().is_empty());
        for _ in 0..3 {
            record.begin_call();
            record.mark_first_batch();
            record.mark_first_batch();
            record.add("plan", 0.5);
        }
        let phases: BTreeMap<String, f64> = record.totals().into_iter().collect();
        assert_eq!(phases.get("plan"), Some(&1.5));
        let first = phases.get(FIRST_BATCH).copied().unwrap_or(-1.0);
        assert!((0.0..1.0).contains(&first), "{first}");
    }
}
