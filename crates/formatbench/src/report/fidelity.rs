//! The fidelity matrix of a `formatbench fidelity` run: for each logical type (a table of its
//! own, that one column) and each backend and target, whether the type survives a
//! write then a read unchanged, comes back in another representation with equal values (and
//! which), comes back altered, or is refused — from the run's verification records, which the
//! verifier (an oracle that never calls the backends) wrote cell by cell.

use crate::document::{Block, Cell, Column, Document, Row, Table, Text, Tone};
use crate::results::{Record, SampleStatus};
use serde::Serialize;
use std::collections::BTreeMap;

/// The matrix's title in every medium.
pub const TITLE: &str = "Fidelity: which types survive a write and a read";
const NOTES_HEADING: &str = "What changed, and why";

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

const MATRIX_LEGEND: &str = "each type is a table of its own (an index and that column, every fifth value null), written then read back by each backend into each target, and verified value by value against the source: ✓ same type, equal values · ≈ equal values in another representation · ✗ altered (other values, or a type they cannot be compared in) · — refused, with the reason · ! failed · n/a unavailable here";
const NOTES_LEGEND: &str = "every cell of the matrix that is not ✓: the representation it came back in, or the reason it was refused, altered or failed";

/// What became of one type through one backend and target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Read back as the same type, every value equal.
    Same,
    /// Every value equal, in another representation (unit, width, encoding, view, …).
    Changed,
    /// Read back with other values or a type the values cannot be compared in.
    Altered,
    /// The backend declines the type (writer or reader), with its reason.
    Refused,
    /// The write or read failed (an error, a crash).
    Failed,
    /// The backend cannot run here.
    Unavailable,
}

impl Outcome {
    /// What the outcome means for a user of the type.
    fn tone(self) -> Tone {
        match self {
            Outcome::Same => Tone::Better,
            Outcome::Changed => Tone::Plain,
            Outcome::Altered | Outcome::Failed => Tone::Worse,
            Outcome::Refused | Outcome::Unavailable => Tone::Muted,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Outcome::Same => "✓",
            Outcome::Changed => "≈",
            Outcome::Altered => "✗",
            Outcome::Refused => "—",
            Outcome::Failed => "!",
            Outcome::Unavailable => "n/a",
        }
    }
}

/// One type through one competitor.
#[derive(Debug, Clone, Serialize)]
pub struct FidelityCell {
    pub column: String,
    pub source_type: String,
    pub backend: String,
    pub profile: String,
    pub target: String,
    pub outcome: Outcome,
    /// How the representation changed, or why it was altered, refused or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Fidelity {
    /// (column, Arrow type) of each type, in the table's order.
    pub types: Vec<(String, String)>,
    pub cells: Vec<FidelityCell>,
}

/// The column a single-column dataset holds and its type: its record lists `name: type`.
fn column_of(schema: &[String]) -> Option<(String, String)> {
    schema
        .first()
        .and_then(|s| s.split_once(": "))
        .map(|(name, ty)| (name.to_string(), ty.to_string()))
}

/// (dataset, backend, profile, target) → what became of the type, and the detail.
type Decided = BTreeMap<(String, String, String, String), (Outcome, Option<String>)>;

/// The matrix of a fidelity run's records (each dataset one column).
pub fn fidelity(records: &[Record]) -> Fidelity {
    let mut types = Vec::new();
    let mut column_type: BTreeMap<String, (String, String)> = BTreeMap::new();
    for record in records {
        if let Record::Dataset(d) = record {
            if let Some(found) = column_of(&d.schema) {
                if !types.contains(&found) {
                    types.push(found.clone());
                }
                column_type.insert(d.dataset.clone(), found);
            }
        }
    }
    // A verification decides a cell; a cell that never reached one has its refusal sample.
    let mut by_cell: Decided = BTreeMap::new();
    for record in records {
        let (key, outcome) = match record {
            Record::Verification(v) => {
                let key = (
                    v.cell.dataset.clone(),
                    v.cell.backend.clone(),
                    v.cell.profile.clone(),
                    v.cell.target.clone(),
                );
                let column = column_type.get(&v.cell.dataset).map(|c| c.0.clone());
                let outcome = match v.status {
                    SampleStatus::Ok => {
                        // Only a change of the column's own type counts; batch splits do not.
                        let changes: Vec<&String> = v
                            .representation
                            .iter()
                            .filter(|r| {
                                column
                                    .as_deref()
                                    .is_some_and(|c| r.starts_with(&format!("{c}: ")))
                            })
                            .collect();
                        if changes.is_empty() {
                            (Outcome::Same, None)
                        } else {
                            let text: Vec<&str> = changes.iter().map(|s| s.as_str()).collect();
                            (Outcome::Changed, Some(text.join("; ")))
                        }
                    }
                    // A value the verifier found different altered the data; a read that
                    // erred (its reader has no such type) failed before any comparison.
                    status => {
                        let compared = v
                            .reason
                            .as_deref()
                            .is_some_and(|r| r.starts_with("verification failed"));
                        (outcome_of(status, compared), v.reason.clone())
                    }
                };
                (key, outcome)
            }
            Record::Sample(s) if s.round.is_none() && s.status != SampleStatus::Ok => {
                let key = (
                    s.cell.dataset.clone(),
                    s.cell.backend.clone(),
                    s.cell.profile.clone(),
                    s.cell.target.clone(),
                );
                if by_cell.contains_key(&key) {
                    continue;
                }
                (key, (outcome_of(s.status, false), s.reason.clone()))
            }
            _ => continue,
        };
        by_cell.insert(key, outcome);
    }
    let cells = by_cell
        .into_iter()
        .filter_map(|((dataset, backend, profile, target), (outcome, detail))| {
            let (column, source_type) = column_type.get(&dataset)?.clone();
            Some(FidelityCell {
                column,
                source_type,
                backend,
                profile,
                target,
                outcome,
                detail: detail.map(|d| crate::report::format::one_line(&d)),
            })
        })
        .collect();
    Fidelity { types, cells }
}

/// A status that is not ok, as an outcome: a failed verification altered the data; a failed
/// write or read before it did not get that far.
fn outcome_of(status: SampleStatus, verified: bool) -> Outcome {
    match (status, verified) {
        (SampleStatus::Ok, _) => Outcome::Same,
        (SampleStatus::Failed, true) => Outcome::Altered,
        (SampleStatus::Failed, false) => Outcome::Failed,
        (SampleStatus::Unsupported, _) => Outcome::Refused,
        (SampleStatus::Unavailable, _) => Outcome::Unavailable,
    }
}

impl Fidelity {
    /// The competitors in the matrix, as column labels: the backend, with the profile when
    /// not `default` and the target when the backend has several.
    fn competitors(&self) -> Vec<((String, String, String), String)> {
        let mut keys: Vec<(String, String, String)> = Vec::new();
        for c in &self.cells {
            let key = (c.backend.clone(), c.profile.clone(), c.target.clone());
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
        keys.sort();
        let targets_of = |backend: &str| keys.iter().filter(|k| k.0 == backend).count();
        keys.iter()
            .map(|key| {
                let mut label = key.0.clone();
                if key.1 != "default" {
                    label = format!("{label}/{}", key.1);
                }
                if targets_of(&key.0) > 1 {
                    label = format!("{label} → {}", key.2);
                }
                (key.clone(), label)
            })
            .collect()
    }

    fn cell(&self, column: &str, key: &(String, String, String)) -> Option<&FidelityCell> {
        self.cells.iter().find(|c| {
            c.column == column && (&c.backend, &c.profile, &c.target) == (&key.0, &key.1, &key.2)
        })
    }

    /// The matrix as a document: one row per type, one column per competitor, then every
    /// cell that is not "same" with what changed or why. `fidelity` prints it, writes it as
    /// fidelity.md and fidelity.html, and the run's reports carry its tables.
    pub fn document(&self) -> Document {
        let competitors = self.competitors();
        let mut columns = vec![Column::left("type"), Column::left("source")];
        columns.extend(
            competitors
                .iter()
                .map(|(_, label)| Column::left(label.as_str())),
        );
        let rows = self
            .types
            .iter()
            .map(|(column, ty)| {
                let mut row = vec![Cell::text(column), Cell::text(ty)];
                row.extend(
                    competitors
                        .iter()
                        .map(|(key, _)| match self.cell(column, key) {
                            Some(c) => Cell::text(c.outcome.symbol()).toned(c.outcome.tone()),
                            None => Cell::text(""),
                        }),
                );
                Row::from(row)
            })
            .collect();
        let mut blocks = vec![
            Block::Text(Text::plain(format!("{}.", capitalised(MATRIX_LEGEND)))),
            Block::Table(Table::new(columns, rows)),
        ];
        let notes: Vec<Row> = competitors
            .iter()
            .flat_map(|(key, label)| {
                self.types.iter().filter_map(move |(column, _)| {
                    let cell = self.cell(column, key)?;
                    (cell.outcome != Outcome::Same).then(|| {
                        Row::from(vec![
                            Cell::text(label),
                            Cell::text(column),
                            Cell::text(cell.outcome.symbol()).toned(cell.outcome.tone()),
                            Cell::text(cell.detail.clone().unwrap_or_default()),
                        ])
                    })
                })
            })
            .collect();
        if !notes.is_empty() {
            blocks.push(Block::Heading(NOTES_HEADING.into()));
            blocks.push(Block::Text(Text::muted(format!(
                "{}.",
                capitalised(NOTES_LEGEND)
            ))));
            let columns = ["competitor", "type", "outcome", "how, or why"]
                .into_iter()
                .map(Column::left)
                .collect();
            blocks.push(Block::Table(Table::new(columns, notes)));
        }
        Document {
            title: TITLE.into(),
            summary: Some(Text::strong(self.tally())),
            blocks,
        }
    }

    /// The matrix as Markdown (fidelity.md).
    pub fn markdown(&self) -> String {
        crate::document::markdown(&self.document())
    }

    /// The matrix and its notes as report tables (the run's report.md and report.html): the
    /// document's tables under their legends.
    pub(super) fn tables(&self) -> Vec<super::layouts::Table> {
        let titled = [
            (
                "one column per type, written and read back by each backend and target",
                MATRIX_LEGEND,
            ),
            ("what changed, and why", NOTES_LEGEND),
        ];
        let tables = self.document().blocks.into_iter().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            _ => None,
        });
        tables
            .zip(titled)
            .map(|(table, (title, legend))| super::layouts::Table {
                title: title.into(),
                legend,
                text_columns: table.columns.len(),
                headers: table.columns.into_iter().map(|c| c.header).collect(),
                rows: table
                    .rows
                    .into_iter()
                    .map(|row| row.cells.into_iter().map(|c| c.text).collect())
                    .collect(),
            })
            .collect()
    }

    /// The matrix as JSON: the types, then every cell.
    pub fn json(&self) -> Result<String, crate::Error> {
        serde_json::to_string_pretty(self).map_err(crate::Error::encode("the fidelity matrix"))
    }

    /// A count per outcome, for the terminal's last line.
    pub fn tally(&self) -> String {
        let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
        for c in &self.cells {
            let name = match c.outcome {
                Outcome::Same => "same",
                Outcome::Changed => "changed",
                Outcome::Altered => "altered",
                Outcome::Refused => "refused",
                Outcome::Failed => "failed",
                Outcome::Unavailable => "unavailable",
            };
            *counts.entry(name).or_default() += 1;
        }
        let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests;
