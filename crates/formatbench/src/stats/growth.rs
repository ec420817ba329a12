//! How a competitor's time grows with the size of its data: the least-squares slope of
//! ln(time) on ln(size) with a percentile-bootstrap interval (1.0 = linear), the layout study's
//! growth ratio (time at the largest size ÷ time at the smallest), and where two competitors'
//! lines cross, interpolated on log-log axes.

use super::quantiles::{median, quantile};
use crate::rng::Rng;

/// A fitted log-log slope with its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slope {
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
}

/// The least-squares slope of ln(y) on ln(x); `None` below two distinct sizes or for a value
/// that is not positive.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    if points.len() < 2 || points.iter().any(|&(x, y)| !(x > 0.0 && y > 0.0)) {
        return None;
    }
    let n = points.len() as f64;
    let logs: Vec<(f64, f64)> = points.iter().map(|&(x, y)| (x.ln(), y.ln())).collect();
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

/// The slope through each size's median time, with a 95 % interval: each size's samples drawn
/// again with replacement, their medians refit, `resamples` times. `sizes` holds each size with
/// its samples' times.
pub fn slope_with_interval(
    sizes: &[(f64, Vec<f64>)],
    resamples: usize,
    seed: u64,
) -> Option<Slope> {
    let medians: Vec<(f64, f64)> = sizes
        .iter()
        .map(|(x, samples)| Some((*x, median(samples)?)))
        .collect::<Option<_>>()?;
    let estimate = log_log_slope(&medians)?;
    let mut rng = Rng::new(seed, sizes.len() as u64);
    let mut slopes = Vec::with_capacity(resamples);
    let mut points = medians;
    let mut drawn = Vec::new();
    for _ in 0..resamples {
        for (point, (_, samples)) in points.iter_mut().zip(sizes) {
            drawn.clear();
            drawn.extend(
                (0..samples.len()).map(|_| samples[rng.below(samples.len() as u64) as usize]),
            );
            point.1 = median(&drawn)?;
        }
        slopes.extend(log_log_slope(&points));
    }
    slopes.sort_by(f64::total_cmp);
    Some(Slope {
        estimate,
        lo: quantile(&slopes, 0.025)?,
        hi: quantile(&slopes, 0.975)?,
    })
}

/// The time at the largest size ÷ the time at the smallest (`points` in any order).
pub fn growth_ratio(points: &[(f64, f64)]) -> Option<f64> {
    let smallest = points.iter().min_by(|a, b| a.0.total_cmp(&b.0))?;
    let largest = points.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    (largest.0 > smallest.0 && smallest.1 > 0.0).then(|| largest.1 / smallest.1)
}

/// Where A's line crosses B's between sizes `x0` and `x1`, given the ratio of A's time over
/// B's at each: on log-log axes both lines are straight between the two sizes, so ln(ratio) is
/// linear in ln(size) and its zero is interpolated. `None` unless the ratio is on opposite
/// sides of 1 at the two sizes.
pub fn crossing(x0: f64, ratio0: f64, x1: f64, ratio1: f64) -> Option<f64> {
    if !(x0 > 0.0 && x1 > 0.0 && ratio0 > 0.0 && ratio1 > 0.0) {
        return None;
    }
    let (d0, d1) = (ratio0.ln(), ratio1.ln());
    if d0 * d1 >= 0.0 {
        return None;
    }
    let t = d0 / (d0 - d1);
    Some((x0.ln() + t * (x1.ln() - x0.ln())).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linear_cost_has_slope_one_and_a_constant_one_zero() {
        let linear = [(1e5, 0.01), (1e6, 0.1), (5e6, 0.5)];
        assert!((log_log_slope(&linear).unwrap() - 1.0).abs() < 1e-12);
        let constant = [(1e5, 0.02), (1e6, 0.02)];
        assert!(log_log_slope(&constant).unwrap().abs() < 1e-12);
        assert!((growth_ratio(&linear).unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(log_log_slope(&[(1e5, 0.01)]), None);
        assert_eq!(log_log_slope(&[(1e5, 0.01), (1e5, 0.02)]), None);
        assert_eq!(log_log_slope(&[(1e5, 0.0), (1e6, 0.02)]), None);
    }

    #[test]
    fn the_interval_holds_the_slope_and_widens_with_noise() {
        let steady: Vec<(f64, Vec<f64>)> = [1e5, 1e6, 1e7]
            .iter()
            .map(|&x| (x, vec![x * 1e-7; 5]))
            .collect();
        let s = slope_with_interval(&steady, 2_000, 7).unwrap();
        assert!(
            (s.estimate - 1.0).abs() < 1e-9 && (s.hi - s.lo).abs() < 1e-9,
            "{s:?}"
        );
        let noisy: Vec<(f64, Vec<f64>)> = [1e5, 1e6, 1e7]
            .iter()
            .map(|&x| {
                (
                    x,
                    [0.5, 0.8, 1.0, 1.25, 2.0]
                        .iter()
                        .map(|f| f * x * 1e-7)
                        .collect(),
                )
            })
            .collect();
        let n = slope_with_interval(&noisy, 2_000, 7).unwrap();
        assert!(n.lo < n.estimate && n.estimate < n.hi, "{n:?}");
        assert!(n.lo < 1.0 && 1.0 < n.hi, "{n:?}");
        // The same seed gives the same interval.
        assert_eq!(slope_with_interval(&noisy, 2_000, 7), Some(n));
    }

    #[test]
    fn lines_cross_where_the_ratio_passes_one() {
        // A is half B's time at 1e5 and twice it at 1e7: they meet at 1e6 on log axes.
        let at = crossing(1e5, 0.5, 1e7, 2.0).unwrap();
        assert!((at / 1e6 - 1.0).abs() < 1e-9, "{at}");
        assert_eq!(crossing(1e5, 0.5, 1e7, 0.9), None);
        assert_eq!(crossing(1e5, 1.5, 1e7, 2.0), None);
    }
}
