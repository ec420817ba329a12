use super::*;
use crate::stats::fixtures::key;

fn stopper(precision: f64, budget_s: Option<f64>, keys: &[&CellKey], rounds: u32) -> Stopper {
    let plan = GroupPlan {
        members: (0..keys.len()).collect(),
        planned_rounds: rounds,
    };
    Stopper::new(
        Stopping {
            precision,
            budget_s,
        },
        keys,
        vec![plan],
        1e-9,
    )
}

/// Times of `base` seconds scaled per competitor, with a small deterministic wobble.
fn wobble(round: u32, cell: usize) -> f64 {
    1.0 + 0.004 * (((round as usize * 7 + cell * 3) % 5) as f64 - 2.0)
}

#[test]
fn steady_ratios_stop_the_group_once_known_to_the_precision() {
    let (a, b, c) = (key("a"), key("b"), key("c"));
    let keys = [&a, &b, &c];
    let mut s = stopper(0.05, None, &keys, 6);
    let mut stopped = Vec::new();
    for round in 1..=6 {
        if s.skips(0, round) {
            break;
        }
        for (cell, scale) in [1.0, 2.0, 4.0].into_iter().enumerate() {
            s.record(cell, round, Some(0.01 * scale * wobble(round, cell)), 0.02);
        }
        stopped.extend(s.after_round(round, &keys, "run"));
    }
    assert_eq!(stopped.len(), 1);
    assert_eq!(stopped[0].reason, "precision");
    assert_eq!(stopped[0].after_round, MIN_ROUNDS);
    assert_eq!(stopped[0].planned_rounds, 6);
    assert!(stopped[0].detail.contains("±5 %"), "{}", stopped[0].detail);
    assert!(s.skips(1, MIN_ROUNDS + 1) && !s.skips(1, MIN_ROUNDS));
    assert!(
        s.finish("run").is_empty(),
        "a stopped group is recorded once"
    );
}

#[test]
fn a_cell_too_fast_for_the_clock_does_not_hold_the_group_back() {
    let (a, b, noop) = (key("a"), key("b"), key("noop"));
    let keys = [&a, &b, &noop];
    let mut s = stopper(0.05, None, &keys, 6);
    let mut stopped = Vec::new();
    for round in 1..=MIN_ROUNDS {
        s.record(0, round, Some(0.01 * wobble(round, 0)), 0.02);
        s.record(1, round, Some(0.02 * wobble(round, 1)), 0.02);
        // 5–15 ns: far under 100 ticks of the (1 ns) clock, and wildly noisy.
        s.record(2, round, Some(5e-9 * f64::from(round)), 0.01);
        stopped.extend(s.after_round(round, &keys, "run"));
    }
    assert_eq!(stopped.len(), 1);
    assert_eq!(stopped[0].after_round, MIN_ROUNDS);
}

#[test]
fn noisy_ratios_run_the_whole_design_and_say_so() {
    let (a, b) = (key("a"), key("b"));
    let keys = [&a, &b];
    let mut s = stopper(0.05, None, &keys, 6);
    for round in 1..=6 {
        // b is 1.5× a in odd rounds and 0.9× in even ones: never known to ±5 %.
        let b_time = if round % 2 == 1 { 0.015 } else { 0.009 };
        s.record(0, round, Some(0.01), 0.02);
        s.record(1, round, Some(b_time), 0.02);
        assert!(
            s.after_round(round, &keys, "run").is_empty(),
            "round {round}"
        );
    }
    let done = s.finish("run");
    assert_eq!(done.len(), 1);
    assert_eq!(
        (done[0].reason.as_str(), done[0].after_round),
        ("design", 6)
    );
}

#[test]
fn a_spent_budget_share_stops_the_group_after_the_minimum_rounds_only() {
    let (a, b) = (key("a"), key("b"));
    let keys = [&a, &b];
    let mut s = stopper(0.0, Some(1.0), &keys, 10);
    for round in 1..MIN_ROUNDS {
        s.record(0, round, Some(0.01), 0.8);
        s.record(1, round, Some(0.02), 0.8);
        assert!(
            s.after_round(round, &keys, "run").is_empty(),
            "round {round}: the budget is spent, but {MIN_ROUNDS} rounds are the floor"
        );
    }
    s.record(0, MIN_ROUNDS, Some(0.01), 0.1);
    s.record(1, MIN_ROUNDS, Some(0.02), 0.1);
    let stopped = s.after_round(MIN_ROUNDS, &keys, "run");
    assert_eq!(stopped.len(), 1);
    assert_eq!(stopped[0].reason, "budget");
    assert!(s.skips(0, MIN_ROUNDS + 1));
}

#[test]
fn the_floor_is_never_the_base_of_a_stop() {
    // The memory-copy floor is fastest and jitters against everything; the formats a and b
    // hold exactly 2× in every round. The reports rank against a, where b is known exactly, so
    // the group stops; measured against the floor it never would.
    let (floor, a, b) = (key(crate::catalog::FLOOR), key("a"), key("b"));
    let keys = [&floor, &a, &b];
    let mut s = stopper(0.05, None, &keys, 6);
    let mut stopped = Vec::new();
    for round in 1..=MIN_ROUNDS {
        let jitter = if round % 2 == 0 { 1.3 } else { 0.7 };
        s.record(0, round, Some(0.001 * jitter), 0.01);
        s.record(1, round, Some(0.01 * wobble(round, 1)), 0.02);
        s.record(2, round, Some(0.02 * wobble(round, 1)), 0.02);
        stopped.extend(s.after_round(round, &keys, "run"));
    }
    assert_eq!(stopped.len(), 1, "{stopped:?}");
    assert_eq!(stopped[0].reason, "precision");
}

#[test]
fn the_stopper_ranks_by_the_call_the_run_ranks_by() {
    let mut sample = SampleRecord::bare("run", key("a"), Some(1), SampleStatus::Ok, None);
    sample.first_call_s = Some(0.5);
    sample.warm_call_s = Some(0.1);
    sample.wall_s = Some(0.2);
    assert_eq!(ranked_time(&sample, CallMode::First), Some(0.5));
    assert_eq!(ranked_time(&sample, CallMode::Warm), Some(0.1));
    sample.status = SampleStatus::Failed;
    assert_eq!(ranked_time(&sample, CallMode::First), None);
}

#[test]
fn a_cell_far_costlier_than_its_group_is_capped_and_named() {
    let keys_owned: Vec<CellKey> = ["a", "b", "c", "slow"].iter().map(|b| key(b)).collect();
    let keys: Vec<&CellKey> = keys_owned.iter().collect();
    let mut s = stopper(0.0, None, &keys, 8);
    for (cell, cost) in [0.1, 0.12, 0.11, 3.0].into_iter().enumerate() {
        s.record(cell, 1, Some(cost / 2.0), cost);
    }
    assert!(s.after_round(1, &keys, "run").is_empty());
    assert!(!s.skips(3, CAPPED_SAMPLES) && s.skips(3, CAPPED_SAMPLES + 1));
    assert!(!s.skips(0, 8), "the others keep the whole design");
    let done = s.finish("run");
    assert_eq!(done[0].capped.len(), 1);
    assert_eq!(done[0].capped[0].cell.backend, "slow");
    assert_eq!(done[0].capped[0].samples, CAPPED_SAMPLES);
    // What completeness expects of the capped cell: its first few rounds only.
    assert_eq!(done[0].last_round_of(&keys_owned[3]), Some(CAPPED_SAMPLES));
    assert_eq!(done[0].last_round_of(&keys_owned[0]), Some(8));
}

#[test]
fn the_expected_rounds_follow_the_stopping_rule() {
    let (a, b) = (key("a"), key("b"));
    let keys = [&a, &b];
    // Before any sample the design is all that is known.
    let s = stopper(0.05, None, &keys, 40);
    assert_eq!(s.expected_last_rounds()[&1], 40);
    // Steady ratios: known well within the precision, so the floor of rounds is expected.
    let mut steady = stopper(0.05, None, &keys, 40);
    for round in 1..=3 {
        steady.record(0, round, Some(0.01 * wobble(round, 0)), 0.02);
        steady.record(1, round, Some(0.02 * wobble(round, 1)), 0.02);
    }
    assert_eq!(steady.expected_last_rounds()[&0], MIN_ROUNDS);
    // Noisy ratios (±30 %): many more rounds than the floor, never more than the design.
    let mut noisy = stopper(0.05, None, &keys, 40);
    for round in 1..=4 {
        let jitter = if round % 2 == 0 { 1.3 } else { 0.7 };
        noisy.record(0, round, Some(0.01), 0.02);
        noisy.record(1, round, Some(0.02 * jitter), 0.02);
    }
    let expected = noisy.expected_last_rounds()[&1];
    assert!(expected > 20 && expected <= 40, "{expected}");
    // A budget share of 1 s at 0.1 s a round affords 10 rounds.
    let mut budget = stopper(0.0, Some(1.0), &keys, 40);
    for round in 1..=2 {
        budget.record(0, round, Some(0.01), 0.05);
        budget.record(1, round, Some(0.02), 0.05);
    }
    assert_eq!(budget.expected_last_rounds()[&0], 10);
}
