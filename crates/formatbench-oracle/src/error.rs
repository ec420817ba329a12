//! The oracle's errors: why a check could not be made at all. A result that differs from the
//! source is no error but a [`crate::Verification`] that is not `ok`.

use arrow::error::ArrowError;
use std::fmt;

/// Why a check could not be made. Each prints as one line; the source error is kept.
#[derive(Debug)]
pub enum Error {
    /// A file the check needs could not be opened or read: `what` says which and why it was
    /// wanted ("the worker wrote no result file"), `source` what the system said.
    Io {
        what: String,
        source: std::io::Error,
    },
    /// A file is there but is no Arrow IPC file arrow can read: `what` names it ("result
    /// file", "source /run/sources/x.arrow").
    Unreadable { what: String, source: ArrowError },
    /// Arrow failed on a batch already opened (a corrupt buffer read late, a cast).
    Arrow(ArrowError),
    /// The check cannot be made as asked: a parameter the operation needs is missing, a column
    /// is not where it must be, a type has no digest.
    Input(String),
}

impl Error {
    /// An I/O failure of `what`, as a closure for `map_err`.
    pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
        let what = what.into();
        move |source| Error::Io { what, source }
    }

    /// A file arrow cannot open as Arrow IPC, as a closure for `map_err`.
    pub(crate) fn unreadable(what: impl Into<String>) -> impl FnOnce(ArrowError) -> Error {
        let what = what.into();
        move |source| Error::Unreadable { what, source }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io { what, source } => write!(f, "{what}: {source}"),
            Error::Unreadable { what, source } => write!(f, "unreadable {what}: {source}"),
            Error::Arrow(e) => write!(f, "{e}"),
            Error::Input(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Unreadable { source, .. } => Some(source),
            Error::Arrow(e) => Some(e),
            Error::Input(_) => None,
        }
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        Error::Arrow(e)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::Error;
    use std::error::Error as _;

    #[test]
    fn each_error_is_one_line_with_its_source_kept() {
        let missing = std::fs::File::open("/nonexistent/formatbench-oracle")
            .map_err(Error::io("the worker wrote no result file"))
            .unwrap_err();
        assert!(missing
            .to_string()
            .starts_with("the worker wrote no result file: "));
        assert!(missing.source().is_some());
        let unreadable = Error::unreadable("result file")(arrow::error::ArrowError::ParseError(
            "not a file".into(),
        ));
        assert_eq!(
            unreadable.to_string(),
            "unreadable result file: Parser error: not a file"
        );
        assert!(unreadable.source().is_some());
        let input = Error::Input("the operation needs rows".into());
        assert_eq!(input.to_string(), "the operation needs rows");
        assert!(input.source().is_none());
        for e in [missing, unreadable, input] {
            assert!(!e.to_string().contains('\n'));
        }
    }
}
