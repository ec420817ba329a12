/// The `p` quantile of sorted values with linear interpolation at (n − 1)·p.
pub fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let pos = (sorted.len() - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64))
}

pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile(&sorted, 0.5)
}

/// Five-number summary of one cell's samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub q25: f64,
    pub median: f64,
    pub q75: f64,
    pub max: f64,
}

impl Summary {
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        Some(Summary {
            n: sorted.len(),
            min: *sorted.first()?,
            q25: quantile(&sorted, 0.25)?,
            median: quantile(&sorted, 0.5)?,
            q75: quantile(&sorted, 0.75)?,
            max: *sorted.last()?,
        })
    }

    /// Noisy when the interquartile range exceeds half the median.
    pub fn noisy(&self) -> bool {
        self.q75 - self.q25 > 0.5 * self.median
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_interpolate_linearly() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_eq!((s.min, s.max, s.median), (1.0, 4.0, 2.5));
        assert!((s.q25 - 1.75).abs() < 1e-12);
        assert!((s.q75 - 3.25).abs() < 1e-12);
        assert_eq!(s.n, 4);
    }

    #[test]
    fn empty_has_no_summary() {
        assert!(Summary::of(&[]).is_none());
        assert!(median(&[]).is_none());
    }

    #[test]
    fn noisy_flag_follows_iqr_rule() {
        assert!(!Summary::of(&[1.0, 1.1, 1.2, 1.3]).unwrap().noisy());
        assert!(Summary::of(&[1.0, 1.0, 3.0, 3.0]).unwrap().noisy());
    }
}
