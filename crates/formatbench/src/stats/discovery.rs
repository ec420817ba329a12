//! False discovery control for a comparison of many cells at once. Each cell's test holds its
//! own error rate, but a comparison of 57 cells at 5 % each calls something in most
//! comparisons of identical runs; the Benjamini–Hochberg step-up procedure keeps the expected
//! share of false calls among all calls at `q` instead (and, when nothing changed at all, the
//! chance of any false call at `q`).

/// Which of `p_values` are discoveries at false discovery rate `q` (Benjamini–Hochberg: with
/// the p-values sorted, the largest k with p_(k) ≤ k·q/m, and every p-value up to it). Valid for
/// independent tests and positively dependent ones, as cells measured on one machine are.
pub fn benjamini_hochberg(p_values: &[f64], q: f64) -> Vec<bool> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let cutoff = order
        .iter()
        .enumerate()
        .filter(|(rank, &i)| p_values[i] <= (*rank + 1) as f64 * q / m as f64)
        .map(|(rank, _)| rank + 1)
        .max()
        .unwrap_or(0);
    let mut out = vec![false; m];
    for &i in order.iter().take(cutoff) {
        out[i] = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_up_rule() {
        // m = 5, q = 0.05: thresholds 0.01, 0.02, 0.03, 0.04, 0.05. p_(3) = 0.025 ≤ 0.03, so the
        // three smallest are discoveries though p_(2) = 0.021 is above its own 0.02.
        let p = [0.5, 0.021, 0.001, 0.025, 0.045];
        assert_eq!(
            benjamini_hochberg(&p, 0.05),
            vec![false, true, true, true, false]
        );
        assert!(benjamini_hochberg(&[0.04, 0.9], 0.05).iter().all(|d| !d));
        assert_eq!(benjamini_hochberg(&[0.04], 0.05), vec![true]);
        assert!(benjamini_hochberg(&[], 0.05).is_empty());
    }
}
