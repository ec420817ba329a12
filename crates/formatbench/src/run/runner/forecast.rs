//! What is left of a run's measuring, for its progress line: the samples still expected (the
//! schedule's, less the rounds the stopping rule is expected to leave out) and what they will
//! cost, each at what its cell's samples have cost so far (its group's, else any sample's,
//! until it has one). An estimate from the stopping rule, not from the schedule's slot count:
//! an adaptive run takes a fraction of its slots.

use std::collections::HashMap;

/// One slot of the schedule: (round, group, position, cell).
pub(super) type Slot = (u32, usize, u32, usize);

/// Seconds each sample took, spawn to record, by cell, by group and over all.
#[derive(Debug, Default)]
pub(super) struct Costs {
    by_cell: HashMap<usize, (f64, u32)>,
    by_group: HashMap<usize, (f64, u32)>,
    all: (f64, u32),
}

fn add(entry: &mut (f64, u32), seconds: f64) {
    entry.0 += seconds;
    entry.1 += 1;
}

fn mean(entry: Option<&(f64, u32)>) -> Option<f64> {
    entry.filter(|e| e.1 > 0).map(|e| e.0 / f64::from(e.1))
}

impl Costs {
    pub fn record(&mut self, cell: usize, group: usize, seconds: f64) {
        add(self.by_cell.entry(cell).or_default(), seconds);
        add(self.by_group.entry(group).or_default(), seconds);
        add(&mut self.all, seconds);
    }

    fn of(&self, cell: usize, group: usize) -> Option<f64> {
        mean(self.by_cell.get(&cell))
            .or_else(|| mean(self.by_group.get(&group)))
            .or_else(|| mean(Some(&self.all)))
    }
}

/// The samples of `ahead` still expected and their seconds (`None` before any sample has a
/// cost). `last_rounds` is each cell's last expected round (an adaptive run's); `free` says
/// which slots cost nothing (done before a resume: left out; reused: counted, free).
pub(super) fn left(
    ahead: &[Slot],
    costs: &Costs,
    last_rounds: Option<&HashMap<usize, u32>>,
    free: impl Fn(usize) -> Option<bool>,
) -> (usize, Option<f64>) {
    let mut count = 0;
    let mut seconds = Some(0.0);
    for (i, &(round, group, _, cell)) in ahead.iter().enumerate() {
        if last_rounds.is_some_and(|last| last.get(&cell).is_some_and(|r| round > *r)) {
            continue;
        }
        match free(i) {
            None => continue,
            Some(true) => count += 1,
            Some(false) => {
                count += 1;
                seconds = seconds.zip(costs.of(cell, group)).map(|(a, b)| a + b);
            }
        }
    }
    (count, seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_left_costs_each_cell_what_it_cost_so_far() {
        let mut costs = Costs::default();
        let ahead: Vec<Slot> = vec![(2, 0, 0, 0), (2, 0, 1, 1), (3, 0, 0, 0), (3, 1, 0, 2)];
        // Nothing measured yet: a count but no time.
        assert_eq!(left(&ahead, &costs, None, |_| Some(false)), (4, None));
        costs.record(0, 0, 1.0);
        costs.record(1, 0, 3.0);
        // Cell 2 has no sample and its group none: any sample's mean (2 s).
        assert_eq!(
            left(&ahead, &costs, None, |_| Some(false)),
            (4, Some(1.0 + 3.0 + 1.0 + 2.0))
        );
        // The stopping rule expects cell 0 to stop after round 2.
        let last = HashMap::from([(0, 2)]);
        assert_eq!(
            left(&ahead, &costs, Some(&last), |_| Some(false)),
            (3, Some(6.0))
        );
        // A slot done before a resume is not ahead; a reused one is, at no cost.
        let free = |i: usize| match i {
            0 => None,
            1 => Some(true),
            _ => Some(false),
        };
        assert_eq!(left(&ahead, &costs, None, free), (3, Some(3.0)));
    }
}
