# One job: check it, load what the operation needs before the timer, time only the operation,
# then write the result the runner checks, and answer (docs/protocol.md §3–6).

REPEAT_PREFIX <- ".repeat-"

main <- function(args) {
  if (identical(args, "--describe")) return(describe())
  if (length(args) == 2L && args[1] == "--job") return(run_job(args[2]))
  message("usage: Rscript worker.R --describe | --job PATH")
  2L
}

run_job <- function(job_path) {
  job <- tryCatch(jsonlite::fromJSON(job_path, simplifyVector = FALSE), error = function(e) {
    message("worker error: cannot read the job ", job_path, ": ", conditionMessage(e))
    NULL
  })
  if (is.null(job)) return(3L)
  if (!identical(as.integer(job$protocol), PROTOCOL_VERSION)) {
    message("worker error: the job speaks protocol ", job$protocol, ", this worker speaks ",
            PROTOCOL_VERSION)
    return(3L)
  }
  # A library error inside a valid job is an answer, not a crash.
  answer <- tryCatch(execute(job), unsupported = function(e) {
    list(status = "unsupported", reason = substr(conditionMessage(e), 1, 2000))
  }, error = function(e) {
    list(status = "failed", reason = substr(trimws(conditionMessage(e)), 1, 2000))
  })
  tryCatch({
    write_answer(job$answer, answer)
    0L
  }, error = function(e) {
    message("worker error: cannot write the answer: ", conditionMessage(e))
    3L
  })
}

# Passes the thread cap to every loaded library that takes one; returns what was capped.
cap_threads <- function(cap) {
  caps <- character()
  if (isNamespaceLoaded("data.table")) {
    data.table::setDTthreads(cap)
    caps <- c(caps, paste0("data.table setDTthreads=", cap))
  }
  if (isNamespaceLoaded("fst")) {
    fst::threads_fst(cap)
    caps <- c(caps, paste0("fst threads_fst=", cap))
  }
  if (isNamespaceLoaded("arrow")) {
    arrow::set_cpu_count(cap)
    arrow::set_io_thread_count(max(cap, 2L))
    caps <- c(caps, paste0("arrow set_cpu_count=", cap))
  }
  c(caps, paste0("vroom/qs num_threads=", cap))
}

request_of <- function(job) {
  params <- job$params
  switch(job$op,
    read = , scan = list(kind = "all"),
    project = list(kind = "columns", columns = unlist(params$columns)),
    range = list(kind = "range", range = params$range),
    take = stop(unsupported(job$backend, " has no read of rows at given positions")))
}

execute <- function(job) {
  backend <- find_backend(job$backend)
  if (is.null(backend)) return(list(status = "failed", reason = paste0("unknown backend '", job$backend, "'")))
  op <- job$op
  if (!(op %in% backend$ops) && !(op == "write" && isTRUE(job$prepare))) {
    stop(unsupported(backend$name, " does not do '", op, "' natively"))
  }
  if (!identical(job$target, backend$target)) {
    stop(unsupported(backend$name, " does not read into or write from '", job$target, "'"))
  }
  if (!identical(job$layout, "wide")) {
    stop(unsupported("layout '", job$layout, "' is not implemented by ", backend$name))
  }
  if (!is.null(job$storage)) {
    stop(unsupported(local_files_only(backend$name)))
  }
  as_given <- identical(job$profile, AS_GIVEN) && !is.null(backend$given)
  if (as_given && identical(job$op, "write")) {
    stop(unsupported(backend$name, " does not write the as-given file: it is the user's, read as it is"))
  }
  if (!(job$profile %in% backend$profiles) && !as_given) {
    return(list(status = "failed", reason = paste0(backend$name, " has no profile '", job$profile, "'")))
  }
  if (is.null(job$source_text)) {
    return(list(status = "failed", reason = "the job has no source_text: the R worker reads the source as CSV"))
  }
  missing <- Filter(Negate(installed), backend$packages)
  if (length(missing) > 0) {
    return(list(status = "failed", reason = paste0("R package ", paste(missing, collapse = ", "), " is not installed")))
  }
  # Imports are start-up: every package the backend uses is loaded before the timer.
  for (package in unique(c("data.table", "bit64", backend$packages))) {
    if (package != "base") loadNamespace(package)
  }
  cap <- max(as.integer(job$threads), 1L)
  caps <- cap_threads(cap)
  # The source's path is there for backends whose artifact is the exchange CSV itself.
  ctx <- list(profile = job$profile, threads = cap, schema = read_schema(job$source_text),
              source_text = job$source_text)
  min_s <- as.numeric(job$min_sample_s %||0% 0)
  max_calls <- as.integer(job$max_calls %||0% 1000)
  # At least this many calls: 2 asks for the warm figure (a second call in this process).
  min_calls <- as.integer(job$min_calls %||0% 1)
  settings <- list(library = paste(vapply(setdiff(backend$packages, "base"), function(p) {
    paste(p, package_version_text(p))
  }, ""), collapse = " "), r = paste(R.version$major, R.version$minor, sep = "."),
  threads = as.character(cap), thread_caps = paste(caps, collapse = "; "), target = job$target)
  if (op == "write") {
    return(execute_write(job, backend, ctx, settings, min_s, max_calls, min_calls))
  }
  request <- request_of(job)
  artifact <- job$artifact
  scan <- op == "scan"
  read <- function(call) {
    result <- backend$read(artifact, request, ctx)
    if (scan) result$fold <- fold_values(result$value)
    result
  }
  measured <- measure(read, min_s, max_calls, min_calls)
  result <- measured$value
  answer <- c(list(status = "ok"), measured$fields,
              list(rows = nrow(result$value), columns = ncol(result$value),
                   result_bytes = as.numeric(utils::object.size(result$value))))
  settings$method <- result$method
  if (scan) settings$scan_fold <- sprintf("%.17g", result$fold)
  answer$settings <- settings
  if (!is.null(job$verify_out)) {
    write_returned(returned_columns(result$value), job$verify_out, cap)
  }
  answer
}

`%||0%` <- function(a, b) if (is.null(a)) b else a

execute_write <- function(job, backend, ctx, settings, min_s, max_calls, min_calls) {
  load_start <- now()
  data <- load_source(job$source_text, ctx$threads)
  if (backend$target == "data.frame") data <- as.data.frame(data)
  load_s <- now() - load_start
  artifact <- job$artifact
  unlink(artifact, recursive = TRUE)
  dir.create(artifact, recursive = TRUE)
  write <- function(call) {
    directory <- artifact
    if (call > 1L) {
      directory <- file.path(artifact, paste0(REPEAT_PREFIX, call))
      dir.create(directory)
    }
    backend$write(data, directory, ctx)
    NULL
  }
  measured <- measure(write, min_s, max_calls, min_calls)
  for (entry in list.files(artifact, all.files = TRUE, no.. = TRUE)) {
    if (startsWith(entry, REPEAT_PREFIX)) unlink(file.path(artifact, entry), recursive = TRUE)
  }
  fields <- measured$fields
  fields$phases <- c(list(list(name = "load", seconds = load_s)), fields$phases)
  answer <- c(list(status = "ok"), fields,
              list(rows = nrow(data), columns = ncol(data),
                   size_bytes = sum(file.size(files_under(artifact)))))
  rm(data)
  # What the write left, read back after the timer for the runner to check.
  if (!is.null(job$verify_out)) {
    back <- backend$read(artifact, list(kind = "all"), ctx)$value
    write_returned(returned_columns(back), job$verify_out, ctx$threads)
  }
  settings$method <- "write"
  answer$settings <- settings
  answer
}
