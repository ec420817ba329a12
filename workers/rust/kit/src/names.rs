//! The names layouts are stored under, shared by the layout conversions and the matrix plan,
//! and how columns are found by name.

use arrow::datatypes::Schema;

pub const WIDE: &str = "wide";
pub const ARRAY: &str = "array";
/// The array layout's field.
pub const FEATURES: &str = "features";
/// The feature names of the array layout, counted in the artifact's size.
pub const SIDECAR: &str = "feature_names.json";
/// Separator of packed text cells (the study's `delimited_array`).
pub const PACKED_SEPARATOR: char = ';';

/// Each column name's position (the first, as `Schema::index_of` finds): a wide table has
/// thousands of columns, and finding each of them by a linear search costs more than reading.
pub fn positions_by_name(schema: &Schema) -> std::collections::HashMap<&str, usize> {
    let mut positions = std::collections::HashMap::with_capacity(schema.fields().len());
    for (i, field) in schema.fields().iter().enumerate() {
        positions.entry(field.name().as_str()).or_insert(i);
    }
    positions
}
