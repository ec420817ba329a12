/// Errors that stop a command. Each prints as one line; the exit code follows from the kind:
/// 2 for the user's input, 1 for the machine, a library or a worker, 130 for Ctrl-C.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad usage or bad input: a missing or malformed file, an unknown name. Exit 2.
    #[error("{0}")]
    Input(String),
    /// Something this machine cannot provide for the run (a shaped network needs root and
    /// iproute2). Exit 2, as bad input; a run over several networks goes on without it.
    #[error("{0}")]
    Unavailable(String),
    /// The file system or the machine failed us, said with its context (disk full at a path,
    /// cannot spawn). Exit 1.
    #[error("{0}")]
    Io(String),
    /// A file or folder the machine would not let us use: `cannot {action} {path}`, the
    /// operating system's error kept as the source. Exit 1.
    #[error("cannot {action} {}: {source}", path.display())]
    File {
        action: &'static str,
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A step that failed, said in `context`, with the error that failed it kept as the
    /// source. Exit 1.
    #[error("{context}: {source}")]
    Failed {
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An operating-system error passed up as it came (its source kept). Exit 1.
    #[error("{0}")]
    System(#[from] std::io::Error),
    /// Arrow failed on data formatbench made or already checked (a source, a worker's output);
    /// a user's malformed file is an `Input` error instead. Exit 1.
    #[error("{0}")]
    Arrow(#[from] arrow::error::ArrowError),
    /// The worker kit (source reading, digests) failed while the runner used it. Exit 1.
    #[error("{0}")]
    Worker(#[from] formatbench_worker_kit::KitError),
    /// formatbench's own records could not be encoded: a bug, never the input. Exit 1.
    #[error("cannot encode {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },
    /// Ctrl-C: stopped cleanly, samples already written stay valid. Exit 130.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Unavailable(_) => 2,
            Error::Io(_)
            | Error::File { .. }
            | Error::Failed { .. }
            | Error::System(_)
            | Error::Arrow(_)
            | Error::Worker(_)
            | Error::Encode { .. } => 1,
            Error::Interrupted => 130,
        }
    }

    /// For `map_err`: the file error of `action` (`write`, `read`, …) on `path`.
    pub fn at(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.to_path_buf();
        move |source| Error::File {
            action,
            path,
            source,
        }
    }

    /// For `map_err`: a step's failure, said in `context`, its cause kept.
    pub fn failed<E>(context: impl Into<String>) -> impl FnOnce(E) -> Error
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let context = context.into();
        move |source| Error::Failed {
            context,
            source: Box::new(source),
        }
    }

    /// An encoding failure of `what` (a record, a plan, a job).
    pub fn encode(what: &'static str) -> impl FnOnce(serde_json::Error) -> Error {
        move |source| Error::Encode { what, source }
    }
}

/// The oracle's errors by their kind: a file it could not open or read is the machine's or a
/// worker's (exit 1, as formatbench's own I/O errors), arrow's failure stays arrow's, and a check
/// that cannot be made as asked is the input's (exit 2).
impl From<formatbench_oracle::Error> for Error {
    fn from(e: formatbench_oracle::Error) -> Self {
        use formatbench_oracle::Error as Oracle;
        match e {
            e @ (Oracle::Io { .. } | Oracle::Unreadable { .. }) => Error::Io(e.to_string()),
            Oracle::Arrow(e) => Error::Arrow(e),
            Oracle::Input(reason) => Error::Input(reason),
        }
    }
}

/// Runs `read` over outside bytes (a user's file, a worker's output) and turns a panic inside a
/// library's reader (arrow's IPC reader panics on some corrupt buffers) into an input error
/// naming `what`, printed as one line rather than a backtrace.
pub fn reading<T>(what: &str, read: impl FnOnce() -> Result<T, Error>) -> Result<T, Error> {
    let hook = std::panic::take_hook();
    // Quiet while reading: the error below is the one line the user sees.
    std::panic::set_hook(Box::new(|_| {}));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    std::panic::set_hook(hook);
    outcome.unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "the reader gave up".into());
        Err(Error::Input(format!("malformed {what}: {message}")))
    })
}

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn a_file_or_step_error_says_its_cause_once_and_keeps_it_as_the_source() {
        let path = std::path::Path::new("/results/report.html");
        let full = Error::at("write", path)(std::io::Error::from_raw_os_error(libc::ENOSPC));
        assert_eq!(full.exit_code(), 1);
        let text = full.to_string();
        assert!(
            text.starts_with("cannot write /results/report.html: No space left"),
            "{text}"
        );
        let source =
            std::error::Error::source(&full).and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(source.and_then(|e| e.raw_os_error()), Some(libc::ENOSPC));
        assert_eq!(text.matches("No space left").count(), 1, "{text}");

        let bad = serde_json::from_str::<u8>("x").err();
        let step = bad.map(Error::failed("the S3 server's counts are not readable"));
        assert!(step.as_ref().is_some_and(|e| e.exit_code() == 1
            && e.to_string()
                .starts_with("the S3 server's counts are not readable: ")
            && std::error::Error::source(e).is_some_and(|s| s.is::<serde_json::Error>())));
    }

    #[test]
    fn exit_codes_follow_the_kind_and_sources_are_kept() {
        let arrow: Error = arrow::error::ArrowError::ComputeError("overflow".into()).into();
        assert_eq!(
            arrow.exit_code(),
            1,
            "a library failure is not the user's input"
        );
        let io: Error = std::io::Error::other("disk on fire").into();
        assert_eq!(io.exit_code(), 1);
        assert!(std::error::Error::source(&io).is_some_and(|s| s.to_string() == "disk on fire"));
        let bad_json = serde_json::from_str::<u8>("x").err();
        let encode = bad_json.map(Error::encode("a record"));
        assert!(encode.as_ref().is_some_and(|e| e.exit_code() == 1
            && e.to_string().starts_with("cannot encode a record: ")
            && std::error::Error::source(e).is_some()));
        assert_eq!(Error::Input("no such suite".into()).exit_code(), 2);
        // The oracle's errors keep their kind and their one line.
        let missing = std::path::Path::new("/nonexistent/formatbench/result.arrow");
        let oracle = formatbench_oracle::digest::file_digest(
            missing,
            formatbench_oracle::digest::Rows::Ordered,
        )
        .err()
        .map(Error::from);
        assert!(oracle.as_ref().is_some_and(|e| matches!(e, Error::Io(_))
            && e.exit_code() == 1
            && e.to_string()
                .starts_with("the worker wrote no result file: ")));
        let input: Error =
            formatbench_oracle::Error::Input("the operation needs rows".into()).into();
        assert!(matches!(&input, Error::Input(m) if m == "the operation needs rows"));
        let arrow: Error =
            formatbench_oracle::Error::Arrow(arrow::error::ArrowError::ComputeError("x".into()))
                .into();
        assert!(matches!(arrow, Error::Arrow(_)));
        assert_eq!(Error::Interrupted.exit_code(), 130);
    }
}
