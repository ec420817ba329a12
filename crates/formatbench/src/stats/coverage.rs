//! The simulations behind every interval the reports, exports and `compare` print
//! (docs/results.md quotes them; compare/simulation.rs uses the same noise for `compare`'s
//! false-call rate and power). Deterministic: a fixed seed per case, so the figures are the
//! same on every machine and every run.
//!
//! Noise models, each on a true ratio of 2.00:
//! - `lognormal`: every sample's time is multiplied by exp(σ·Z), σ = 0.1 (10 % noise);
//! - `outliers`: the same, and one round in ten has an outlier: one of its samples (either
//!   side, equally often) takes twice as long. Unpaired samples each have the outlier with
//!   probability 1 in 10.
//!
//! Paired rounds also get a round effect (exp(0.3·Z), shared by both samples of a round), which
//! pairing must cancel.

use super::discovery::benjamini_hochberg;
use super::interval::{paired_ratio, unpaired_ratio, RatioInterval};
use crate::rng::Rng;
use std::collections::BTreeMap;

const TRUE_RATIO: f64 = 2.0;
const SIGMA: f64 = 0.1;
/// Repetitions per case: the coverage's standard error is then 0.2 percentage points.
const REPETITIONS: usize = 10_000;
/// What every printed 95 % interval must cover, at every n it is printed for.
const COVERAGE: (f64, f64) = (0.93, 0.975);

#[derive(Clone, Copy, Debug)]
pub(crate) enum Noise {
    LogNormal,
    Outliers,
}

pub(crate) const MODELS: [Noise; 2] = [Noise::LogNormal, Noise::Outliers];

fn noise(rng: &mut Rng, model: Noise, outlier_here: bool) -> f64 {
    let slow = match model {
        Noise::Outliers if outlier_here => 2.0,
        _ => 1.0,
    };
    (SIGMA * rng.normal()).exp() * slow
}

/// A's and B's times over `n` rounds, A `TRUE_RATIO` times B.
fn paired_rounds(
    rng: &mut Rng,
    model: Noise,
    n: usize,
) -> (BTreeMap<u32, f64>, BTreeMap<u32, f64>) {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    for round in 1..=n as u32 {
        let shared = (0.3 * rng.normal()).exp();
        let outlier = rng.unit_f64() < 0.1;
        let on_a = rng.unit_f64() < 0.5;
        a.insert(
            round,
            TRUE_RATIO * shared * noise(rng, model, outlier && on_a),
        );
        b.insert(round, shared * noise(rng, model, outlier && !on_a));
    }
    (a, b)
}

/// `n` unpaired samples of a time `scale`.
pub(crate) fn samples(rng: &mut Rng, model: Noise, n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let outlier = rng.unit_f64() < 0.1;
            scale * noise(rng, model, outlier)
        })
        .collect()
}

fn covers(r: &RatioInterval) -> bool {
    r.lo <= TRUE_RATIO && TRUE_RATIO <= r.hi
}

fn assert_coverage(what: &str, model: Noise, n: usize, covered: usize, total: usize) {
    let share = covered as f64 / total as f64;
    assert!(
        (COVERAGE.0..=COVERAGE.1).contains(&share),
        "{what}, {model:?} noise, n = {n}: 95 % intervals covered the true ratio {:.1} % of \
         the time",
        share * 100.0
    );
}

#[test]
fn paired_intervals_cover_95_percent_at_every_round_count() {
    for model in MODELS {
        for n in 2..=20 {
            let mut rng = Rng::new(0xC0FE, (n * 10 + model as usize) as u64);
            let covered = (0..REPETITIONS)
                .filter(|_| {
                    let (a, b) = paired_rounds(&mut rng, model, n);
                    paired_ratio(&a, &b).is_some_and(|r| covers(&r))
                })
                .count();
            assert_coverage("paired", model, n, covered, REPETITIONS);
        }
    }
}

#[test]
fn unpaired_intervals_cover_95_percent_at_every_sample_count() {
    let mut sizes: Vec<(usize, usize)> = (2..=20).map(|n| (n, n)).collect();
    // Two runs of different lengths in `compare`: a short one against a long one.
    sizes.extend([(2, 8), (3, 20), (5, 8), (8, 20)]);
    for model in MODELS {
        for &(na, nb) in &sizes {
            let mut rng = Rng::new(0xC0FF, (na * 100 + nb * 3 + model as usize) as u64);
            let covered = (0..REPETITIONS)
                .filter(|_| {
                    let a = samples(&mut rng, model, na, TRUE_RATIO);
                    let b = samples(&mut rng, model, nb, 1.0);
                    unpaired_ratio(&a, &b).is_some_and(|r| covers(&r))
                })
                .count();
            assert_coverage("unpaired", model, na.min(nb), covered, REPETITIONS);
        }
    }
}

#[test]
fn benjamini_hochberg_of_uniform_p_values_rarely_discovers() {
    // The null: 57 uniform p-values; any discovery at q = 5 % in at most about 5 % of trials.
    let mut rng = Rng::new(0xB4, 1);
    let trials = 4_000;
    let any = (0..trials)
        .filter(|_| {
            let p: Vec<f64> = (0..57).map(|_| rng.unit_f64()).collect();
            benjamini_hochberg(&p, 0.05).into_iter().any(|d| d)
        })
        .count();
    assert!((any as f64 / trials as f64) < 0.06, "{any} of {trials}");
}
