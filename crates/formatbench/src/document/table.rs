//! Tables of a document: columns, rows of typed cells, and what a medium may do with them
//! (fold long text, join related columns, mark the best row).

/// How a column lines up: names left, figures right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// What a cell's value means for the reader, drawn as a colour where the medium has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tone {
    #[default]
    Plain,
    Muted,
    /// Worse: slower, failed.
    Worse,
    /// Better: faster, fixed.
    Better,
    /// Neither shown nor ruled out.
    Unsure,
}

/// What kind of text a cell holds, which decides how a medium sets it.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum CellKind {
    #[default]
    Plain,
    /// An identifier or hash, set as code.
    Code,
    /// Free text that can run long (settings, kernel parameters): a page folds it.
    Long,
    /// A figure of several parts ("2 % · 11.8 MiB · 0.26×", "1.2 ms – 3.4 ms"): a page lets
    /// it wrap between parts, never inside one.
    Parts,
    /// A row's headline time: `value` holds it in seconds for tools that read the page, and
    /// `noisy` marks a spread too wide to trust its last digit.
    Time { noisy: bool },
    /// An outcome instead of figures (failed, unsupported) standing for `span` columns, with
    /// its reason where the medium has room for one.
    Status { reason: String, span: usize },
}

/// A table cell: its text as every medium prints it, the number behind it when it has one
/// (exports and tests read that), its kind and its tone.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Cell {
    pub text: String,
    pub value: Option<f64>,
    pub tone: Tone,
    pub kind: CellKind,
    /// Flagged: the row's flags are listed under the table.
    pub flagged: bool,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Self {
        Cell {
            text: text.into(),
            ..Cell::default()
        }
    }

    /// A figure: its text and the number it shows.
    pub fn figure(text: impl Into<String>, value: Option<f64>) -> Self {
        Cell {
            text: text.into(),
            value,
            ..Cell::default()
        }
    }

    pub fn of_kind(text: impl Into<String>, kind: CellKind) -> Self {
        Cell {
            text: text.into(),
            kind,
            ..Cell::default()
        }
    }

    pub fn toned(mut self, tone: Tone) -> Self {
        self.tone = tone;
        self
    }

    pub fn flagged(mut self, flagged: bool) -> Self {
        self.flagged = flagged;
        self
    }
}

/// A column: its header and alignment, and how a narrow medium may set it.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub header: String,
    pub align: Align,
    /// Consecutive columns with the same `joined` header may read as one column of that
    /// header, their texts joined by ` · ` (fewer, narrower columns on a page).
    pub joined: Option<&'static str>,
    /// Long text about how a row was done: a page moves it into a fold under the table.
    pub folded: bool,
    /// A column a terminal too narrow for the table may leave out: the lowest first.
    pub drop: Option<u8>,
}

impl Column {
    pub fn left(header: impl Into<String>) -> Self {
        Column {
            header: header.into(),
            align: Align::Left,
            joined: None,
            folded: false,
            drop: None,
        }
    }

    pub fn right(header: impl Into<String>) -> Self {
        Column {
            align: Align::Right,
            ..Column::left(header)
        }
    }
}

/// A row: its cells (one per column) and what tools and readers find it by.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Row {
    pub cells: Vec<Cell>,
    /// The row's identity (`backend`, `op`, …) for tools that read a page.
    pub key: Vec<(&'static str, String)>,
    /// The best row of its table, marked with this word (`fastest`).
    pub badge: Option<&'static str>,
}

impl From<Vec<Cell>> for Row {
    fn from(cells: Vec<Cell>) -> Self {
        Row {
            cells,
            ..Row::default()
        }
    }
}

impl FromIterator<Cell> for Row {
    fn from_iter<I: IntoIterator<Item = Cell>>(cells: I) -> Self {
        Row::from(cells.into_iter().collect::<Vec<_>>())
    }
}

/// A table: its columns and rows, with an optional caption.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub caption: Option<String>,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
    /// The first column names its row (a table of settings): a page sets it as a row header.
    pub row_headers: bool,
    /// What the fold of `folded` columns under the table is called.
    pub fold_title: Option<&'static str>,
}

impl Table {
    pub fn new(columns: Vec<Column>, rows: Vec<Row>) -> Self {
        Table {
            columns,
            rows,
            ..Table::default()
        }
    }
}
