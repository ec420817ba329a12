//! How a competitor's time grows with the size of its data: the least-squares slope of
//! ln(time) on ln(size) with a t interval and a lack-of-fit test (1.0 = linear), the layout study's
//! growth ratio (time at the largest size ÷ time at the smallest), and where two competitors'
//! lines cross, interpolated on log-log axes.

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

/// What a sweep's times support about their growth (see [`slope_fit`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlopeFit {
    /// A straight line on log-log axes fits (or only two sizes were run, where any line does
    /// and `sizes` says so): the slope with its 95 % t interval.
    Line { slope: Slope, sizes: usize },
    /// Three or more sizes whose mean log times stray from the best line by more than their
    /// own noise allows (lack-of-fit F test, p below 5 %): no single slope describes them (a
    /// fixed cost bends the line), so none is given.
    Curved { p_value: f64 },
    /// One sample at some size: the slope has no interval.
    NoInterval { estimate: f64 },
}

/// The slope of ln(time) on ln(size) fitted to every sample (each size's mean log time,
/// weighted by its samples), with a 95 % t interval from the samples' spread within sizes
/// (pure error, N − k degrees of freedom), and a lack-of-fit test where three or more sizes
/// allow one. `sizes` holds each size with its samples' times.
pub fn slope_fit(sizes: &[(f64, Vec<f64>)]) -> Option<SlopeFit> {
    let groups: Vec<(f64, Vec<f64>)> = sizes
        .iter()
        .map(|(x, times)| {
            let logs: Option<Vec<f64>> = times.iter().map(|t| (*t > 0.0).then(|| t.ln())).collect();
            Some((x.ln(), logs.filter(|l| !l.is_empty())?))
        })
        .collect::<Option<_>>()?;
    let k = groups.len();
    let total: usize = groups.iter().map(|(_, y)| y.len()).sum();
    let weight = |y: &Vec<f64>| y.len() as f64;
    let mean = |y: &Vec<f64>| y.iter().sum::<f64>() / y.len() as f64;
    let x_bar = groups.iter().map(|(x, y)| weight(y) * x).sum::<f64>() / total as f64;
    let y_bar = groups.iter().map(|(_, y)| weight(y) * mean(y)).sum::<f64>() / total as f64;
    let sxx: f64 = groups
        .iter()
        .map(|(x, y)| weight(y) * (x - x_bar).powi(2))
        .sum();
    if k < 2 || sxx <= 0.0 {
        return None;
    }
    let sxy: f64 = groups
        .iter()
        .map(|(x, y)| weight(y) * (x - x_bar) * (mean(y) - y_bar))
        .sum();
    let estimate = sxy / sxx;
    let pure_error: f64 = groups
        .iter()
        .map(|(_, y)| {
            let m = mean(y);
            y.iter().map(|v| (v - m).powi(2)).sum::<f64>()
        })
        .sum();
    let pure_df = (total - k) as f64;
    if pure_df < 1.0 || groups.iter().any(|(_, y)| y.len() < 2) {
        return Some(SlopeFit::NoInterval { estimate });
    }
    let sigma2 = pure_error / pure_df;
    if k >= 3 {
        let lack: f64 = groups
            .iter()
            .map(|(x, y)| weight(y) * (mean(y) - (y_bar + estimate * (x - x_bar))).powi(2))
            .sum();
        let lack_df = (k - 2) as f64;
        let p_value = f_upper_tail(lack / lack_df, sigma2, lack_df, pure_df);
        if p_value < 0.05 {
            return Some(SlopeFit::Curved { p_value });
        }
    }
    let half = super::t_quantile(0.975, pure_df) * (sigma2 / sxx).sqrt();
    Some(SlopeFit::Line {
        slope: Slope {
            estimate,
            lo: estimate - half,
            hi: estimate + half,
        },
        sizes: k,
    })
}

/// P(F ≥ numerator ÷ denominator) for an F distribution with `d1` and `d2` degrees of freedom.
fn f_upper_tail(numerator: f64, denominator: f64, d1: f64, d2: f64) -> f64 {
    if denominator <= 0.0 {
        return if numerator > 0.0 { 0.0 } else { 1.0 };
    }
    let f = numerator / denominator;
    // F's CDF is I_{d1·f / (d1·f + d2)}(d1 / 2, d2 / 2); its upper tail the mirror image.
    super::student::incomplete_beta(d2 / 2.0, d1 / 2.0, d2 / (d2 + d1 * f))
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

    fn sweep(sizes: &[f64], cost: impl Fn(f64) -> f64) -> Vec<(f64, Vec<f64>)> {
        let wobble = [0.97, 1.0, 1.03, 0.99, 1.01];
        sizes
            .iter()
            .map(|&x| (x, wobble.iter().map(|w| w * cost(x)).collect()))
            .collect()
    }

    #[test]
    fn a_line_gets_its_slope_with_an_interval_that_holds_it() {
        let fit = slope_fit(&sweep(&[1e5, 1e6, 1e7], |x| x * 1e-7)).unwrap();
        let SlopeFit::Line { slope, sizes } = fit else {
            panic!("{fit:?}")
        };
        assert_eq!(sizes, 3);
        assert!((slope.estimate - 1.0).abs() < 1e-9, "{slope:?}");
        assert!(
            slope.lo < 1.0 && 1.0 < slope.hi && slope.hi - slope.lo < 0.05,
            "{slope:?}"
        );
        // Noisier samples, a wider interval.
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
        let Some(SlopeFit::Line { slope: wide, .. }) = slope_fit(&noisy) else {
            panic!("a noisy line is still a line")
        };
        assert!(wide.hi - wide.lo > slope.hi - slope.lo);
    }

    #[test]
    fn a_fixed_cost_bends_the_line_and_gets_no_slope() {
        // 50 ms of fixed cost and 10 ns a row: at 1e5, 1e6 and 1e7 rows the log-log points lie
        // on a curve; a straight line's interval would be narrow and wrong.
        let fit = slope_fit(&sweep(&[1e5, 1e6, 1e7], |x| 0.05 + x * 1e-8)).unwrap();
        assert!(
            matches!(fit, SlopeFit::Curved { p_value } if p_value < 0.001),
            "{fit:?}"
        );
        // Two sizes cannot show curvature: the secant, and the table says it is two sizes.
        let two = slope_fit(&sweep(&[1e5, 1e7], |x| 0.05 + x * 1e-8)).unwrap();
        assert!(matches!(two, SlopeFit::Line { sizes: 2, .. }), "{two:?}");
        // One sample a size has no spread to build an interval from.
        let single = [(1e5, vec![0.01]), (1e6, vec![0.1])];
        assert!(matches!(
            slope_fit(&single),
            Some(SlopeFit::NoInterval { .. })
        ));
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
