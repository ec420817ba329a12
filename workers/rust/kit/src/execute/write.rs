//! Write jobs: the source loaded (and put in the layout) before the timer, each call writing
//! fresh files, staged commits timed after it, then the size of what was written and, for the runner, what it reads back.

use super::output::{self, to_batches};
use super::read::in_order;
use super::{context, run_commits, stored_schema};
use crate::backend::{Backend, BackendError, Commit, Request, Uploader};
use crate::layout::{self, ArrayForm};
use crate::{source, KitError};
use formatbench_protocol::{measure_repeated, Answer, Job, Phase};
use std::path::Path;
use std::time::Instant;

/// Directories that repeated write calls use inside the artifact directory.
const REPEAT_PREFIX: &str = ".repeat-";

/// Writes run without transparent huge pages unless the backend keeps them
/// ([`Backend::writes_on_huge_pages`]); the source, loaded before, keeps them. The allocator's
/// arenas are 2 MiB-aligned, so with THP the first touch of each short-lived encoding buffer
/// zeroes a whole huge page: a CSV write (100k × 61, 2 calls per sample) took 369–380 ms with
/// them and 293–295 ms without. Parquet's writer is the exception: its page buffers are grown
/// by copying them whole, capacity included (realloc cannot know what was written), so pages
/// nobody wrote are read and the zero page is mapped there; when that memory is handed out
/// again, every first write is a copy-on-write fault with a TLB shootdown on the other CPUs.
/// On huge pages its write took ~80 page faults over two calls instead of ~11,700, and 91 ms
/// instead of 115–122. Reads keep them: they stream into large long-lived buffers, where huge
/// pages save faults and TLB misses.
fn huge_pages(keep: bool) -> String {
    let system = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        .ok()
        .and_then(|modes| {
            let start = modes.find('[')? + 1;
            let end = start + modes[start..].find(']')?;
            Some(modes[start..end].to_string())
        });
    let system_default = match system {
        Some(mode) => format!("system default ({mode})"),
        None => "system default".into(),
    };
    // Set either way: a process that ran another backend's write before (a test's) may have
    // them off.
    // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process.
    let done = unsafe {
        libc::prctl(
            libc::PR_SET_THP_DISABLE,
            libc::c_ulong::from(!keep),
            0,
            0,
            0,
        )
    };
    if done == 0 && !keep {
        "off".into()
    } else {
        system_default
    }
}

pub(super) fn write<E: BackendError>(
    job: &Job,
    backend: &dyn Backend<Error = E>,
    uploader: Option<&dyn Uploader>,
) -> Result<Answer, E> {
    let load_start = Instant::now();
    let (source_schema, batches) = source::read_all(&job.source)?;
    // A sweep point sorted by a column: the table is re-ordered before the timer, as loading
    // is, so its file holds the same rows in that column's order.
    let sorted_by = formatbench_protocol::rewrite::sort_by(&job.params);
    let batches = match sorted_by {
        Some(column) => {
            if source_schema.index_of(column).is_err() {
                return Err(KitError::Invalid(format!("no column '{column}' to sort by")).into());
            }
            source::sort_by(batches, column)?
        }
        None => batches,
    };
    // The array layout is the in-memory table the write starts from, as a wide one is.
    let (form, schema) = stored_schema(job, backend, &source_schema)?;
    let batches = match form {
        Some(form) => batches
            .iter()
            .map(|b| layout::to_array_as(form, &schema, b))
            .collect::<Result<Vec<_>, _>>()?,
        None => batches,
    };
    let feature_names = layout::feature_names(&source_schema);
    let huge_pages = huge_pages(backend.writes_on_huge_pages());
    let load_s = load_start.elapsed().as_secs_f64();
    backend.can_store(&schema).map_err(KitError::Unsupported)?;
    // A write always writes local files (and, to object storage, uploads them): its backend
    // calls, and the read-back of what it wrote, see no remote.
    let ctx = crate::backend::Context {
        remote: None,
        ..context(job, &schema)
    };
    // Layouts that drop the feature names keep them beside the data (the bare matrix's own
    // writer already does).
    let write_all = |dir: &Path| -> Result<Option<Commit<E>>, E> {
        let commit = backend.write_staged(&ctx, &batches, dir)?;
        if let Some(ArrayForm::FixedList | ArrayForm::PackedText) = form {
            layout::write_sidecar(dir, &feature_names)?;
        }
        Ok(commit)
    };
    if job.artifact.exists() {
        std::fs::remove_dir_all(&job.artifact)?;
    }
    std::fs::create_dir_all(&job.artifact)?;
    // Every call writes fresh files, as the first does: rewriting the same path would time the
    // truncation of the previous copy too. Repeats go to directories removed after the timer.
    let mut call = 0usize;
    // Staged commits wait outside the timer; each still runs, timed as the `commit` phase.
    let mut commits = Vec::new();
    let ((), measured) = measure_repeated(job.calls(), || {
        call += 1;
        let dir = match call {
            1 => job.artifact.clone(),
            _ => job.artifact.join(format!("{REPEAT_PREFIX}{call}")),
        };
        std::fs::create_dir_all(&dir)?;
        let upload = uploader.zip(job.storage.as_ref());
        match (write_all(&dir)?, upload) {
            // What goes to the bucket is the table as committed (a store's metadata renamed
            // into place); the upload, not a local sync, makes it durable there.
            (Some(commit), Some(_)) => commit(false)?,
            (Some(commit), None) => commits.push(commit),
            (None, _) => {}
        }
        // A measured write to object storage ends when its upload has: every call uploads
        // what it wrote (a repeat overwrites the same objects, as a rewrite would). A prepared
        // artifact is uploaded by the runner, untimed.
        if let Some((uploader, target)) = upload {
            uploader.upload(&dir, target)?;
        }
        Ok::<_, E>(())
    })?;
    let commit_s = run_commits(commits)?;
    for entry in std::fs::read_dir(&job.artifact)? {
        let path = entry?.path();
        if path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(REPEAT_PREFIX))
        {
            std::fs::remove_dir_all(&path)?;
        }
    }
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    drop(batches);

    let mut answer = Answer::ok().with_measurement(&measured);
    answer.phases.insert(
        0,
        Phase {
            name: "load".into(),
            seconds: load_s,
        },
    );
    if let Some(seconds) = commit_s {
        answer.phases.push(Phase {
            name: "commit".into(),
            seconds,
        });
    }
    answer.rows = Some(rows as u64);
    answer.columns = Some(schema.fields().len() as u64);
    answer.size_bytes = Some(output::dir_size(&job.artifact)?);
    // What the write produced is read back with the same backend, after the timer, for the
    // runner to check.
    if let Some(out) = &job.verify_out {
        let (loaded, _) = backend.read(&ctx, &job.artifact, Request::All)?;
        let batches = in_order(backend, job, to_batches(loaded)?)?;
        let wide = form.map(|_| source_schema.as_ref());
        output::write_verify_output(out, &schema, batches, wide)?;
    }
    answer.settings = backend.settings(&ctx, &job.artifact);
    if let Some(column) = sorted_by {
        answer.settings.insert(
            "sorted_by".into(),
            format!("{column} (ascending, nulls first; sorted before the write)"),
        );
    }
    answer
        .settings
        .insert("transparent_huge_pages".into(), huge_pages);
    Ok(answer)
}
