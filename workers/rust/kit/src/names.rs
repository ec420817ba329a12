//! The names layouts are stored under, shared by the layout conversions and the matrix plan.

pub const WIDE: &str = "wide";
pub const ARRAY: &str = "array";
/// The array layout's field.
pub const FEATURES: &str = "features";
/// The feature names of the array layout, counted in the artifact's size.
pub const SIDECAR: &str = "feature_names.json";
/// Separator of packed text cells (the study's `delimited_array`).
pub const PACKED_SEPARATOR: char = ';';
