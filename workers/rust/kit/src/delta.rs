//! What every Delta reader shares: the tables it reads are delta-kernel's (the one Rust writer
//! of deletion vectors), in the same profiles, and a reader keeps no row order.

use formatbench_protocol::Op;

/// The backend that writes the tables every Delta reader reads.
pub const WRITER: &str = "delta-kernel";
/// `default`: the table of files; `dv`: the same with one row of every file deleted.
pub const PROFILES: &[&str] = &["default", "dv"];
/// The profiles whose tables have deleted rows.
pub const DELETION_PROFILES: &[&str] = &["dv"];

/// A Delta reader's layouts: the wide table, read whole, projected, or up to its first row.
pub fn reader_layouts() -> Vec<(&'static str, Vec<Op>)> {
    vec![(
        crate::layout::WIDE,
        vec![Op::Read, Op::Scan, Op::Project, Op::FirstRow],
    )]
}

/// A reader writes no table of its own (the runner never asks it to).
pub fn no_write(reader: &str) -> crate::KitError {
    crate::KitError::Unsupported(format!(
        "{reader} writes no tables: it reads the ones {WRITER} writes"
    ))
}
