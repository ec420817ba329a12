//! `history`: every run of one or more results directories followed over time, written as
//! Markdown and HTML pages with their charts and as one table in CSV, JSON and Parquet; the
//! changes are printed.

use crate::history;
use crate::results::CallMode;
use crate::Error;
use std::path::{Path, PathBuf};

pub fn history(
    dirs: &[PathBuf],
    out: &Path,
    threshold: &str,
    call: Option<CallMode>,
) -> Result<i32, Error> {
    let threshold = super::compare::threshold(threshold)?;
    let runs = history::run_dirs(dirs)?
        .iter()
        .map(|dir| crate::compare::load(dir))
        .collect::<Result<Vec<_>, Error>>()?;
    let history = history::build(runs, threshold, call);
    std::fs::create_dir_all(out).map_err(Error::at("create", out))?;
    let doc = history::document(&history);
    let mut files = vec![
        (
            "history.md".to_string(),
            crate::document::markdown_page(&doc),
        ),
        ("history.html".to_string(), crate::document::html(&doc)),
    ];
    files.extend(
        crate::document::svg_charts(&doc)
            .into_iter()
            .map(|(_, name, drawing)| (name, drawing.standalone())),
    );
    for (name, text) in files {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(Error::at("write", &path))?;
    }
    crate::export::write_table(&history::history_table(&history), "history", out)?;
    let columns = crate::document::stdout_columns();
    print!(
        "{}",
        crate::document::terminal_fitted(&history::summary(&history), columns)
    );
    crate::progress::say(&format!("history written to {}", out.display()));
    Ok(0)
}
