//! Where an append's time goes, call by call: the open, the append (the new partition written
//! and closed) and its commit, on a table of all but the last 1 % of an Arrow IPC file's rows
//! (committed before, as the benchmark's `append` prepares it), beside a full write of that
//! table. The benchmark reports a mean over calls; this shows the calls one by one.
//!
//! `cargo run --release -p ipc-parts --example append_cost -- SOURCE.arrow [INDEX] [THREADS]`

use arrow::array::RecordBatch;
use arrow::compute::concat_batches;
use ipc_parts::{Table, WriteOptions};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let source = args
        .next()
        .ok_or("usage: append_cost SOURCE.arrow [INDEX] [THREADS]")?;
    let index = args.next().unwrap_or_else(|| "index".into());
    let threads: usize = args.next().map_or(Ok(2), |t| t.parse())?;
    let reader = arrow::ipc::reader::FileReader::try_new(std::fs::File::open(&source)?, None)?;
    let schema = reader.schema();
    let batches = reader.collect::<Result<Vec<RecordBatch>, _>>()?;
    let all = concat_batches(&schema, &batches)?;
    let n = all.num_rows();
    let cut = n - n / 100;
    let (base, new) = (all.slice(0, cut), all.slice(cut, n - cut));
    let options = WriteOptions {
        index: Some(index),
        threads,
        replace: true,
        ..Default::default()
    };
    let scratch = tempfile_dir()?;
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    for round in 0..8 {
        let dir = scratch.join(format!("t{round}"));
        let t = Instant::now();
        let pending = Table::create(&dir, schema.clone(), std::slice::from_ref(&base), &options)?;
        let write = ms(t);
        // The benchmark's append starts from a table at rest on disk.
        pending.commit()?;
        let t = Instant::now();
        let table = Table::open(&dir)?;
        let open = ms(t);
        let t = Instant::now();
        let pending = table.append(std::slice::from_ref(&new), threads)?;
        let append = ms(t);
        let footprint = pending.footprint().clone();
        let t = Instant::now();
        pending.commit()?;
        let commit = ms(t);
        println!(
            "round {round}: write {write:.1} ms · open {open:.3} ms · append {append:.3} ms ({} bytes, {:?} rewritten) · commit {commit:.1} ms · (open+append)/write {:.3}",
            footprint.bytes_written,
            footprint.partitions_rewritten,
            (open + append) / write
        );
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::remove_dir_all(&scratch)?;
    Ok(())
}

fn tempfile_dir() -> std::io::Result<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("append-cost-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}
