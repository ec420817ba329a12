//! Keys as s3s-fs's files. s3s-fs 0.14.1 keeps an object at `BUCKET/KEY` (each part of the key
//! a directory or file name) and its metadata in files named after the key in base64
//! (`.bucket-B.object-K.upload-UUID.metadata.json`, in the server's root). A file name holds
//! 255 bytes, so a key with a part past 255 bytes, or past about 140 bytes in all, failed
//! (500): S3 allows 1,024. Such a key is stored under a stand-in of fixed length instead,
//! `.formatbench-long-keys/HASH` in its bucket, with the key itself in `HASH.key` beside it,
//! which listings read back. Every other key is stored as it is, where it always was.

use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The folder of stand-ins in each bucket; a key of the user's own inside it is stood in for
/// too, so a stand-in never meets a key stored as it is.
pub const LONG_KEYS: &str = ".formatbench-long-keys";
/// The longest file name (ext4, xfs, tmpfs).
const NAME_MAX: usize = 255;
/// The fixed part of s3s-fs's longest metadata file name, `.bucket-` `.object-` `.upload-`,
/// an upload id (a UUID) and `.metadata.json`.
const METADATA_NAME_FIXED: usize = 8 + 8 + 8 + 36 + 14;
const KEY_SUFFIX: &str = ".key";

/// Unpadded base64's length for `n` bytes.
fn base64_len(n: usize) -> usize {
    (4 * n).div_ceil(3)
}

/// Whether s3s-fs can keep `key` of `bucket` as it is: its files fit ([`files_fit`]), and it
/// lies outside the stand-ins' folder.
fn fits(bucket: &str, key: &str) -> bool {
    files_fit(bucket, key) && key.split('/').next() != Some(LONG_KEYS)
}

/// Whether s3s-fs's files for `key` fit: every part a plain file name (not empty, `.` or `..`,
/// at most 255 bytes, no NUL), and its metadata file names within 255 bytes.
fn files_fit(bucket: &str, key: &str) -> bool {
    let plain = key.split('/').all(|part| {
        !part.is_empty()
            && part != "."
            && part != ".."
            && part.len() <= NAME_MAX
            && !part.contains('\0')
    });
    plain && METADATA_NAME_FIXED + base64_len(bucket.len()) + base64_len(key.len()) <= NAME_MAX
}

/// The key's stand-in: 128 bits of its SHA-256, in hex.
fn hash_of(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// What s3s-fs is asked for in place of `key`: the key itself, or its stand-in.
pub fn stored<'a>(bucket: &str, key: &'a str) -> Cow<'a, str> {
    if fits(bucket, key) {
        Cow::Borrowed(key)
    } else {
        Cow::Owned(format!("{LONG_KEYS}/{}", hash_of(key)))
    }
}

/// The stand-ins' keys, read back from their `.key` files and kept: a stand-in's key never
/// changes (the name is its hash).
#[derive(Default)]
pub struct Names {
    known: Mutex<HashMap<PathBuf, String>>,
}

impl Names {
    /// Records the key a stand-in stands for, before its object is written (a listing skips a
    /// stand-in without a name, never shows one without its key).
    pub fn remember(&self, root: &Path, bucket: &str, key: &str) -> std::io::Result<()> {
        let stored = stored(bucket, key);
        if stored == key {
            return Ok(());
        }
        let name = name_file(&root.join(bucket).join(stored.as_ref()));
        if let Some(dir) = name.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(&name, key)?;
        if let Ok(mut known) = self.known.lock() {
            known.insert(name, key.to_string());
        }
        Ok(())
    }

    /// Forgets a deleted stand-in's key (its object is gone).
    pub fn forget(&self, root: &Path, bucket: &str, key: &str) {
        let stored = stored(bucket, key);
        if stored == key {
            return;
        }
        let object = root.join(bucket).join(stored.as_ref());
        if object.exists() {
            return;
        }
        let name = name_file(&object);
        let _ = std::fs::remove_file(&name);
        if let Ok(mut known) = self.known.lock() {
            known.remove(&name);
        }
    }

    /// The key the stand-in object at `object` stands for.
    fn key_of(&self, object: &Path) -> Option<String> {
        let name = name_file(object);
        if let Some(key) = self.known.lock().ok()?.get(&name) {
            return Some(key.clone());
        }
        let key = std::fs::read_to_string(&name).ok()?;
        if let Ok(mut known) = self.known.lock() {
            known.insert(name, key.clone());
        }
        Some(key)
    }
}

fn name_file(object: &Path) -> PathBuf {
    let mut name = object.as_os_str().to_owned();
    name.push(KEY_SUFFIX);
    PathBuf::from(name)
}

/// An object as a listing shows it.
pub struct Listed {
    pub key: String,
    pub path: PathBuf,
}

/// Every object in the bucket folder `bucket_dir` whose key starts with `prefix`, by its key
/// (a stand-in by the key it stands for). Folders that cannot hold such a key are not read.
pub fn objects_under(
    names: &Names,
    bucket_dir: &Path,
    prefix: &str,
) -> std::io::Result<Vec<Listed>> {
    let mut out = Vec::new();
    let mut folders = vec![(bucket_dir.to_path_buf(), String::new())];
    while let Some((dir, key_prefix)) = folders.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let path = entry.path();
            let kind = entry.file_type()?;
            if key_prefix.is_empty() && name == LONG_KEYS {
                if kind.is_dir() {
                    out.extend(stand_ins(names, &path, prefix)?);
                }
                continue;
            }
            let key = format!("{key_prefix}{name}");
            if kind.is_dir() {
                let below = format!("{key}/");
                if below.starts_with(prefix) || prefix.starts_with(&below) {
                    folders.push((path, below));
                }
            } else if kind.is_file() && key.starts_with(prefix) {
                out.push(Listed { key, path });
            }
        }
    }
    Ok(out)
}

/// The stand-ins in `dir` whose keys start with `prefix`.
fn stand_ins(names: &Names, dir: &Path, prefix: &str) -> std::io::Result<Vec<Listed>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let is_name = path.extension().and_then(|e| e.to_str()) == KEY_SUFFIX.strip_prefix('.');
        if is_name || !entry.file_type()?.is_file() {
            continue;
        }
        if let Some(key) = names.key_of(&path).filter(|k| k.starts_with(prefix)) {
            out.push(Listed { key, path });
        }
    }
    Ok(out)
}

/// Removes, on the server's disk, every object of the bucket folder `bucket_dir` whose key
/// starts with `prefix/` (a write sample's output): the folder they lie in, and the stand-ins
/// of those too long to lie there.
pub fn remove_under(bucket_dir: &Path, prefix: &str) {
    let _ = std::fs::remove_dir_all(bucket_dir.join(prefix));
    let below = format!("{prefix}/");
    let Ok(entries) = std::fs::read_dir(bucket_dir.join(LONG_KEYS)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.path();
        if name.extension().and_then(|e| e.to_str()) != KEY_SUFFIX.strip_prefix('.') {
            continue;
        }
        if std::fs::read_to_string(&name).is_ok_and(|key| key.starts_with(&below)) {
            let _ = std::fs::remove_file(name.with_extension(""));
            let _ = std::fs::remove_file(&name);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_stood_in_for_only_where_its_files_would_not_fit() {
        assert_eq!(stored("b", "run/k/data.parquet"), "run/k/data.parquet");
        // A part past a file name's 255 bytes, or a key whose metadata name would pass them.
        for key in [
            "x".repeat(256),
            format!("a/{}", "b/".repeat(80)),
            "a//b".into(),
        ] {
            let standing = stored("b", &key);
            assert!(standing.starts_with(".formatbench-long-keys/"), "{key}");
            assert_eq!(standing.len(), LONG_KEYS.len() + 33);
            assert!(files_fit("b", &standing), "{standing}");
        }
        // The longest key kept as it is: 124 bytes in formatbench's own bucket, 72 in one of
        // 63 characters (S3's longest name); the stand-in of any key fits either.
        let longest = |bucket: &str| {
            (1..=1024)
                .rev()
                .find(|n| fits(bucket, &"k".repeat(*n)))
                .unwrap_or(0)
        };
        let bucket = "b".repeat(63);
        assert_eq!((longest("formatbench"), longest(&bucket)), (124, 72));
        assert!(files_fit(&bucket, &stored(&bucket, &"k".repeat(1024))));
        // A key of the user's own in the stand-ins' folder is stood in for as well.
        assert_ne!(
            stored("b", ".formatbench-long-keys/x"),
            ".formatbench-long-keys/x"
        );
        assert_ne!(stored("b", "dir/"), "dir/");
    }

    #[test]
    fn a_prefix_is_removed_with_the_stand_ins_of_its_long_keys() {
        let root = tempfile::tempdir().unwrap();
        let bucket = root.path().join("b");
        let names = Names::default();
        let long = |dir: &str| format!("run/{dir}/{}", "x".repeat(300));
        for key in [
            long("w1"),
            long("w2"),
            "run/w1/short".into(),
            "run/w2/short".into(),
        ] {
            names.remember(root.path(), "b", &key).unwrap();
            let file = bucket.join(stored("b", &key).as_ref());
            std::fs::create_dir_all(file.parent().unwrap_or(&bucket)).unwrap();
            std::fs::write(file, "object").unwrap();
        }
        remove_under(&bucket, "run/w1");
        let mut left: Vec<String> = objects_under(&Names::default(), &bucket, "")
            .unwrap()
            .into_iter()
            .map(|o| o.key)
            .collect();
        left.sort();
        assert_eq!(left, ["run/w2/short".to_string(), long("w2")]);
        // Nothing of the removed key is left, its name file neither.
        assert_eq!(
            std::fs::read_dir(bucket.join(LONG_KEYS))
                .map(|d| d.count())
                .unwrap_or(0),
            2
        );
    }
}
