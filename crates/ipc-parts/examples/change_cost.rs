//! Where a change's time goes, call by call: the open, the change itself (new partitions
//! written and closed) and its commit, each on a table prepared as the benchmark's changes
//! prepare it (committed before the timer), beside a full write of the same table. The
//! benchmark reports a mean over calls; this shows the calls one by one.
//!
//! - `append`: the last 1 % of the rows, onto a table of the rest;
//! - `insert`: every 100th row (50, 150, …), into a table without them;
//! - `update`: every data column of every 100th row (25, 125, …).
//!
//! `cargo run --release -p ipc-parts --example change_cost -- SOURCE.arrow [INDEX] [THREADS] [CALLS]`

use arrow::array::{BooleanArray, RecordBatch, UInt64Array};
use arrow::compute::{concat_batches, filter_record_batch, take_record_batch};
use ipc_parts::{Table, WriteOptions};
use std::time::Instant;

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: change_cost SOURCE.arrow [INDEX] [THREADS] [CALLS]";
    let source = args.next().ok_or(usage)?;
    let index = args.next().unwrap_or_else(|| "index".into());
    let threads: usize = args.next().map_or(Ok(2), |t| t.parse())?;
    let calls: usize = args.next().map_or(Ok(6), |t| t.parse())?;
    let reader = arrow::ipc::reader::FileReader::try_new(std::fs::File::open(&source)?, None)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<RecordBatch>, _>>()?;
    let all = concat_batches(&schema, &batches)?;
    drop(batches);
    let options = WriteOptions {
        index: Some(index),
        threads,
        replace: true,
        ..Default::default()
    };
    let scratch = std::env::temp_dir().join(format!("change-cost-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for change in ["append", "insert", "update"] {
        let (base, rows) = inputs(change, &all)?;
        for call in 0..calls {
            let dir = scratch.join(format!("{change}-{call}"));
            let t = Instant::now();
            let pending =
                Table::create(&dir, schema.clone(), std::slice::from_ref(&base), &options)?;
            let write = ms(t);
            pending.commit()?;
            let t = Instant::now();
            let table = Table::open(&dir)?;
            let open = ms(t);
            let t = Instant::now();
            let pending = match change {
                "append" => table.append(std::slice::from_ref(&rows), threads)?,
                "insert" => table.insert(std::slice::from_ref(&rows), threads)?,
                _ => table.update(&rows, threads)?,
            };
            let changed = ms(t);
            let footprint = pending.footprint().clone();
            let t = Instant::now();
            pending.commit()?;
            let commit = ms(t);
            println!(
                "{change} {call}: write {write:.1} ms · open {open:.3} ms · {change} {changed:.3} ms ({} bytes, partitions {:?} rewritten) · commit {commit:.1} ms · (open + {change}) ÷ write {:.3}",
                footprint.bytes_written,
                footprint.partitions_rewritten,
                (open + changed) / write
            );
            std::fs::remove_dir_all(&dir)?;
        }
    }
    std::fs::remove_dir_all(&scratch)?;
    Ok(())
}

/// The table a change starts from and the rows it brings, as the benchmark makes them.
fn inputs(change: &str, all: &RecordBatch) -> Result<(RecordBatch, RecordBatch), Error> {
    let n = all.num_rows();
    let every_100th =
        |first: usize| UInt64Array::from_iter_values((first..n).step_by(100).map(|r| r as u64));
    Ok(match change {
        "append" => {
            let cut = n - n / 100;
            (all.slice(0, cut), all.slice(cut, n - cut))
        }
        "insert" => {
            let rows = every_100th(50);
            let mut keep = vec![true; n];
            for &r in rows.values() {
                keep[r as usize] = false;
            }
            (
                filter_record_batch(all, &BooleanArray::from(keep))?,
                take_record_batch(all, &rows)?,
            )
        }
        // The update writes back the values already stored: the store does the same work
        // either way (the benchmark's base holds other values there, to verify the result).
        _ => (all.clone(), take_record_batch(all, &every_100th(25))?),
    })
}
