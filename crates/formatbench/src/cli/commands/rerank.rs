//! `report --prefer` and `--reference`: an existing run ranked again, without measuring again.
//! Both are settings the run recorded; the report reads them from there.

use crate::results::{Prefer, Record};
use crate::Error;

/// Replaces the run's recommendation goal and heat-map reference in `records`. The reference
/// must be a competitor of this run (BACKEND/PROFILE of one of its samples).
pub fn rerank(
    records: &mut [Record],
    prefer: Option<Prefer>,
    reference: Option<&str>,
) -> Result<(), Error> {
    if let Some(reference) = reference {
        let competes = records.iter().any(|r| match r {
            Record::Sample(s) => format!("{}/{}", s.cell.backend, s.cell.profile) == reference,
            _ => false,
        });
        if !competes {
            return Err(Error::Input(format!(
                "--reference {reference}: not a competitor of this run; give BACKEND/PROFILE of one \
                 it measured, e.g. parquet/default"
            )));
        }
    }
    for record in records.iter_mut() {
        if let Record::Environment(env) = record {
            if let Some(prefer) = prefer {
                env.settings.prefer = prefer;
            }
            if let Some(reference) = reference {
                env.settings.reference = Some(reference.into());
            }
        }
    }
    Ok(())
}
