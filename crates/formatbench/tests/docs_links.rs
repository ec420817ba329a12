#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The README is a front door and the guide under docs/ holds the rest, so their links are the
//! way in: every relative link in README.md and the repository's other Markdown files (docs/,
//! crates/, workers/) names a file that exists and, with `#anchor`, a heading of that file as
//! GitHub slugs it. Links to other sites, and anything inside code, are not checked. CI runs
//! this with the rest of `cargo test`, so a broken link or anchor fails it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

/// The README's size limit: a front door, with the rest in docs/guide/.
const README_MAX_BYTES: u64 = 15 * 1024;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// README.md and every `.md` file under docs/, crates/ and workers/ (build output and hidden
/// folders left out).
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    walk(&path, found);
                }
            } else if name.ends_with(".md") {
                found.push(path);
            }
        }
    }
    let mut found = vec![root.join("README.md")];
    for dir in ["docs", "crates", "workers"] {
        walk(&root.join(dir), &mut found);
    }
    found.sort();
    found
}

/// The text outside fenced code blocks and code spans, the code blanked out (line breaks kept,
/// so positions still give line numbers).
fn prose(text: &str) -> String {
    blank_code_spans(&blank_fenced_code(text))
}

/// The text with its fenced code blocks blanked out.
fn blank_fenced_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<String> = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let marker: String = trimmed
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let opens = indent <= 3
            && marker.len() >= 3
            && marker
                .chars()
                .all(|c| c == marker.chars().next().unwrap_or('`'));
        match &fence {
            Some(open) => {
                if opens
                    && marker.starts_with(open.as_str())
                    && trimmed[marker.len()..].trim().is_empty()
                {
                    fence = None;
                }
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None if opens => {
                fence = Some(marker);
                out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Blanks each code span: a run of backticks to the next run of the same length within its
/// paragraph (an unmatched run is literal text, as in CommonMark).
fn blank_code_spans(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&c| c == '`').count();
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '\n'
                && chars[j + 1..]
                    .iter()
                    .take_while(|c| **c != '\n')
                    .all(|c| c.is_whitespace())
            {
                break; // a blank line ends the paragraph
            }
            if chars[j] == '`' {
                let other = chars[j..].iter().take_while(|&&c| c == '`').count();
                if other == run {
                    close = Some(j);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match close {
            Some(end) => {
                for c in &mut out[i..end + run] {
                    if *c != '\n' {
                        *c = ' ';
                    }
                }
                i = end + run;
            }
            None => i += run,
        }
    }
    out.into_iter().collect()
}

/// Each link target in prose with its line: inline links and images `[text](target "title")`
/// and reference definitions `[name]: target`.
fn links(text: &str) -> Vec<(usize, String)> {
    let prose = prose(text);
    let mut found = Vec::new();
    for (at, _) in prose.match_indices("](") {
        let rest = &prose[at + 2..];
        let target = if let Some(angled) = rest.strip_prefix('<') {
            angled.split('>').next().unwrap_or("").to_string()
        } else {
            // Up to the closing parenthesis, nested pairs allowed; a title after a space.
            let mut depth = 0;
            let end = rest
                .char_indices()
                .find(|&(_, c)| match c {
                    '(' => {
                        depth += 1;
                        false
                    }
                    ')' if depth == 0 => true,
                    ')' => {
                        depth -= 1;
                        false
                    }
                    c => c.is_whitespace(),
                })
                .map_or(rest.len(), |(i, _)| i);
            rest[..end].to_string()
        };
        found.push((line_of(&prose, at), target));
    }
    for (number, line) in prose.lines().enumerate() {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 3 || !trimmed.starts_with('[') {
            continue;
        }
        if let Some((label, target)) = trimmed[1..].split_once("]:") {
            if !label.is_empty() && !label.contains(']') {
                let target = target.split_whitespace().next().unwrap_or("");
                found.push((number + 1, target.trim_matches(['<', '>']).to_string()));
            }
        }
    }
    found
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// GitHub's anchor for a heading's text: lowercased, spaces to '-', every character but
/// letters, digits, '-' and '_' dropped (a link's text kept, its target not).
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(open) = rest.find("](") {
        text.push_str(&rest[..open]);
        rest = rest[open + 2..]
            .split_once(')')
            .map_or("", |(_, after)| after);
    }
    text.push_str(rest);
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's ATX headings, a repeated one numbered -1, -2, … as GitHub
/// does.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut anchors = BTreeSet::new();
    // A heading's code spans are part of its anchor, so only fenced blocks are left out.
    for line in blank_fenced_code(text).lines() {
        let trimmed = line.trim_start();
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let hashes = trimmed.chars().take_while(|&c| c == '#').count();
        let body = &trimmed[hashes..];
        if !(1..=6).contains(&hashes) || !(body.is_empty() || body.starts_with([' ', '\t'])) {
            continue;
        }
        let body = body.trim().trim_end_matches('#').trim_end();
        let base = slug(body);
        let count = seen.entry(base.clone()).or_insert(0);
        anchors.insert(match *count {
            0 => base,
            n => format!("{base}-{n}"),
        });
        *count += 1;
    }
    anchors
}

/// What is wrong with each relative link of `file`, as "file:line: target: why".
fn broken_links(root: &Path, file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let shown = file
        .strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string();
    let mut broken = Vec::new();
    for (line, target) in links(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let path = path.replace("%20", " ");
        let resolved = if path.is_empty() {
            file.to_path_buf()
        } else {
            normalise(&file.parent().unwrap().join(&path))
        };
        let why = if target.is_empty() {
            Some("an empty link".to_string())
        } else if !resolved.starts_with(root) {
            Some("points outside the repository".to_string())
        } else if !resolved.exists() {
            Some("no such file".to_string())
        } else if !anchor.is_empty() && resolved.extension().is_some_and(|e| e == "md") {
            let headings = anchors(&std::fs::read_to_string(&resolved).unwrap());
            (!headings.contains(anchor)).then(|| format!("no heading has the anchor #{anchor}"))
        } else {
            None
        };
        if let Some(why) = why {
            broken.push(format!("{shown}:{line}: ({target}): {why}"));
        }
    }
    broken
}

/// `a/b/../c` as `a/c`, without touching the file system (the target may not exist).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_in_the_readme_and_the_docs_names_a_file_and_heading_that_exist() {
    let root = repo_root();
    let files = markdown_files(&root);
    assert!(
        files.iter().any(|f| f.ends_with("docs/guide/README.md")),
        "{files:?}"
    );
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        checked += links(&std::fs::read_to_string(file).unwrap()).len();
        broken.extend(broken_links(&root, file));
    }
    assert!(
        checked > 50,
        "only {checked} links found: the scanner misses links"
    );
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_a_front_door_of_at_most_15_kib() {
    let size = std::fs::metadata(repo_root().join("README.md"))
        .unwrap()
        .len();
    assert!(
        size <= README_MAX_BYTES,
        "README.md is {size} bytes, over {README_MAX_BYTES}: move the detail into a chapter of \
         docs/guide/ and link it"
    );
}

#[test]
fn every_chapter_of_the_guide_is_in_its_contents() {
    let guide = repo_root().join("docs/guide");
    let contents = std::fs::read_to_string(guide.join("README.md")).unwrap();
    let listed: BTreeSet<String> = links(&contents).into_iter().map(|(_, t)| t).collect();
    for entry in std::fs::read_dir(&guide).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name.ends_with(".md") && name != "README.md" {
            assert!(
                listed.contains(&name),
                "docs/guide/README.md does not list {name}"
            );
        }
    }
}

#[test]
fn anchors_are_githubs_slugs_numbered_when_repeated() {
    let text = "# How `compare` decides\n\
                ## Seed 003 over object storage: `suite delta-s3`\n\
                ### Heavy backends: DuckDB, Lance, Vortex, Zarr, Delta Lake\n\
                ## Partition size: FeatherStore's trade-off\n\
                ## Notes\n## Notes\n## Notes\n\
                ## A [linked](other.md) heading ##\n\
                ```\n# not a heading\n```\n\
                #not-a-heading-either\n";
    let expected: BTreeSet<String> = [
        "how-compare-decides",
        "seed-003-over-object-storage-suite-delta-s3",
        "heavy-backends-duckdb-lance-vortex-zarr-delta-lake",
        "partition-size-featherstores-trade-off",
        "notes",
        "notes-1",
        "notes-2",
        "a-linked-heading",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(anchors(text), expected);
}

#[test]
fn a_missing_file_or_anchor_is_reported_and_code_and_other_sites_are_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("docs/guide")).unwrap();
    std::fs::write(
        root.join("docs/guide/ci.md"),
        "# Continuous integration\n## Steps\n",
    )
    .unwrap();
    let readme = root.join("README.md");
    std::fs::write(
        &readme,
        "# Front\n\
         [ci](docs/guide/ci.md) and [its steps](docs/guide/ci.md#steps), [here](#front),\n\
         [gone](docs/guide/gone.md), [no anchor](docs/guide/ci.md#budget), [self](#nowhere),\n\
         [outside](../elsewhere.md), [a site](https://example.com/x.md#y),\n\
         `[code](docs/missing.md)` and a span over two lines `[x](a.md)\n\
         (b.md)`, ![a picture](docs/picture.svg)\n\
         ```sh\n[in a block](docs/missing.md)\n```\n\
         [ref]: docs/guide/ci.md#nothing\n",
    )
    .unwrap();
    let broken = broken_links(&root, &readme);
    assert_eq!(
        broken,
        [
            "README.md:3: (docs/guide/gone.md): no such file",
            "README.md:3: (docs/guide/ci.md#budget): no heading has the anchor #budget",
            "README.md:3: (#nowhere): no heading has the anchor #nowhere",
            "README.md:4: (../elsewhere.md): points outside the repository",
            "README.md:6: (docs/picture.svg): no such file",
            "README.md:10: (docs/guide/ci.md#nothing): no heading has the anchor #nothing",
        ],
        "{broken:#?}"
    );
}
