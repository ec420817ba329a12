# The protocol's JSON: the job in, the answer and the description out.

PROTOCOL_VERSION <- 1L

# Hand-written so that a missing jsonlite can still be reported as JSON.
json_string <- function(text) {
  text <- gsub("\\\\", "\\\\\\\\", text)
  text <- gsub("\"", "\\\\\"", text)
  text <- gsub("\n", "\\\\n", text)
  paste0("\"", text, "\"")
}

to_json <- function(value) {
  jsonlite::toJSON(value, auto_unbox = TRUE, null = "null", na = "null", digits = NA)
}

write_answer <- function(path, answer) {
  answer <- c(list(protocol = PROTOCOL_VERSION), answer)
  tmp <- paste0(path, ".tmp")
  writeLines(to_json(answer), tmp, useBytes = TRUE)
  if (!file.rename(tmp, path)) stop("cannot move the answer to ", path)
}

installed <- function(package) nzchar(system.file(package = package))

package_version_text <- function(package) {
  if (installed(package)) as.character(utils::packageVersion(package)) else NULL
}

# Why a backend's cells on object storage are unsupported (every R backend's): the runner
# writes no artifact for them.
local_files_only <- function(name) {
  paste0(name, " reads and writes local files only: R's S3 clients (aws.s3, paws, arrow's ",
         "S3FileSystem) are not among the Debian R packages this worker uses")
}

describe <- function() {
  if (!installed("jsonlite")) {
    cat(paste0("{\"worker\":\"r\",\"backends\":[],\"error\":",
               json_string("R package jsonlite is not installed (apt-get install r-cran-jsonlite)"),
               "}\n"))
    return(0L)
  }
  versions <- list(r = paste(R.version$major, R.version$minor, sep = "."))
  entries <- lapply(BACKENDS, function(backend) {
    missing <- Filter(Negate(installed), backend$packages)
    for (package in backend$packages) {
      if (installed(package)) versions[[package]] <<- package_version_text(package)
    }
    entry <- list(name = backend$name, profiles = I(backend$profiles), ops = I(backend$ops),
                  targets = I(backend$target), lossy = backend$lossy, about = backend$about,
                  version = package_version_text(backend$packages[1]), exchange = "csv",
                  object_storage = local_files_only(backend$name))
    if (!is.null(backend$given)) entry$given <- backend$given
    if (!is.null(backend$format)) entry$format <- backend$format
    if (length(missing) > 0) {
      entry$unavailable <- paste0("R package ", paste(missing, collapse = ", "),
                                  " is not installed", backend$install_hint)
    }
    entry
  })
  cat(to_json(list(worker = "r", versions = versions, backends = entries)), "\n")
  0L
}
