/// Errors that stop a command. Each prints as one line; `exit_code` maps them to the CLI's codes.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad usage or bad input: a missing or malformed file, an unknown name. Exit 2.
    #[error("{0}")]
    Input(String),
    /// The file system or the machine failed us (disk full, cannot spawn). Exit 1.
    #[error("{0}")]
    Io(String),
    /// Ctrl-C: stopped cleanly, samples already written stay valid. Exit 130.
    #[error("interrupted")]
    Interrupted,
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) => 2,
            Error::Io(_) => 1,
            Error::Interrupted => 130,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

impl From<arrow::error::ArrowError> for Error {
    fn from(e: arrow::error::ArrowError) -> Self {
        Error::Input(e.to_string())
    }
}

impl From<formatbench_worker_arrow::WorkerError> for Error {
    fn from(e: formatbench_worker_arrow::WorkerError) -> Self {
        Error::Input(e.to_string())
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
