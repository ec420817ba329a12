//! The pages of an artifact's data files, counted from the files' own metadata: the `pages`
//! setting, which shows what a write's page options did (a scan spanning two pages of a
//! column concatenates them).

use super::library;
use formatbench_worker_kit::KitError;
use lance::Dataset;
use lance_file::reader::FileReader;
use lance_io::scheduler::{ScanScheduler, SchedulerConfig};
use lance_io::utils::CachedFileSize;

/// Pages of every column of every data file, and how many columns and files hold them.
#[derive(Debug, PartialEq, Eq)]
pub struct Pages {
    pub pages: usize,
    pub columns: usize,
    pub files: usize,
}

impl std::fmt::Display for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Pages {
            pages,
            columns,
            files,
        } = self;
        write!(f, "{pages} ({columns} column(s) in {files} file(s))")
    }
}

pub async fn count(ds: &Dataset) -> Result<Pages, KitError> {
    let store = ds.object_store(None).await.map_err(library)?;
    let scheduler = ScanScheduler::new(store.clone(), SchedulerConfig::max_bandwidth(&store));
    let mut counted = Pages {
        pages: 0,
        columns: 0,
        files: 0,
    };
    for fragment in ds.get_fragments() {
        for file in &fragment.metadata().files {
            let path = ds.data_dir().join(file.path.as_str());
            let opened = scheduler
                .open_file(&path, &CachedFileSize::unknown())
                .await
                .map_err(library)?;
            let metadata = FileReader::read_all_metadata(&opened)
                .await
                .map_err(library)?;
            counted.files += 1;
            counted.columns += metadata.column_infos.len();
            counted.pages += metadata
                .column_infos
                .iter()
                .map(|column| column.page_infos.len())
                .sum::<usize>();
        }
    }
    Ok(counted)
}
