# formatbench's R worker: `Rscript worker.R --describe | --job PATH` (docs/protocol.md §6a).
# The files it sources sit beside it; formatbench embeds them and writes them out on use.
local({
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  here <- dirname(normalizePath(sub("^--file=", "", file_arg[1])))
  for (part in c("protocol.R", "measure.R", "exchange.R", "backends.R", "job.R")) {
    source(file.path(here, "formatbench", part), local = globalenv())
  }
})
quit(status = main(commandArgs(trailingOnly = TRUE)), save = "no")
