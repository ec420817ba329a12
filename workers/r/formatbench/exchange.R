# Data crosses into and out of R as CSV with a typed JSON schema beside it (`<csv>.schema.json`),
# because R has no Arrow reader or writer here. Floats travel as hexadecimal both ways in
# (exact, where R's decimal parsers are off by an ulp now and then) and as 17 significant digits
# out (exact for the runner's correctly rounded parser); nulls are `\N`.

NULL_TEXT <- "\\N"

read_schema <- function(csv) {
  jsonlite::fromJSON(paste0(csv, ".schema.json"), simplifyVector = FALSE)$columns
}

from_text <- function(x, type, name) {
  epoch <- "1970-01-01"
  switch(type,
    int8 = , int16 = , int32 = , uint8 = , uint16 = as.integer(x),
    int64 = , uint32 = , uint64 = bit64::as.integer64(x),
    float32 = , float64 = as.numeric(x),
    bool = as.logical(x),
    utf8 = x,
    categorical = factor(x),
    date32 = as.Date(as.integer(x), origin = epoch),
    "timestamp[s]" = as.POSIXct(as.numeric(x), origin = epoch, tz = "UTC"),
    "timestamp[ms]" = as.POSIXct(as.numeric(x) / 1e3, origin = epoch, tz = "UTC"),
    "timestamp[us]" = as.POSIXct(as.numeric(x) / 1e6, origin = epoch, tz = "UTC"),
    "timestamp[ns]" = as.POSIXct(as.numeric(x) / 1e9, origin = epoch, tz = "UTC"),
    stop("column '", name, "' has type '", type, "', which the R worker cannot load"))
}

# The class fread parses a column of this exchange type as: its own parsers are an order of
# magnitude faster than text columns converted afterwards (R interns every string it reads).
# Timestamps and 64-bit unsigned integers stay text: their values can exceed what fread parses
# exactly.
fread_class <- function(type) {
  switch(type,
    int8 = , int16 = , int32 = , uint8 = , uint16 = , date32 = "integer",
    int64 = , uint32 = "integer64",
    float32 = , float64 = "numeric",
    bool = "logical",
    "character")
}

# A column fread parsed natively, given the R type `from_text` would make of its text.
from_parsed <- function(x, type) {
  if (type == "date32") as.Date(x, origin = "1970-01-01") else x
}

# fread keeps a column as text where a value does not parse as the class asked for (its
# hexadecimal parser, for one, does not take `0x0p+0`), and says so; those columns are then
# converted from their text, which is exact.
fread_typed <- function(csv, classes, threads) {
  withCallingHandlers(
    data.table::fread(csv, colClasses = classes, na.strings = NULL_TEXT, strip.white = FALSE,
                      encoding = "UTF-8", nThread = threads, showProgress = FALSE),
    warning = function(w) {
      if (grepl("Attempt to override column", conditionMessage(w), fixed = TRUE)) {
        invokeRestart("muffleWarning")
      }
    })
}

# Whether fread keeps a quoted field's doubled quotes as they are: data.table 1.14 reads the
# field "a ""b""" as `a ""b""`, where the CSV the runner writes (RFC 4180) means `a "b"`.
# Asked of fread once, so that a data.table that undoes them is left alone.
fread_keeps_doubled_quotes <- local({
  answer <- NULL
  function() {
    if (is.null(answer)) {
      probe <- data.table::fread(text = 'x\n"a""b"\n', colClasses = "character",
                                 showProgress = FALSE)
      answer <<- identical(probe$x, 'a""b')
    }
    answer
  }
})

# The source as a data.table with R's types: integer64 for 64-bit integers, POSIXct, Date.
load_source <- function(csv, threads) {
  schema <- read_schema(csv)
  names <- vapply(schema, function(col) col$name, "")
  wanted <- vapply(schema, function(col) fread_class(col$type), "")
  table <- fread_typed(csv, split(names, wanted), threads)
  for (col in schema) {
    x <- table[[col$name]]
    # Only a quoted field holds a quote (the runner's writer quotes every such field), so each
    # doubled quote fread kept is one escaped quote.
    if (is.character(x) && col$type %in% c("utf8", "categorical") &&
        fread_keeps_doubled_quotes()) {
      x <- gsub('""', '"', x, fixed = TRUE)
    }
    value <- if (is.character(x)) from_text(x, col$type, col$name) else from_parsed(x, col$type)
    data.table::set(table, j = col$name, value = value)
  }
  table
}

source_names <- function(csv) vapply(read_schema(csv), function(col) col$name, "")

# Each column as text in the exchange form, with its type name: what verification reads.
returned_columns <- function(df) {
  columns <- list()
  types <- character()
  for (name in names(df)) {
    x <- df[[name]]
    missing <- is.na(x)
    if (inherits(x, "integer64")) {
      type <- "int64"
      text <- as.character(x)
    } else if (is.factor(x)) {
      type <- "categorical"
      text <- as.character(x)
    } else if (inherits(x, "POSIXct")) {
      type <- "timestamp[us]"
      text <- sprintf("%.0f", round(unclass(x) * 1e6))
    } else if (inherits(x, "Date")) {
      type <- "date32"
      text <- sprintf("%.0f", floor(unclass(x)))
    } else if (is.logical(x)) {
      type <- "bool"
      text <- ifelse(x, "true", "false")
    } else if (is.integer(x)) {
      type <- "int32"
      text <- as.character(x)
    } else if (is.double(x)) {
      type <- "float64"
      text <- sprintf("%.17g", x)
      text[is.nan(x)] <- "NaN"
      text[x == Inf] <- "inf"
      text[x == -Inf] <- "-inf"
      missing <- missing & !is.nan(x)
    } else if (is.character(x)) {
      type <- "utf8"
      text <- x[seq_along(x)]
    } else {
      stop("column '", name, "' has R class '", paste(class(x), collapse = "/"),
           "', which the R worker cannot return")
    }
    text[missing] <- NA_character_
    columns[[name]] <- text
    types[[name]] <- type
  }
  list(columns = columns, types = types)
}

write_returned <- function(returned, path, threads) {
  table <- data.table::as.data.table(returned$columns)
  data.table::setnames(table, names(returned$columns))
  data.table::fwrite(table, path, na = NULL_TEXT, quote = TRUE, nThread = threads,
                     showProgress = FALSE)
  schema <- lapply(names(returned$types), function(name) {
    list(name = name, type = returned$types[[name]])
  })
  writeLines(to_json(list(columns = schema)), paste0(path, ".schema.json"), useBytes = TRUE)
}

# A cheap fold over every value, so a scan cannot skip materializing lazy (ALTREP) columns.
fold_values <- function(df) {
  total <- 0
  for (x in df) {
    total <- total + if (is.character(x) || is.factor(x)) {
      sum(nchar(as.character(x)), na.rm = TRUE)
    } else {
      sum(as.numeric(x) %% 65521, na.rm = TRUE)
    }
  }
  total
}
