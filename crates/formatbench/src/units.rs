//! Quantities as people read and write them: durations and byte sizes with three significant
//! digits in the largest fitting unit, and sizes given on the command line. A leaf module: the
//! runner's messages, the plan's checks and every report format the same way through it.

/// Shown where a value is missing; a blank cell would read as "zero" or "forgot to measure".
pub const DASH: &str = "—";

/// Rounds to `digits` significant digits and prints exactly those digits, so `12.3` and `1.20`
/// keep their precision visible and `999.96` becomes `1000` rather than `999.96`.
pub fn significant(v: f64, digits: i32) -> (f64, String) {
    if v == 0.0 || !v.is_finite() {
        return (v, format!("{v}"));
    }
    let exponent = v.abs().log10().floor() as i32;
    let scale = 10f64.powi(digits - 1 - exponent);
    let rounded = (v * scale).round() / scale;
    // Rounding can carry into the next power of ten, which needs one decimal fewer.
    let exponent = rounded.abs().log10().floor() as i32;
    let decimals = (digits - 1 - exponent).max(0) as usize;
    (rounded, format!("{rounded:.decimals$}"))
}

fn three_digits(v: f64) -> (f64, String) {
    significant(v, 3)
}

/// Picks the largest unit in which the value is at least 1, units ordered smallest first.
fn scaled(value: f64, units: &[(f64, &str)]) -> String {
    let mut chosen = None;
    for &(size, name) in units {
        let (rounded, text) = three_digits(value / size);
        if rounded >= 1.0 || chosen.is_none() {
            chosen = Some(format!("{text} {name}"));
        }
    }
    chosen.unwrap_or_else(|| DASH.to_string())
}

/// A ratio at the precision its size needs: "1.03×", "2.1×", "15×".
pub fn ratio(r: f64) -> String {
    if !r.is_finite() {
        return DASH.to_string();
    }
    let d = ratio_decimals(r);
    format!("{r:.d$}×")
}

/// A ratio to two significant digits, for secondary columns: "0.87×", "1.4×", "12×".
pub fn ratio2(r: f64) -> String {
    if !r.is_finite() || r < 0.0 {
        return DASH.to_string();
    }
    format!("{}×", significant(r, 2).1)
}

/// The decimals a ratio is printed with: two below 2×, one below 10×, none above.
pub fn ratio_decimals(r: f64) -> usize {
    if r < 2.0 {
        2
    } else if r < 10.0 {
        1
    } else {
        0
    }
}

/// Seconds as "850 µs", "12.3 ms", "1.24 s" (three significant digits).
pub fn duration(seconds: f64) -> String {
    if !seconds.is_finite() || seconds < 0.0 {
        return DASH.to_string();
    }
    if seconds == 0.0 {
        return "0 s".to_string();
    }
    scaled(
        seconds,
        &[(1e-9, "ns"), (1e-6, "µs"), (1e-3, "ms"), (1.0, "s")],
    )
}

/// A rate with decimal prefixes, as throughputs are read: `rate(5.23e8, "B/s")` is
/// "523 MB/s", `rate(1.2e6, "rows/s")` "1.20 M rows/s".
pub fn rate(per_second: f64, unit: &str) -> String {
    if !per_second.is_finite() || per_second < 0.0 {
        return DASH.to_string();
    }
    let glued = unit.starts_with('B');
    let prefixed = |prefix: &str| match (prefix, glued) {
        ("", _) => unit.to_string(),
        (p, true) => format!("{p}{unit}"),
        (p, false) => format!("{p} {unit}"),
    };
    let units = [
        (1.0, prefixed("")),
        (1e3, prefixed("k")),
        (1e6, prefixed("M")),
        (1e9, prefixed("G")),
        (1e12, prefixed("T")),
    ];
    let named: Vec<(f64, &str)> = units.iter().map(|(s, n)| (*s, n.as_str())).collect();
    scaled(per_second, &named)
}

/// Bytes in binary units: "512 B", "1.50 KiB", "12.3 MiB".
pub fn bytes(n: u64) -> String {
    if n < 1024 {
        return format!("{n} B");
    }
    const K: f64 = 1024.0;
    scaled(
        n as f64,
        &[
            (K, "KiB"),
            (K * K, "MiB"),
            (K * K * K, "GiB"),
            (K * K * K * K, "TiB"),
            (K * K * K * K * K, "PiB"),
        ],
    )
}

/// A size such as `4GiB`, `512 MiB`, `1.5G` or a number of bytes. K, M, G and T, with or
/// without `B` or `iB`, are binary units, as `prlimit` and `ulimit` read them.
pub fn parse_bytes(text: &str) -> Option<u64> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let number: f64 = number.parse().ok()?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => return None,
    };
    let bytes = number * (1u64 << shift) as f64;
    (bytes.is_finite() && bytes < u64::MAX as f64).then_some(bytes as u64)
}

/// A count such as `10k`, `1.5M`, `100_000`, `1e5` or `2G`: k, M and G count thousands (a row
/// count, not bytes); a fraction left over is refused.
pub fn parse_count(text: &str) -> Option<u64> {
    let plain = text.trim().replace('_', "");
    let (number, scale) = match plain.char_indices().last() {
        Some((at, 'k' | 'K')) => (&plain[..at], 1e3),
        Some((at, 'M')) => (&plain[..at], 1e6),
        Some((at, 'G')) => (&plain[..at], 1e9),
        _ => (plain.as_str(), 1.0),
    };
    if let (Ok(n), 1.0) = (number.parse::<u64>(), scale) {
        return Some(n);
    }
    let value = number.trim().parse::<f64>().ok()? * scale;
    (value.is_finite() && value >= 0.0 && value.fract() == 0.0 && value <= 1e15)
        .then_some(value as u64)
}

/// A duration such as `60s`, `1.5m`, `2h`, `500ms` or a plain number of seconds.
pub fn parse_duration(text: &str) -> Option<f64> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number.parse().ok()?;
    let scale = match unit.trim() {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    let seconds = value * scale;
    (seconds.is_finite() && seconds > 0.0).then_some(seconds)
}

/// A relative precision such as `5%` or `0.05`; `off` (or 0) is `Some(None)`.
pub fn parse_precision(text: &str) -> Option<Option<f64>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Some(None);
    }
    let value = match text.strip_suffix('%') {
        Some(percent) => percent.trim().parse::<f64>().ok()? / 100.0,
        None => text.parse::<f64>().ok()?,
    };
    match value {
        0.0 => Some(None),
        v if v > 0.0 && v < 1.0 => Some(Some(v)),
        _ => None,
    }
}

/// A count with thousands separators: 100000 → "100,000".
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Collapses every run of whitespace (reasons often carry a worker's multi-line stderr) into
/// one space, so a reason fits on one table row or list line.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// At most `max` characters (not bytes, so a cut never splits a UTF-8 sequence), with "…"
/// marking a cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_take_decimal_prefixes() {
        assert_eq!(rate(5.234e8, "B/s"), "523 MB/s");
        assert_eq!(rate(1.2e6, "rows/s"), "1.20 M rows/s");
        assert_eq!(rate(950.0, "rows/s"), "950 rows/s");
        assert_eq!(rate(f64::NAN, "B/s"), DASH);
    }

    #[test]
    fn sizes_read_binary_units_and_refuse_nonsense() {
        assert_eq!(parse_bytes("512MiB"), Some(512 << 20));
        assert_eq!(parse_bytes("4G"), Some(4 << 30));
        assert_eq!(parse_bytes("1.5 GiB"), Some(3 << 29));
        assert_eq!(parse_bytes("33554432"), Some(32 << 20));
        for bad in ["", "lots", "4 parsecs", "-1G", "1e400", "99999999999T"] {
            assert_eq!(parse_bytes(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn counts_read_thousands_and_refuse_fractions_and_nonsense() {
        assert_eq!(parse_count("10k"), Some(10_000));
        assert_eq!(parse_count("100K"), Some(100_000));
        assert_eq!(parse_count("1M"), Some(1_000_000));
        assert_eq!(parse_count("1.5M"), Some(1_500_000));
        assert_eq!(parse_count("100_000"), Some(100_000));
        assert_eq!(parse_count("1e5"), Some(100_000));
        assert_eq!(parse_count("1048576"), Some(1_048_576));
        for bad in [
            "", "k", "ten", "1.5", "-1k", "1.00001k", "5 rows", "1e400", "1m",
        ] {
            assert_eq!(parse_count(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn sizes_and_durations_read_in_three_digits() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(256 << 20), "256 MiB");
        assert_eq!(bytes(1536), "1.50 KiB");
        assert_eq!(duration(0.0123), "12.3 ms");
    }

    #[test]
    fn durations_and_precisions_parse_with_their_units() {
        assert_eq!(parse_duration("60s"), Some(60.0));
        assert_eq!(parse_duration("1.5m"), Some(90.0));
        assert_eq!(parse_duration("500ms"), Some(0.5));
        assert_eq!(parse_duration("45"), Some(45.0));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("soon"), None);
        assert_eq!(parse_precision("5%"), Some(Some(0.05)));
        assert_eq!(parse_precision("0.02"), Some(Some(0.02)));
        assert_eq!(parse_precision("off"), Some(None));
        assert_eq!(parse_precision("150%"), None);
    }
}
