//! Number and text formatting shared by every report, so the terminal, Markdown and HTML
//! outputs never disagree about how a value reads.

pub use crate::units::{
    bytes, count, duration, one_line, ratio, ratio2, ratio_decimals, truncate, DASH,
};

/// A ratio with its interval, the bounds at the estimate's precision: "1.36× [1.30–1.41]".
pub fn ratio_interval(estimate: f64, lo: f64, hi: f64) -> String {
    if !(estimate.is_finite() && lo.is_finite() && hi.is_finite()) {
        return DASH.to_string();
    }
    let d = ratio_decimals(estimate);
    format!("{estimate:.d$}× [{lo:.d$}–{hi:.d$}]")
}

/// A fraction as a whole percentage: 0.953 → "95 %".
pub fn percent(f: f64) -> String {
    if f.is_finite() {
        format!("{:.0} %", f * 100.0)
    } else {
        DASH.to_string()
    }
}

/// Two decimals, for parallelism (CPU ÷ wall).
pub fn two_decimals(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.2}")
    } else {
        DASH.to_string()
    }
}

pub fn per_value(b: f64) -> String {
    if b.is_finite() {
        format!("{b:.2}")
    } else {
        DASH.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_keep_three_significant_digits() {
        assert_eq!(duration(0.0123), "12.3 ms");
        assert_eq!(duration(0.00085), "850 µs");
        assert_eq!(duration(1.24), "1.24 s");
        assert_eq!(duration(1.0), "1.00 s");
        assert_eq!(duration(0.0000000042), "4.20 ns");
        assert_eq!(duration(123.456), "123 s");
        assert_eq!(duration(0.0), "0 s");
        assert_eq!(duration(f64::NAN), DASH);
    }

    #[test]
    fn durations_carry_into_the_next_unit() {
        assert_eq!(duration(0.99996), "1.00 s");
        assert_eq!(duration(0.0099996), "10.0 ms");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(1023), "1023 B");
        assert_eq!(bytes(1024), "1.00 KiB");
        assert_eq!(bytes(1536), "1.50 KiB");
        assert_eq!(bytes(12_345_678), "11.8 MiB");
        assert_eq!(bytes(64 * 1024 * 1024 * 1024), "64.0 GiB");
    }

    #[test]
    fn ratios_and_counts() {
        assert_eq!(ratio(1.0), "1.00×");
        assert_eq!(ratio(3.4), "3.4×");
        assert_eq!(ratio(12.4), "12×");
        assert_eq!(per_value(2.0234), "2.02");
        assert_eq!(count(100_000), "100,000");
        assert_eq!(count(999), "999");
        assert_eq!(count(1_234_567), "1,234,567");
    }

    #[test]
    fn intervals_and_secondary_numbers() {
        assert_eq!(ratio_interval(1.3612, 1.2961, 1.4149), "1.36× [1.30–1.41]");
        assert_eq!(ratio_interval(3.62, 3.5, 3.81), "3.6× [3.5–3.8]");
        assert_eq!(ratio_interval(1.0, 1.0, 1.0), "1.00× [1.00–1.00]");
        assert_eq!(ratio_interval(f64::NAN, 1.0, 1.0), DASH);
        assert_eq!(ratio2(1.0), "1.0×");
        assert_eq!(ratio2(0.873), "0.87×");
        assert_eq!(ratio2(12.4), "12×");
        assert_eq!(ratio2(126.0), "130×");
        assert_eq!(percent(0.953), "95 %");
        assert_eq!(percent(0.02), "2 %");
        assert_eq!(two_decimals(1.9), "1.90");
    }

    #[test]
    fn text_helpers() {
        assert_eq!(
            crate::document::html_escape(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(one_line("a\n  b\tc "), "a b c");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("µµµ", 3), "µµµ");
    }
}
