//! A point of the row-group sweep (`run --row-group-rows`, `--sort-by`) as part of a cell's
//! and an artifact's identity: two cells of one backend and profile that read files written
//! with other row-group sizes or orders are other competitors, and their artifacts other files.

use super::{ArtifactRecord, CellKey};

/// Rows as the command line writes them: `10k`, `100k`, `1M`, else the number (`1,048,576`).
pub fn rows_text(rows: u64) -> String {
    for (scale, unit) in [(1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")] {
        if rows >= scale && rows.is_multiple_of(scale) {
            return format!("{}{unit}", rows / scale);
        }
    }
    // Thousands grouped, as the reports write counts (results sit below the reports).
    let digits = rows.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A sweep point in a few words ("16 files, 10k rows/group, sorted by x"); `None` for a file
/// written the backend's own way.
pub fn point_label(
    row_group_rows: Option<u64>,
    parquet_files: Option<u64>,
    sort_by: Option<&str>,
) -> Option<String> {
    let parts: Vec<String> = [
        parquet_files.map(files_label),
        row_group_rows.map(|rows| format!("{} rows/group", rows_text(rows))),
        sort_by.map(|column| format!("sorted by {column}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A table cut into files in a few words ("16 files").
pub fn files_label(files: u64) -> String {
    match files {
        1 => "1 file".into(),
        n => format!("{n} files"),
    }
}

/// A cluster peer's executor count in a few words ("2 executors").
pub fn executors_label(executors: u32) -> String {
    match executors {
        1 => "1 executor".into(),
        n => format!("{n} executors"),
    }
}

impl CellKey {
    /// Whether the cell reads a file re-written for the row-group sweep.
    pub fn is_sweep_point(&self) -> bool {
        self.row_group_rows.is_some() || self.parquet_files.is_some() || self.sort_by.is_some()
    }

    /// The profile as reports name the competitor: a sweep point's is named beside it
    /// (`default · 10k rows/group`), so it never reads as the default file's, and a cluster
    /// peer's executors (`default · 2 executors`).
    pub fn shown_profile(&self) -> String {
        let mut shown = self.profile.clone();
        for label in [self.sweep_label(), self.executors.map(executors_label)]
            .into_iter()
            .flatten()
        {
            shown = format!("{shown} · {label}");
        }
        shown
    }

    /// The cell's sweep point in a few words, if it is one.
    pub fn sweep_label(&self) -> Option<String> {
        point_label(
            self.row_group_rows,
            self.parquet_files,
            self.sort_by.as_deref(),
        )
    }
}

impl ArtifactRecord {
    /// Whether this is the artifact `cell` reads: same dataset, backend, profile, layout and
    /// sweep point.
    pub fn is_of(&self, cell: &CellKey) -> bool {
        (
            &self.dataset,
            &self.backend,
            &self.profile,
            &self.layout,
            self.row_group_rows,
            self.parquet_files,
            &self.sort_by,
        ) == (
            &cell.dataset,
            &cell.backend,
            &cell.profile,
            &cell.layout,
            cell.row_group_rows,
            cell.parquet_files,
            &cell.sort_by,
        )
    }

    /// Whether `other` records the same artifact (a later record of it replaces an earlier).
    pub fn same_artifact(&self, other: &ArtifactRecord) -> bool {
        (
            &self.dataset,
            &self.backend,
            &self.profile,
            &self.layout,
            self.row_group_rows,
            self.parquet_files,
            &self.sort_by,
        ) == (
            &other.dataset,
            &other.backend,
            &other.profile,
            &other.layout,
            other.row_group_rows,
            other.parquet_files,
            &other.sort_by,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_read_as_the_command_line_writes_them() {
        assert_eq!(rows_text(10_000), "10k");
        assert_eq!(rows_text(1_000_000), "1M");
        assert_eq!(rows_text(1_048_576), "1,048,576");
        assert_eq!(point_label(None, None, None), None);
        assert_eq!(
            point_label(Some(10_000), Some(16), None).as_deref(),
            Some("16 files, 10k rows/group")
        );
        assert_eq!(
            point_label(Some(100_000), None, Some("x")).as_deref(),
            Some("100k rows/group, sorted by x")
        );
        let mut cell = CellKey::example("parquet");
        assert!(!cell.is_sweep_point());
        cell.sort_by = Some("x".into());
        assert_eq!(cell.sweep_label().as_deref(), Some("sorted by x"));
    }
}
