//! The order samples run in. Within a round, the competitors of one (dataset, operation) follow
//! a row of a Williams design with its mirror, so over 2n rounds every competitor takes every
//! position twice and follows every other competitor equally often.

/// One measured sample's place in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Index into the group's competitors.
    pub competitor: usize,
    /// 1-based round.
    pub round: u32,
    /// 0-based position within the round.
    pub position: usize,
}

/// The 2n orders of a mirrored Williams design for n competitors.
pub fn balanced_orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return Vec::new();
    }
    // Base sequence 0, 1, n−1, 2, n−2, …
    let base: Vec<usize> = (0..n)
        .map(|p| {
            if p == 0 {
                0
            } else if p % 2 == 1 {
                p.div_ceil(2)
            } else {
                n - p / 2
            }
        })
        .collect();
    let rows: Vec<Vec<usize>> = (0..n)
        .map(|r| base.iter().map(|&s| (s + r) % n).collect())
        .collect();
    let mirrored: Vec<Vec<usize>> = rows
        .iter()
        .map(|row| row.iter().rev().copied().collect())
        .collect();
    rows.into_iter().chain(mirrored).collect()
}

/// Slots for `blocks` balanced blocks of `n` competitors: 2n rounds each, round r following
/// order (r − 1) mod 2n, so a block is the full mirrored design and nothing is truncated.
pub fn slots(n: usize, blocks: u32) -> Vec<Slot> {
    let orders = balanced_orders(n);
    let rounds = orders.len() as u32 * blocks;
    (1..=rounds)
        .flat_map(|round| {
            let order = orders
                .get((round as usize - 1) % orders.len().max(1))
                .cloned()
                .unwrap_or_default();
            order
                .into_iter()
                .enumerate()
                .map(move |(position, competitor)| Slot {
                    competitor,
                    round,
                    position,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn full_design_balances_positions_and_adjacent_pairs() {
        for n in 2..=7 {
            let orders = balanced_orders(n);
            assert_eq!(orders.len(), 2 * n);
            let mut positions: HashMap<(usize, usize), usize> = HashMap::new();
            let mut pairs: HashMap<(usize, usize), usize> = HashMap::new();
            for order in &orders {
                let mut sorted = order.clone();
                sorted.sort_unstable();
                assert_eq!(
                    sorted,
                    (0..n).collect::<Vec<_>>(),
                    "each order is a permutation"
                );
                for (pos, &c) in order.iter().enumerate() {
                    *positions.entry((c, pos)).or_default() += 1;
                }
                for w in order.windows(2) {
                    *pairs.entry((w[0], w[1])).or_default() += 1;
                }
            }
            assert!(
                positions.values().all(|&k| k == 2),
                "n={n}: positions {positions:?}"
            );
            assert_eq!(pairs.len(), n * (n - 1), "n={n}: every ordered pair occurs");
            assert!(pairs.values().all(|&k| k == 2), "n={n}: pairs {pairs:?}");
        }
    }

    #[test]
    fn slots_cover_every_competitor_once_per_round() {
        // Two blocks of 2 × 3 rounds.
        let s = slots(3, 2);
        assert_eq!(s.len(), 36);
        for round in 1..=12 {
            let mut seen: Vec<usize> = s
                .iter()
                .filter(|x| x.round == round)
                .map(|x| x.competitor)
                .collect();
            seen.sort_unstable();
            assert_eq!(seen, vec![0, 1, 2]);
        }
        let mut positions = std::collections::HashMap::new();
        for slot in &s {
            *positions
                .entry((slot.competitor, slot.position))
                .or_insert(0) += 1;
        }
        assert!(
            positions.values().all(|&k| k == 4),
            "two blocks: each position four times"
        );
    }
}
