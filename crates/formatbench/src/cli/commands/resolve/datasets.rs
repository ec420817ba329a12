//! The datasets of a plan: generated ones per shape and size, and the user's own files (local
//! or in object storage), each once.

use crate::cli::RunArgs;
use crate::datasets::{DatasetKind, DatasetSpec, Shape};
use crate::plan::Suite;
use crate::Error;

/// The shapes `--shape` asks for (`random,realistic` runs both), `random` by default.
fn shapes(args: &RunArgs) -> Vec<Shape> {
    args.shape.clone().unwrap_or_else(|| vec![Shape::Random])
}

/// The datasets of a run, each once (`--rows 1e5,100000` names one size twice).
pub(super) fn datasets(suite: Option<&Suite>, args: &RunArgs) -> Result<Vec<DatasetSpec>, Error> {
    let mut specs = all_datasets(suite, args)?;
    let mut seen = std::collections::BTreeSet::new();
    specs.retain(|spec| seen.insert(spec.name()));
    Ok(specs)
}

fn all_datasets(suite: Option<&Suite>, args: &RunArgs) -> Result<Vec<DatasetSpec>, Error> {
    if args.input.is_none() && args.index.is_some() {
        // A generated table has its own index; the option would silently change nothing.
        return Err(Error::Input(
            "--index names the integer column of your file that ranges select by: it needs --input"
                .into(),
        ));
    }
    if args.input.is_none() && args.feature_type.is_some() {
        return Err(Error::Input(
            "--feature-type casts the float64 columns of your file: it needs --input".into(),
        ));
    }
    if let Some(path) = &args.input {
        return Ok(vec![DatasetSpec::Input {
            path: path.clone(),
            index: args.index.clone(),
            feature_type: args.feature_type.as_deref().map(str::parse).transpose()?,
            object: input_object(path, args)?,
        }]);
    }
    if let Some(name) = &args.dataset {
        let kind: DatasetKind = name.parse()?;
        let default_rows = if kind == DatasetKind::Features {
            2_000
        } else {
            100_000
        };
        let sizes = args.rows.clone().unwrap_or_else(|| vec![default_rows]);
        return Ok(sizes
            .into_iter()
            .flat_map(|rows| {
                shapes(args)
                    .into_iter()
                    .map(move |shape| DatasetSpec::Generated {
                        kind,
                        rows,
                        per_type: args.per_type.unwrap_or(10),
                        features: args.features.unwrap_or(8_192),
                        seed: args.seed,
                        shape,
                    })
            })
            .collect());
    }
    let suite = suite
        .ok_or_else(|| Error::Input("no dataset: give --dataset, --input or a suite".into()))?;
    Ok(suite
        .datasets
        .iter()
        .filter(|d| !(args.quick && d.skip_quick))
        .flat_map(|d| {
            let specs = d.to_specs(args.seed, args.rows.as_deref(), args.quick);
            let mut shaped = Vec::new();
            for spec in specs {
                // --shape replaces every generated dataset's; a list runs each shape.
                let wanted = match &args.shape {
                    Some(_) => shapes(args),
                    None => vec![Shape::Random],
                };
                for shape in wanted {
                    let mut spec = spec.clone();
                    if let DatasetSpec::Generated {
                        per_type,
                        features,
                        shape: own,
                        ..
                    } = &mut spec
                    {
                        if d.scale {
                            *per_type = args.per_type.unwrap_or(*per_type);
                            *features = args.features.unwrap_or(*features);
                        }
                        if args.shape.is_some() {
                            *own = shape;
                        }
                    }
                    shaped.push(spec);
                }
            }
            shaped
        })
        .collect())
}

/// The object of `--input s3://BUCKET/KEY` on the store `--endpoint` names; `None` for a
/// local file.
fn input_object(
    path: &std::path::Path,
    args: &RunArgs,
) -> Result<Option<formatbench_protocol::ObjectTarget>, Error> {
    let Some(url) = path.to_str().filter(|p| p.starts_with("s3://")) else {
        return Ok(None);
    };
    let endpoint = args.endpoint.as_deref().ok_or_else(|| {
        Error::Input(format!(
            "--input {url}: add --endpoint URL (the store's S3 API, http://HOST:PORT)"
        ))
    })?;
    let store = crate::plan::UserStore::parse(url, endpoint, &user_region())
        .map_err(|e| Error::Input(format!("--input: {e}")))?;
    if store.prefix.is_empty() {
        return Err(Error::Input(format!(
            "--input {url}: name the object, s3://BUCKET/KEY"
        )));
    }
    Ok(Some(formatbench_protocol::ObjectTarget {
        endpoint: store.endpoint,
        bucket: store.bucket,
        key: store.prefix,
        region: store.region,
        objects: Default::default(),
        network: None,
    }))
}

/// The signing region of a store of the user's own: `AWS_REGION`, else us-east-1.
pub(super) fn user_region() -> String {
    std::env::var("AWS_REGION")
        .ok()
        .filter(|r| !r.is_empty())
        .unwrap_or_else(|| "us-east-1".into())
}

/// The format an object's key names by its extension (an object is not opened to plan).
fn format_by_name(key: &str) -> Option<&'static str> {
    let extension = key.rsplit_once('.')?.1.to_ascii_lowercase();
    match extension.as_str() {
        "parquet" | "pq" => Some("parquet"),
        "arrow" | "feather" | "ipc" => Some("arrow-ipc"),
        "csv" | "txt" | "tsv" => Some("csv"),
        _ => None,
    }
}

/// The formats of the users' files among the datasets (`parquet`, `arrow-ipc`, `csv`): each
/// gets an `as-given` competitor in every backend that reads its files as they are.
pub(super) fn given_formats(datasets: &[DatasetSpec]) -> Vec<&'static str> {
    datasets
        .iter()
        .filter_map(|d| match d {
            DatasetSpec::Input {
                object: Some(object),
                ..
            } => format_by_name(&object.key),
            DatasetSpec::Input { path, .. } => crate::datasets::input_format(path),
            DatasetSpec::Generated { .. } => None,
        })
        .filter(|format| formatbench_protocol::GIVEN_FORMATS.contains(format))
        .collect()
}
