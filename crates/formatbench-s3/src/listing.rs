//! LIST (v2, and v1 through it) as S3 answers it, over the keys [`crate::keys`] stores: a
//! stand-in is listed by the key it stands for. The order, prefixes, delimiter, start-after,
//! continuation token and page size are s3s-fs's (a page ends at the last key it returns,
//! which is the next page's token).

use crate::keys::{objects_under, stored, Names};
use s3s::dto::*;
use s3s::{s3_error, S3Result};
use std::collections::BTreeMap;
use std::path::Path;

/// S3's page size when the request names none.
const PAGE: i32 = 1000;

/// The listing `input` asks of the bucket under `root` (blocking: it reads folders).
pub fn list_v2(
    names: &Names,
    root: &Path,
    input: ListObjectsV2Input,
) -> S3Result<ListObjectsV2Output> {
    let bucket_dir = root.join(&input.bucket);
    if !bucket_dir.is_dir() {
        return Err(s3_error!(NoSuchBucket));
    }
    let prefix = input.prefix.as_deref().unwrap_or("");
    let delimiter = input.delimiter.as_deref().filter(|d| !d.is_empty());
    let listed =
        objects_under(names, &bucket_dir, prefix).map_err(|e| s3_error!(e, InternalError))?;
    // Each key once, in order: an object, or (`None`) a common prefix that groups objects.
    let mut entries: BTreeMap<String, Option<Object>> = BTreeMap::new();
    for object in listed {
        let rest = &object.key[prefix.len()..];
        if let Some(at) = delimiter.and_then(|d| rest.find(d).map(|at| at + d.len())) {
            entries.insert(format!("{prefix}{}", &rest[..at]), None);
            continue;
        }
        let Ok(metadata) = std::fs::metadata(&object.path) else {
            continue; // deleted while listed
        };
        let last_modified = metadata.modified().ok().map(Timestamp::from);
        let size = i64::try_from(metadata.len()).map_err(|e| s3_error!(e, InternalError))?;
        let e_tag = e_tag(root, &input.bucket, &object.key, &metadata);
        let key = object.key;
        entries.insert(
            key.clone(),
            Some(Object {
                key: Some(key),
                last_modified,
                size: Some(size),
                e_tag: Some(e_tag),
                ..Default::default()
            }),
        );
    }
    let after = match (
        input.continuation_token.as_deref(),
        input.start_after.as_deref(),
    ) {
        (Some(token), Some(start)) => Some(token.max(start)),
        (token, start) => token.or(start),
    };
    let max_keys = input.max_keys.unwrap_or(PAGE).max(0);
    let page_len = usize::try_from(max_keys).unwrap_or(0);
    let mut remaining = entries
        .into_iter()
        .filter(|(key, _)| after.is_none_or(|after| key.as_str() > after));
    let page: Vec<(String, Option<Object>)> = remaining.by_ref().take(page_len).collect();
    let is_truncated = page_len > 0 && remaining.next().is_some();
    let next_continuation_token = page
        .last()
        .map(|(key, _)| key.clone())
        .filter(|_| is_truncated);
    let key_count = i32::try_from(page.len()).unwrap_or(i32::MAX);
    let (mut contents, mut common_prefixes) = (Vec::new(), Vec::new());
    for (key, object) in page {
        match object {
            Some(object) => contents.push(object),
            None => common_prefixes.push(CommonPrefix { prefix: Some(key) }),
        }
    }
    Ok(ListObjectsV2Output {
        key_count: Some(key_count),
        max_keys: Some(max_keys),
        is_truncated: Some(is_truncated),
        contents: (!contents.is_empty()).then_some(contents),
        common_prefixes: (!common_prefixes.is_empty()).then_some(common_prefixes),
        continuation_token: input.continuation_token,
        next_continuation_token,
        delimiter: input.delimiter,
        encoding_type: input.encoding_type,
        name: Some(input.bucket),
        prefix: input.prefix,
        start_after: input.start_after,
        ..Default::default()
    })
}

/// An object's ETag as S3 lists it (clients such as s3fs require one in every entry): the one
/// s3s-fs stored when the object was put, which its HEAD and GET answer with too, read from
/// its internal-info file; for an object placed without one, an opaque tag of its length and
/// modification time (S3's ETags are opaque: multipart and encrypted objects' are no MD5).
fn e_tag(root: &Path, bucket: &str, key: &str, metadata: &std::fs::Metadata) -> ETag {
    let info = root.join(format!(
        ".bucket-{}.object-{}.internal.json",
        base64_url(bucket.as_bytes()),
        base64_url(stored(bucket, key).as_bytes())
    ));
    let saved = std::fs::read(info)
        .ok()
        .and_then(|text| serde_json::from_slice::<serde_json::Value>(&text).ok())
        .and_then(|info| info.get("e_tag")?.as_str().map(str::to_string));
    ETag::Strong(saved.unwrap_or_else(|| {
        let modified = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        format!("{:x}-{modified:x}", metadata.len())
    }))
}

/// URL-safe base64 without padding, as s3s-fs names its internal-info files.
fn base64_url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// The v1 listing: the v2 one, its marker as start-after.
pub fn list_v1(names: &Names, root: &Path, input: ListObjectsInput) -> S3Result<ListObjectsOutput> {
    let marker = input.marker.clone();
    let v2 = list_v2(names, root, input.into())?;
    Ok(ListObjectsOutput {
        contents: v2.contents,
        common_prefixes: v2.common_prefixes,
        delimiter: v2.delimiter,
        encoding_type: v2.encoding_type,
        name: v2.name,
        prefix: v2.prefix,
        max_keys: v2.max_keys,
        is_truncated: v2.is_truncated,
        marker,
        next_marker: v2.next_continuation_token,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::base64_url;

    #[test]
    fn names_are_encoded_as_s3s_fs_names_its_files() {
        // The bucket's part of an internal-info file name s3s-fs wrote.
        assert_eq!(base64_url(b"formatbench"), "Zm9ybWF0YmVuY2g");
        assert_eq!(base64_url(b""), "");
        assert_eq!(base64_url(b"a"), "YQ");
        assert_eq!(base64_url(b"ab"), "YWI");
        assert_eq!(base64_url(b"abc"), "YWJj");
        assert_eq!(base64_url(&[0xfb, 0xff]), "-_8");
    }
}
