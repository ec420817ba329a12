//! The wrong answers `selftest-mutant` can give, one per profile (issue 42's mutation suite).

/// One way of answering wrongly. Each is a mistake a real reader or writer could make, small
/// enough that a verifier comparing loosely (after a lossy cast, by a weak digest, by the
/// worker's word) would let it through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mutation {
    RowMissing,
    RowDuplicated,
    RowsSwapped,
    FloatUlp,
    NullToZero,
    NullToEmptyString,
    EmptyStringToNull,
    TimestampHour,
    TimezoneDropped,
    DateWithinDay,
    ColumnRenamed,
    ColumnsReordered,
    TypeWidened,
    DictionaryWrongKey,
    ListNullToEmpty,
    StructFieldsSwapped,
    NegativeZero,
    NanPayload,
    TakeSorted,
    RangeInclusive,
    ProjectionExtraColumn,
    MatrixTransposed,
    MatrixFeatureShifted,
    /// Right in the cell's verification run; later a wrong file (a row missing) with the right
    /// answer's digest reported: a runner that takes the worker's word for its result passes it.
    RightDigestWrongFile,
}

/// Every mutation with its profile name, in the order `describe` lists them.
pub const MUTATIONS: [(&str, Mutation); 24] = [
    ("row-missing", Mutation::RowMissing),
    ("row-duplicated", Mutation::RowDuplicated),
    ("rows-swapped", Mutation::RowsSwapped),
    ("float-ulp", Mutation::FloatUlp),
    ("null-to-zero", Mutation::NullToZero),
    ("null-to-empty-string", Mutation::NullToEmptyString),
    ("empty-string-to-null", Mutation::EmptyStringToNull),
    ("timestamp-hour", Mutation::TimestampHour),
    ("timezone-dropped", Mutation::TimezoneDropped),
    ("date-within-day", Mutation::DateWithinDay),
    ("column-renamed", Mutation::ColumnRenamed),
    ("columns-reordered", Mutation::ColumnsReordered),
    ("type-widened", Mutation::TypeWidened),
    ("dictionary-wrong-key", Mutation::DictionaryWrongKey),
    ("list-null-to-empty", Mutation::ListNullToEmpty),
    ("struct-fields-swapped", Mutation::StructFieldsSwapped),
    ("negative-zero", Mutation::NegativeZero),
    ("nan-payload", Mutation::NanPayload),
    ("take-sorted", Mutation::TakeSorted),
    ("range-inclusive", Mutation::RangeInclusive),
    ("projection-extra-column", Mutation::ProjectionExtraColumn),
    ("matrix-transposed", Mutation::MatrixTransposed),
    ("matrix-feature-shifted", Mutation::MatrixFeatureShifted),
    ("right-digest-wrong-file", Mutation::RightDigestWrongFile),
];

/// The profile that answers every job correctly: the control beside the mutations.
pub const HONEST: &str = "honest";

/// The prefix of a profile that answers a cell's verification run correctly and every later
/// job with the mutation: later samples must be checked as strictly as the first.
pub const LATER: &str = "later-";

/// When a profile's mutation applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// In every job, the verification run included.
    Always,
    /// In every job but the cell's verification run (`job.verification`).
    Later,
}

/// What a profile does: `None` for the honest control.
pub fn parse(profile: &str) -> Result<Option<(Mutation, When)>, String> {
    if profile == HONEST {
        return Ok(None);
    }
    let (name, when) = match profile.strip_prefix(LATER) {
        Some(name) => (name, When::Later),
        None => (profile, When::Always),
    };
    let mutation = MUTATIONS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| *m)
        .ok_or_else(|| format!("selftest-mutant has no profile '{profile}'"))?;
    // This one is a later-sample mutation by definition: a `later-` form would be itself.
    match (mutation, when) {
        (Mutation::RightDigestWrongFile, When::Later) => {
            Err(format!("selftest-mutant has no profile '{profile}'"))
        }
        (Mutation::RightDigestWrongFile, When::Always) => Ok(Some((mutation, When::Later))),
        _ => Ok(Some((mutation, when))),
    }
}

/// Every profile: the control, each mutation, then each mutation's `later-` form.
pub fn profile_names() -> Vec<String> {
    let mut names = vec![HONEST.to_string()];
    names.extend(MUTATIONS.iter().map(|(n, _)| n.to_string()));
    names.extend(
        MUTATIONS
            .iter()
            .filter(|(_, m)| *m != Mutation::RightDigestWrongFile)
            .map(|(n, _)| format!("{LATER}{n}")),
    );
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_parses_and_names_are_distinct() {
        let names = profile_names();
        assert_eq!(names.len(), 1 + 24 + 23);
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        for name in &names {
            assert!(parse(name).is_ok(), "{name}");
        }
        assert_eq!(
            parse("right-digest-wrong-file"),
            Ok(Some((Mutation::RightDigestWrongFile, When::Later)))
        );
        assert!(parse("later-right-digest-wrong-file").is_err());
        assert!(parse("nonsense").is_err());
    }
}
