//! A cell: one dataset × competitor × operation (× cache state), what the runner measures.

use crate::catalog::BackendInfo;
use crate::datasets::Source;
use crate::plan::{CacheState, Competitor, OpInputs};
use crate::results::CellKey;
use formatbench_protocol::{Op, OpParams};
use std::path::{Path, PathBuf};

pub struct Cell {
    pub key: CellKey,
    pub dataset: usize,
    pub competitor: Competitor,
    pub op: Op,
    /// The page-cache state a read runs under; `None` for writes.
    pub cache: Option<CacheState>,
    pub info: BackendInfo,
    pub source_path: PathBuf,
    pub artifact_dir: PathBuf,
    pub params: OpParams,
    pub size_bytes: Option<u64>,
    /// Object storage: the bytes and ranges the operation needs by its artifact's own
    /// metadata (`run::needed`), computed once when the cell is planned; `None` for local
    /// files and where the yardstick does not say.
    pub needed: Option<crate::run::needed::Needed>,
    /// Set once the cell's result has been verified.
    pub digest: Option<String>,
}

impl Cell {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        dataset: usize,
        source: &Source,
        competitor: &Competitor,
        op: Op,
        cache: Option<CacheState>,
        info: &BackendInfo,
        artifact_dir: &Path,
        inputs: &OpInputs,
        threads: u32,
    ) -> Self {
        Cell {
            key: CellKey {
                dataset: source.name.clone(),
                dataset_fingerprint: source.fingerprint.clone(),
                backend: competitor.backend.clone(),
                profile: competitor.profile.clone(),
                layout: competitor.layout.clone(),
                target: competitor.target.clone(),
                op: op.name().to_string(),
                threads,
                cache: cache.map_or("n/a", CacheState::name).to_string(),
                storage: "local".into(),
                network: "n/a".into(),
                row_group_rows: competitor.row_group_rows,
                parquet_files: competitor.parquet_files,
                sort_by: competitor.sort_by.clone(),
                executors: competitor.executors,
            },
            dataset,
            competitor: competitor.clone(),
            op,
            cache,
            info: info.clone(),
            source_path: source.path.clone(),
            artifact_dir: artifact_dir.to_path_buf(),
            params: {
                let mut params = if info.table.is_table_of_files() {
                    inputs.table_params(
                        op,
                        info.table.deletion_profiles.contains(&competitor.profile),
                    )
                } else {
                    inputs.params(op)
                };
                if crate::plan::sweep::reads_shared_files(competitor) {
                    params.options.insert(
                        formatbench_protocol::rewrite::FILE_SET.into(),
                        "parquet".into(),
                    );
                }
                params
            },
            size_bytes: None,
            needed: None,
            digest: None,
        }
    }

    pub fn with_size(mut self, size: Option<u64>) -> Self {
        self.size_bytes = size;
        self
    }

    pub fn label(&self) -> String {
        format!(
            "{} {}/{} {}",
            self.key.dataset,
            self.key.backend,
            self.key.shown_profile(),
            self.key.op
        )
    }

    /// A file-name-safe identity for scratch paths.
    pub fn slug(&self) -> String {
        format!(
            "{}-{}-{}-{}{}-{}",
            self.dataset,
            self.key.backend,
            self.key.profile,
            self.key.layout,
            crate::plan::sweep::slug(&self.competitor),
            self.key.op
        )
    }
}
