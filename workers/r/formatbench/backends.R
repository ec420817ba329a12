# The R peers, each prefixed `r-`. A backend names its packages (availability and version come
# from the installed library), profiles, operations, the object it reads into (`target`), and
# its write and read functions. `read` returns list(value = the object, method = how).

NOT_PACKAGED <- " (it is not packaged for Debian 12; install it from CRAN to use it)"

# `given`: list(format, file) when it reads files of that format from any writer as they are
# (a user's file then gets an `as-given` competitor, read in place and never written).
# `format`: the format of its files (docs/protocol.md lists the names), by default `given`'s.
r_backend <- function(name, packages, about, ops, target, write, read, profiles = "default",
                      lossy = FALSE, install_hint = "", given = NULL, format = given$format) {
  list(name = name, packages = packages, about = about, ops = ops, target = target,
       write = write, read = read, profiles = profiles, lossy = lossy,
       install_hint = install_hint, given = given, format = format)
}

# The profile of a competitor that reads the user's file as given (formatbench_protocol).
AS_GIVEN <- "as-given"
GIVEN_CSV <- list(format = "csv", file = "data.csv")

unsupported <- function(...) {
  structure(class = c("unsupported", "error", "condition"),
            list(message = paste0(...), call = NULL))
}

# Rows [start, end) of a `range` request by position; other requests are refused.
position_rows <- function(request, backend) {
  range <- request$range
  if (!identical(range$by, "position")) {
    stop(unsupported(backend, " reads rows by position only, not by index value"))
  }
  list(start = as.numeric(range$start), end = as.numeric(range$end))
}

csv_file <- function(dir) file.path(dir, "data.csv")

need_yaml <- function(ctx) {
  if (ctx$profile == "yaml" && !installed("yaml")) {
    stop("the yaml profile needs R package yaml (apt-get install r-cran-yaml)")
  }
  ctx$profile == "yaml"
}

read_data_table <- function(dir, request, ctx) {
  yaml <- need_yaml(ctx)
  # Leading and trailing spaces are data: fread strips them from unquoted fields by default.
  args <- list(csv_file(dir), nThread = ctx$threads, yaml = yaml, strip.white = FALSE,
               showProgress = FALSE)
  method <- "fread"
  if (request$kind == "columns") {
    args$select <- request$columns
    method <- "fread select="
  } else if (request$kind == "range") {
    if (yaml) stop(unsupported("fread's yaml header and skip= do not combine"))
    rows <- position_rows(request, "r-data.table")
    # skip= counts the header line too, so the names come from reading no rows.
    args$col.names <- names(data.table::fread(csv_file(dir), nrows = 0L, strip.white = FALSE))
    args$skip <- rows$start + 1
    args$nrows <- rows$end - rows$start
    args$header <- FALSE
    method <- "fread skip= nrows="
  }
  list(value = do.call(data.table::fread, args), method = method)
}

vroom_types <- function(ctx) {
  types <- lapply(ctx$schema, function(col) {
    switch(col$type,
      int8 = , int16 = , int32 = , uint8 = , uint16 = vroom::col_integer(),
      int64 = , uint32 = , uint64 = vroom::col_big_integer(),
      float32 = , float64 = vroom::col_double(),
      bool = vroom::col_logical(),
      categorical = vroom::col_factor(),
      date32 = vroom::col_date(),
      vroom::col_character())
  })
  timestamps <- grepl("^timestamp", vapply(ctx$schema, function(col) col$type, ""))
  types[timestamps] <- list(vroom::col_datetime())
  names(types) <- vapply(ctx$schema, function(col) col$name, "")
  do.call(vroom::cols, types)
}

read_vroom <- function(dir, request, ctx) {
  # The column types come from the source schema, as a user who knows the data passes them:
  # vroom's guess reads 64-bit integers as doubles.
  # vroom trims spaces around unquoted fields by default; they are data.
  args <- list(csv_file(dir), delim = ",", col_types = vroom_types(ctx), num_threads = ctx$threads,
               altrep = ctx$profile != "eager", trim_ws = FALSE, progress = FALSE,
               show_col_types = FALSE)
  method <- "vroom"
  if (request$kind == "columns") {
    args$col_select <- request$columns
    method <- "vroom col_select="
  } else if (request$kind == "range") {
    rows <- position_rows(request, "r-vroom")
    args$col_names <- names(args$col_types$cols)
    args$skip <- rows$start + 1
    args$n_max <- rows$end - rows$start
    method <- "vroom skip= n_max="
  }
  list(value = do.call(vroom::vroom, args), method = method)
}

single_file <- function(extension) function(dir) file.path(dir, paste0("data.", extension))

# r-selftest-variant's profiles: the representations R's exchange can return the same values
# in. `factors`: every string column as a factor (the runner sees a dictionary); `strings`:
# every factor as character (the runner sees plain strings). The exchange writes one CSV, so
# there is no batch split to vary.
VARIANT_PROFILES <- c("factors", "strings")

# `table` (a data.table) in the representation `profile` names, its values unchanged.
variant_of <- function(table, profile) {
  for (name in names(table)) {
    x <- table[[name]]
    if (profile == "factors" && is.character(x)) {
      data.table::set(table, j = name, value = factor(x))
    } else if (profile == "strings" && is.factor(x)) {
      data.table::set(table, j = name, value = as.character(x))
    }
  }
  table
}

BACKENDS <- list(
  r_backend(
    "r-data.table", c("data.table", "bit64"),
    "data.table fwrite/fread CSV; profile yaml adds fwrite's YAML header of column types",
    ops = c("write", "read", "scan", "project", "range"), target = "data.table",
    profiles = c("default", "yaml"), lossy = TRUE, given = GIVEN_CSV,
    write = function(df, dir, ctx) {
      data.table::fwrite(df, csv_file(dir), nThread = ctx$threads, yaml = need_yaml(ctx),
                         dateTimeAs = "ISO", showProgress = FALSE)
    },
    read = read_data_table),
  r_backend(
    "r-vroom", c("vroom", "bit64"),
    "vroom CSV; profile default keeps vroom's lazy ALTREP columns, eager materializes them",
    ops = c("write", "read", "scan", "project", "range"), target = "tibble",
    profiles = c("default", "eager"), lossy = TRUE, given = GIVEN_CSV,
    write = function(df, dir, ctx) {
      vroom::vroom_write(df, csv_file(dir), delim = ",", num_threads = ctx$threads,
                         progress = FALSE)
    },
    read = read_vroom),
  r_backend(
    "r-rds", c("base"),
    "base R saveRDS/readRDS; profile default is gzip, uncompressed writes none",
    ops = c("write", "read", "scan"), target = "data.frame", format = "rds",
    profiles = c("default", "uncompressed"),
    write = function(df, dir, ctx) {
      saveRDS(as.data.frame(df), single_file("rds")(dir), compress = ctx$profile == "default")
    },
    read = function(dir, request, ctx) {
      list(value = readRDS(single_file("rds")(dir)), method = "readRDS")
    }),
  r_backend(
    "r-qs", c("qs"), "qs qsave/qread (preset fast)",
    ops = c("write", "read", "scan"), target = "data.frame", install_hint = NOT_PACKAGED,
    format = "qs",
    write = function(df, dir, ctx) {
      qs::qsave(as.data.frame(df), single_file("qs")(dir), preset = "fast",
                nthreads = ctx$threads)
    },
    read = function(dir, request, ctx) {
      list(value = qs::qread(single_file("qs")(dir), nthreads = ctx$threads), method = "qread")
    }),
  r_backend(
    "r-fst", c("fst"), "fst write_fst/read_fst (compress 50)",
    ops = c("write", "read", "scan", "project", "range"), target = "data.frame",
    install_hint = NOT_PACKAGED, format = "fst",
    write = function(df, dir, ctx) {
      fst::threads_fst(ctx$threads)
      fst::write_fst(as.data.frame(df), single_file("fst")(dir), compress = 50)
    },
    read = function(dir, request, ctx) {
      fst::threads_fst(ctx$threads)
      path <- single_file("fst")(dir)
      if (request$kind == "columns") {
        return(list(value = fst::read_fst(path, columns = request$columns),
                    method = "read_fst columns="))
      }
      if (request$kind == "range") {
        rows <- position_rows(request, "r-fst")
        return(list(value = fst::read_fst(path, from = rows$start + 1, to = rows$end),
                    method = "read_fst from= to="))
      }
      list(value = fst::read_fst(path), method = "read_fst")
    }),
  r_backend(
    "r-arrow-feather", c("arrow"), "arrow write_feather/read_feather into a data.frame",
    ops = c("write", "read", "scan", "project"), target = "data.frame",
    install_hint = NOT_PACKAGED, format = "arrow-ipc",
    write = function(df, dir, ctx) arrow::write_feather(df, single_file("feather")(dir)),
    read = function(dir, request, ctx) {
      path <- single_file("feather")(dir)
      if (request$kind == "columns") {
        return(list(value = arrow::read_feather(path, col_select = request$columns),
                    method = "read_feather col_select="))
      }
      list(value = arrow::read_feather(path), method = "read_feather")
    }),
  r_backend(
    "r-arrow-parquet", c("arrow"), "arrow write_parquet/read_parquet into a data.frame",
    ops = c("write", "read", "scan"), target = "data.frame", install_hint = NOT_PACKAGED,
    format = "parquet",
    write = function(df, dir, ctx) arrow::write_parquet(df, single_file("parquet")(dir)),
    read = function(dir, request, ctx) {
      list(value = arrow::read_parquet(single_file("parquet")(dir)), method = "read_parquet")
    }),
  # A self-test (hidden from the user's list by its name): the source read back right in
  # another representation, for the verifier to accept (docs/protocol.md, "Equal-value
  # variants"). Its artifact is the exchange CSV itself, read as every job's source is read.
  r_backend(
    "r-selftest-variant", c("data.table", "bit64"),
    "self-test: the exchange source read back right, strings as factors or factors as strings",
    ops = "read", target = "data.table", profiles = VARIANT_PROFILES,
    write = function(df, dir, ctx) {
      copied <- file.copy(c(ctx$source_text, paste0(ctx$source_text, ".schema.json")),
                          c(csv_file(dir), paste0(csv_file(dir), ".schema.json")))
      if (!all(copied)) stop("cannot copy the exchange source into ", dir)
    },
    read = function(dir, request, ctx) {
      if (request$kind != "all") stop(unsupported("r-selftest-variant reads whole tables only"))
      list(value = variant_of(load_source(csv_file(dir), ctx$threads), ctx$profile),
           method = paste0("exchange CSV via fread; variant: ", ctx$profile))
    })
)

find_backend <- function(name) {
  for (backend in BACKENDS) if (backend$name == name) return(backend)
  NULL
}
