//! The table-store changes (`append`, `insert`, `update`, FeatherStore's table benchmark),
//! each timed on a table freshly prepared without it, from the source, so the table after the
//! change is the source again.

use super::labels::needs;
use super::run_commits;
use crate::backend::{Backend, BackendError, Change, Commit, Context, Loaded, Request};
use crate::{source, KitError};
use arrow::array::{BooleanArray, RecordBatch, UInt64Array};
use arrow::compute::{concat_batches, filter_record_batch, take, take_record_batch};
use formatbench_protocol::{measure_each, Answer, Job, Op, Phase, RangeSpec};
use std::cell::RefCell;

/// Changes repeat on fresh tables until the 50 ms rule is met, but at most this often: each
/// call's untimed preparation writes the whole table again.
const MAX_CHANGE_CALLS: u64 = 20;
/// The directories inside the artifact where changes run; removed at the end.
const CHANGE_PREFIX: &str = ".change-";

/// The table a change starts from and the rows it brings: all from the source, so the table
/// after the change is the source again.
struct ChangeInputs {
    base: Vec<RecordBatch>,
    rows: Vec<RecordBatch>,
}

fn change_inputs(
    job: &Job,
    ctx: &Context,
    batches: &[RecordBatch],
) -> Result<ChangeInputs, KitError> {
    let n: u64 = batches.iter().map(|b| b.num_rows() as u64).sum();
    if job.op == Op::Append {
        let (start, end) = match job.params.range.as_ref() {
            Some(RangeSpec::Position { start, end }) if *start <= *end && *end <= n => {
                (*start as usize, *end as usize)
            }
            _ => return Err(needs(job, "the appended rows as a range of positions")),
        };
        // The base stays slices of the source as given (mapped: no copy); the rows are
        // copied, so they outlive the source.
        let rows = owned(ctx, &slices(batches, start, end))?;
        return Ok(ChangeInputs {
            base: slices(batches, 0, start),
            rows: vec![rows],
        });
    }
    let all = concat_batches(ctx.schema, batches)?;
    let positions = || -> Result<UInt64Array, KitError> {
        let rows = job
            .params
            .rows
            .as_deref()
            .ok_or_else(|| needs(job, "rows"))?;
        if let Some(bad) = rows.iter().find(|&&r| r >= n) {
            return Err(KitError::Invalid(format!(
                "row {bad} is past the source's {n} rows"
            )));
        }
        Ok(UInt64Array::from(rows.to_vec()))
    };
    Ok(match job.op {
        Op::Insert => {
            let positions = positions()?;
            let mut keep = vec![true; n as usize];
            for p in positions.values() {
                keep[*p as usize] = false;
            }
            ChangeInputs {
                base: vec![filter_record_batch(&all, &BooleanArray::from(keep))?],
                rows: vec![take_record_batch(&all, &positions)?],
            }
        }
        Op::Update => {
            let positions = positions()?;
            let index = ctx.index.ok_or_else(|| needs(job, "an index column"))?;
            // The prepared table holds each updated row's data from the next row; the update
            // puts the source's values back.
            let mut from: Vec<u64> = (0..n).collect();
            for p in positions.values() {
                from[*p as usize] = (p + 1) % n;
            }
            let from = UInt64Array::from(from);
            let columns = all
                .schema()
                .fields()
                .iter()
                .zip(all.columns())
                .map(|(field, column)| match field.name() == index {
                    true => Ok(column.clone()),
                    false => take(column.as_ref(), &from, None),
                })
                .collect::<Result<Vec<_>, _>>()?;
            ChangeInputs {
                base: vec![RecordBatch::try_new(all.schema(), columns)?],
                rows: vec![take_record_batch(&all, &positions)?],
            }
        }
        other => return Err(KitError::Invalid(format!("'{other}' is not a change"))),
    })
}

/// Rows `[start, end)` of `batches`, as zero-copy slices.
fn slices(batches: &[RecordBatch], start: usize, end: usize) -> Vec<RecordBatch> {
    let mut out = Vec::new();
    let mut first = 0;
    for batch in batches {
        let (from, to) = (start.max(first), end.min(first + batch.num_rows()));
        if from < to {
            out.push(batch.slice(from - first, to - from));
        }
        first += batch.num_rows();
    }
    out
}

/// The rows of `batches` in buffers of their own, copied once (a slice would keep the whole
/// source alive).
fn owned(ctx: &Context, batches: &[RecordBatch]) -> Result<RecordBatch, KitError> {
    match batches {
        // `concat_batches` of one batch hands back a slice of it.
        [one] => {
            let every = UInt64Array::from_iter_values(0..one.num_rows() as u64);
            Ok(take_record_batch(one, &every)?)
        }
        _ => Ok(concat_batches(ctx.schema, batches)?),
    }
}

/// Copies the table at `from` to `to` file by file, in the kernel (`copy_file_range`): a
/// fresh table for each call without the process touching its bytes.
fn copy_table(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_table(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Times one change per call on a table prepared (untimed, then written back) without it;
/// each call's commit runs after its timer and is timed as the `commit` phase. The table the
/// last change left is read back for the runner to check.
pub(super) fn change<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
) -> Result<Answer, E> {
    // The source mapped, so the base table is written from the page cache and nothing of it
    // stays in the process: the change's peak memory is its own and the rows it brings.
    let (schema, batches) = source::read_all_mapped(&job.source)?;
    let ctx = &super::context(job, &schema);
    let base_dir = job.artifact.join(format!("{CHANGE_PREFIX}base"));
    let (rows, base_rows) = {
        let inputs = change_inputs(job, ctx, &batches)?;
        if base_dir.exists() {
            std::fs::remove_dir_all(&base_dir)?;
        }
        std::fs::create_dir_all(&base_dir)?;
        if let Some(commit) = backend.write_staged(ctx, &inputs.base, &base_dir)? {
            commit(false)?;
        }
        let base_rows: usize = inputs.base.iter().map(|b| b.num_rows()).sum();
        (inputs.rows, base_rows)
    };
    drop(batches);
    formatbench_protocol::release_freed_memory();
    let change = match job.op {
        Op::Append => Change::Append(&rows),
        Op::Insert => Change::Insert(&rows),
        _ => Change::Update(&rows[0]),
    };
    let dir_of = |call: u64| job.artifact.join(format!("{CHANGE_PREFIX}{call}"));
    let staged: RefCell<Vec<Commit<E>>> = RefCell::new(Vec::new());
    let commit_s = RefCell::new(0.0);
    let finish_staged = || -> Result<(), E> {
        let commits = std::mem::take(&mut *staged.borrow_mut());
        *commit_s.borrow_mut() += run_commits(commits)?.unwrap_or(0.0);
        Ok(())
    };
    let ((), measured) = measure_each(
        formatbench_protocol::Calls {
            max_calls: job.max_calls.min(MAX_CHANGE_CALLS),
            ..job.calls()
        },
        |call| {
            finish_staged()?;
            // The previous call's table is done with: its pages leave the cache.
            if let Some(previous) = call.checked_sub(1).map(dir_of) {
                std::fs::remove_dir_all(&previous)?;
            }
            let dir = dir_of(call);
            if dir.exists() {
                std::fs::remove_dir_all(&dir)?;
            }
            copy_table(&base_dir, &dir)?;
            // A change starts from a table at rest on disk, as a user's would be: otherwise
            // its timed write competes with, and is throttled by, the writeback of the table
            // written just before it.
            formatbench_protocol::write_back_everything();
            Ok::<_, E>(dir)
        },
        |dir| {
            if let Some(commit) = backend.change(ctx, &dir, change)? {
                staged.borrow_mut().push(commit);
            }
            Ok(())
        },
    )?;
    finish_staged()?;
    let last = dir_of(measured.calls.saturating_sub(1));
    let (loaded, _) = backend.read(ctx, &last, Request::All)?;
    let Loaded::Table(result) = loaded else {
        return Err(KitError::Invalid("a change read back as a matrix".into()).into());
    };
    let schema = result
        .first()
        .map_or_else(|| ctx.schema.clone(), |b| b.schema());
    let mut answer = Answer::ok().with_measurement(&measured);
    answer.phases.push(Phase {
        name: "commit".into(),
        seconds: *commit_s.borrow(),
    });
    answer.rows = Some(result.iter().map(|b| b.num_rows() as u64).sum());
    answer.columns = Some(schema.fields().len() as u64);
    answer.settings = backend.settings(ctx, &last);
    answer.settings.insert(
        "method".into(),
        format!(
            "{} of {} rows to a table of {}, on a table prepared without them",
            job.op,
            rows.iter().map(|b| b.num_rows()).sum::<usize>(),
            base_rows
        ),
    );
    if let Some(out) = &job.verify_out {
        source::write_ipc(out, &schema, &result)?;
    }
    std::fs::remove_dir_all(&last)?;
    std::fs::remove_dir_all(&base_dir)?;
    Ok(answer)
}
