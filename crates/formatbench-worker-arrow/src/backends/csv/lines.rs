//! Line-level access to a CSV body without quotes: with no quoted field, every newline ends a
//! record and every comma ends a field, so rows can be located by a newline scan and a single
//! field read without tokenizing the rest of the line. Takes and index ranges then parse only the
//! lines they return, as a CSV reader with row skipping does.

/// The data lines of a body (the file after its header line).
pub struct Lines<'a> {
    body: &'a [u8],
    /// `starts[i]` is line i's first byte; the last entry is the body's length.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    pub fn new(body: &'a [u8]) -> Self {
        let mut starts = Vec::with_capacity(body.len() / 64 + 2);
        starts.push(0);
        starts.extend(
            memchr::memchr_iter(b'\n', body)
                .map(|i| i + 1)
                .filter(|&s| s < body.len()),
        );
        if body.is_empty() {
            starts.clear();
        }
        starts.push(body.len());
        Lines { body, starts }
    }

    pub fn count(&self) -> usize {
        self.starts.len() - 1
    }

    /// Lines `[start, end)` as one slice.
    pub fn span(&self, start: usize, end: usize) -> &'a [u8] {
        &self.body[self.starts[start]..self.starts[end]]
    }

    /// Field `k` (0-based) of line `i`, without its line ending.
    pub fn field(&self, i: usize, k: usize) -> Option<&'a [u8]> {
        let line = self.span(i, i + 1);
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        line.split(|&b| b == b',').nth(k)
    }

    /// The lines at `positions`, in that order, each ending with a newline.
    pub fn gather(&self, positions: impl IntoIterator<Item = usize>) -> Vec<u8> {
        self.gather_spans(positions.into_iter().map(|i| (i, i + 1)))
    }

    /// The line spans `[start, end)`, in that order, each copied in one piece and ending with a
    /// newline.
    pub fn gather_spans(&self, spans: impl IntoIterator<Item = (usize, usize)>) -> Vec<u8> {
        let mut out = Vec::new();
        for (start, end) in spans {
            out.extend_from_slice(self.span(start, end));
            if out.last() != Some(&b'\n') {
                out.push(b'\n');
            }
        }
        out
    }

    /// Lines whose integer field `k` lies in `[lo, hi)`, in file order; `None` when a field is
    /// not a plain integer (the caller then parses the whole file).
    pub fn where_integer_in(&self, k: usize, lo: i64, hi: i64) -> Option<Vec<usize>> {
        let mut matched = Vec::new();
        for i in 0..self.count() {
            let field = self.field(i, k)?;
            if field.is_empty() {
                continue; // a null never matches a range
            }
            let value: i64 = std::str::from_utf8(field).ok()?.parse().ok()?;
            if (lo..hi).contains(&value) {
                matched.push(i);
            }
        }
        Some(matched)
    }
}

/// Runs of consecutive line numbers as `[start, end)` spans, so contiguous selections are copied
/// in one piece.
pub fn runs(lines: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &i in lines {
        match out.last_mut() {
            Some((_, end)) if *end == i => *end = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &[u8] = b"0,a,1.5\n1,b,2.5\n2,,3.5\n3,d,4.5";

    #[test]
    fn lines_and_fields() {
        let lines = Lines::new(BODY);
        assert_eq!(lines.count(), 4);
        assert_eq!(lines.span(1, 3), b"1,b,2.5\n2,,3.5\n");
        assert_eq!(lines.field(2, 1), Some(&b""[..]));
        assert_eq!(lines.field(3, 2), Some(&b"4.5"[..]));
        assert_eq!(lines.field(0, 3), None);
        assert_eq!(lines.gather([3, 0]), b"3,d,4.5\n0,a,1.5\n");
        assert_eq!(Lines::new(b"").count(), 0);
        assert_eq!(Lines::new(b"x\n").count(), 1);
    }

    #[test]
    fn integer_ranges_and_runs() {
        let lines = Lines::new(BODY);
        assert_eq!(lines.where_integer_in(0, 1, 3), Some(vec![1, 2]));
        assert_eq!(lines.where_integer_in(1, 0, 9), None);
        assert_eq!(runs(&[1, 2, 3, 7, 8, 10]), vec![(1, 4), (7, 9), (10, 11)]);
    }
}
