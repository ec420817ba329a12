# The timed region and the process accounting around it, as in the Rust protocol crate:
# VmHWM reset through clear_refs, CPU from proc.time, faults from /proc/self/stat, context
# switches from /proc/self/status and byte counts from /proc/self/io.

proc_lines <- function(path) tryCatch(readLines(path, warn = FALSE), error = function(e) character())

# `key: value` lines of a /proc file as numbers, for the keys asked.
proc_fields <- function(path, keys) {
  lines <- proc_lines(path)
  out <- list()
  for (line in lines) {
    key <- sub(":.*$", "", line)
    if (key %in% keys) {
      out[[key]] <- as.numeric(strsplit(trimws(sub("^[^:]*:", "", line)), " +")[[1]][1])
    }
  }
  out
}

memory_now <- function() {
  kib <- proc_fields("/proc/self/status", c("VmHWM", "VmRSS", "RssAnon", "RssFile"))
  lapply(kib, function(v) v * 1024)
}

counters_now <- function() {
  cpu <- proc.time()
  stat <- proc_lines("/proc/self/stat")
  # Fields after the command name's closing parenthesis start at field 3 (state); minflt is
  # field 10 and majflt field 12.
  rest <- if (length(stat) > 0) strsplit(sub("^.*\\) ", "", stat[1]), " ")[[1]] else character()
  switches <- proc_fields("/proc/self/status",
                          c("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"))
  io <- proc_fields("/proc/self/io", c("read_bytes", "write_bytes", "rchar", "wchar"))
  c(list(cpu_user_s = cpu[["user.self"]], cpu_sys_s = cpu[["sys.self"]],
         minflt = as.numeric(rest[8]), majflt = as.numeric(rest[10]),
         nvcsw = switches$voluntary_ctxt_switches,
         nivcsw = switches$nonvoluntary_ctxt_switches), io)
}

reset_peak <- function() {
  tryCatch({
    cat("5", file = "/proc/self/clear_refs")
    TRUE
  }, error = function(e) FALSE, warning = function(w) FALSE)
}

now <- function() as.numeric(Sys.time())

cpu_now <- function() {
  cpu <- proc.time()
  cpu[["user.self"]] + cpu[["sys.self"]]
}

# Runs `op` once, then again until the calls together last `min_seconds` and number at least
# `min_calls` (at most `max_calls`); the first call's wall and CPU time are kept apart. The last
# result stays alive until the clock stops, as a caller holds it.
measure <- function(op, min_seconds, max_calls, min_calls = 1L) {
  gc(verbose = FALSE)
  peak_reset <- reset_peak()
  before <- memory_now()
  counters_before <- counters_now()
  start <- now()
  value <- op(1L)
  first_call_s <- now() - start
  calls <- 1L
  first_cpu <- NULL
  first_ended <- NULL
  while (calls < max(max_calls, 1L) && (calls < min_calls || now() - start < min_seconds)) {
    if (is.null(first_cpu)) {
      first_cpu <- cpu_now()
      # When the first call ended (Unix seconds): the object store's count splits there.
      first_ended <- now()
    }
    value <- NULL
    calls <- calls + 1L
    value <- op(calls)
  }
  elapsed <- now() - start
  cpu_end <- cpu_now()
  counters_after <- counters_now()
  after <- memory_now()
  counters <- list()
  for (key in names(counters_after)) {
    if (!is.null(counters_before[[key]]) && !is.na(counters_after[[key]])) {
      counters[[key]] <- max(counters_after[[key]] - counters_before[[key]], 0)
    }
  }
  fields <- list(op_s = elapsed / max(calls, 1L),
                 phases = list(list(name = "op", seconds = elapsed)),
                 calls = calls, first_call_s = first_call_s, counters = counters,
                 peak_scope = if (peak_reset) "operation" else "process",
                 peak_rss_bytes = after$VmHWM, rss_anon_bytes = after$RssAnon,
                 rss_file_bytes = after$RssFile, rss_before_bytes = before$VmRSS)
  cpu_start <- counters_before$cpu_user_s + counters_before$cpu_sys_s
  first_cpu_s <- max((if (is.null(first_cpu)) cpu_end else first_cpu) - cpu_start, 0)
  fields$first_call_cpu_s <- first_cpu_s
  if (calls > 1L) {
    fields$warm_call_s <- max((elapsed - first_call_s) / (calls - 1L), 0)
    fields$warm_call_cpu_s <- max((cpu_end - cpu_start - first_cpu_s) / (calls - 1L), 0)
    fields$first_call_ended_unix_s <- first_ended
  }
  list(value = value, fields = fields)
}

files_under <- function(path) {
  if (!dir.exists(path)) return(if (file.exists(path)) path else character())
  files <- list.files(path, recursive = TRUE, full.names = TRUE, all.files = TRUE)
  sort(files[!grepl("/\\.repeat-", files)])
}
