//! The representations `selftest-variant` can answer in, one per profile (issue 42's companion
//! to the mutation suite): each holds exactly the values of the right answer.

/// One representation of the right answer. Each is one a real reader returns (pyarrow's large
/// types and views, Polars' categoricals, Parquet's list item names, zones spelled by another
/// library, a reader that keeps nanoseconds, one that leaves junk under its nulls, a streaming
/// reader's small batches): the verifier must accept each as the same values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Utf8 → LargeUtf8, Binary → LargeBinary, List → LargeList.
    LargeOffsets,
    /// Utf8 and LargeUtf8 → Utf8View, Binary and LargeBinary → BinaryView, List → ListView,
    /// LargeList → LargeListView.
    Views,
    /// Strings dictionary-encoded, and dictionaries re-encoded, with a shuffled dictionary that
    /// holds entries no key points at.
    Dictionary,
    /// List item fields renamed (`element`, or `l` where the item is already `element`).
    ListItemName,
    /// UTC spelled `Etc/UTC` and `+00:00`, alternately column by column.
    ZoneName,
    /// Timestamps in the next finer unit (values scaled exactly), Date32 as Date64 at midnight.
    FinerUnit,
    /// Every array rebuilt with non-zero junk under its null slots.
    GarbageUnderNulls,
    /// The result cut into batches of one row.
    OneRowBatches,
}

/// Every variant with its profile name, in the order `describe` lists them.
pub const VARIANTS: [(&str, Variant); 8] = [
    ("large-offsets", Variant::LargeOffsets),
    ("views", Variant::Views),
    ("dictionary", Variant::Dictionary),
    ("list-item-name", Variant::ListItemName),
    ("zone-name", Variant::ZoneName),
    ("finer-unit", Variant::FinerUnit),
    ("garbage-under-nulls", Variant::GarbageUnderNulls),
    ("one-row-batches", Variant::OneRowBatches),
];

/// The profile names, as the catalog lists them.
pub const PROFILES: [&str; 8] = {
    let mut names = [""; 8];
    let mut i = 0;
    while i < VARIANTS.len() {
        names[i] = VARIANTS[i].0;
        i += 1;
    }
    names
};

/// The variant a profile names.
pub fn parse(profile: &str) -> Result<Variant, String> {
    VARIANTS
        .iter()
        .find(|(name, _)| *name == profile)
        .map(|(_, v)| *v)
        .ok_or_else(|| format!("selftest-variant has no profile '{profile}'"))
}

/// Whether the variant changes a column's type (and so must leave a note in the verification
/// record's `representation`), rather than only its buffers or batches.
pub fn changes_types(variant: Variant) -> bool {
    !matches!(variant, Variant::GarbageUnderNulls | Variant::OneRowBatches)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_parses_to_its_variant() {
        for (name, variant) in VARIANTS {
            assert_eq!(parse(name), Ok(variant));
        }
        assert_eq!(PROFILES.len(), VARIANTS.len());
        assert!(parse("honest").is_err());
    }
}
