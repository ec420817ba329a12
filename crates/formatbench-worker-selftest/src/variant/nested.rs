//! Walking a column's tree: every variant applies at every depth (inside lists, structs and,
//! where it makes sense, dictionaries), as real readers return nested columns in their own
//! representation too.

use arrow::array::{make_array, ArrayData, ArrayRef, RecordBatch};
use arrow::datatypes::{DataType, Field, FieldRef, Fields, Schema};
use arrow::error::ArrowError;
use std::sync::Arc;

/// What a variant does to one node of a tree, its children already done; `depth` is 0 for a
/// column.
pub type Node<'a> = dyn FnMut(ArrayData, usize) -> Result<ArrayData, ArrowError> + 'a;

/// Whether the walk goes into a node's children: lists of every kind, structs and (when asked)
/// a dictionary's values. Maps, unions and run-end encoded arrays are left alone: their
/// children's types are constrained (a map's entries) or the types are not in the verifier's
/// table of representation differences at all.
fn walks_into(data_type: &DataType, dictionaries: bool) -> bool {
    use DataType as T;
    match data_type {
        T::List(_) | T::LargeList(_) | T::ListView(_) | T::LargeListView(_) => true,
        T::FixedSizeList(_, _) | T::Struct(_) => true,
        T::Dictionary(_, _) => dictionaries,
        _ => false,
    }
}

/// `field` holding `data_type` instead, its name, nullability and metadata kept.
pub fn retyped(field: &FieldRef, data_type: &DataType) -> FieldRef {
    Arc::new(field.as_ref().clone().with_data_type(data_type.clone()))
}

/// A node's type with its children's new types in place.
fn with_child_types(data_type: &DataType, children: &[ArrayData]) -> DataType {
    use DataType as T;
    let first = |f: &FieldRef| match children.first() {
        Some(child) => retyped(f, child.data_type()),
        None => f.clone(),
    };
    match data_type {
        T::List(f) => T::List(first(f)),
        T::LargeList(f) => T::LargeList(first(f)),
        T::ListView(f) => T::ListView(first(f)),
        T::LargeListView(f) => T::LargeListView(first(f)),
        T::FixedSizeList(f, n) => T::FixedSizeList(first(f), *n),
        T::Struct(fields) => T::Struct(Fields::from(
            fields
                .iter()
                .zip(children)
                .map(|(f, c)| retyped(f, c.data_type()))
                .collect::<Vec<_>>(),
        )),
        T::Dictionary(key, value) => T::Dictionary(
            key.clone(),
            Box::new(
                children
                    .first()
                    .map_or(value.as_ref(), |c| c.data_type())
                    .clone(),
            ),
        ),
        other => other.clone(),
    }
}

/// `data` with its children replaced (their types taken into the node's type).
pub fn with_children(data: &ArrayData, children: Vec<ArrayData>) -> Result<ArrayData, ArrowError> {
    let data_type = with_child_types(data.data_type(), &children);
    data.clone()
        .into_builder()
        .data_type(data_type)
        .child_data(children)
        .build()
}

/// `data` with `node` applied to every node of its tree, children first.
pub fn map_tree(
    data: &ArrayData,
    depth: usize,
    dictionaries: bool,
    node: &mut Node<'_>,
) -> Result<ArrayData, ArrowError> {
    let inner = if walks_into(data.data_type(), dictionaries) {
        let mut children = Vec::with_capacity(data.child_data().len());
        for child in data.child_data() {
            children.push(map_tree(child, depth + 1, dictionaries, node)?);
        }
        with_children(data, children)?
    } else {
        data.clone()
    };
    node(inner, depth)
}

/// `batch` with every column replaced by `column(index, array)`; each field takes its new
/// column's type and keeps its name, nullability and metadata.
pub fn map_columns(
    batch: &RecordBatch,
    mut column: impl FnMut(usize, &ArrayRef) -> Result<ArrayRef, ArrowError>,
) -> Result<RecordBatch, ArrowError> {
    let schema = batch.schema();
    let mut fields: Vec<Field> = Vec::with_capacity(batch.num_columns());
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (i, (field, array)) in schema.fields().iter().zip(batch.columns()).enumerate() {
        let new = column(i, array)?;
        fields.push(
            field
                .as_ref()
                .clone()
                .with_data_type(new.data_type().clone()),
        );
        columns.push(new);
    }
    let schema = Schema::new_with_metadata(fields, schema.metadata().clone());
    RecordBatch::try_new(Arc::new(schema), columns)
}

/// `batch` with `node` applied at every depth of every column.
pub fn map_batch(
    batch: &RecordBatch,
    dictionaries: bool,
    node: &mut Node<'_>,
) -> Result<RecordBatch, ArrowError> {
    map_columns(batch, |_, array| {
        Ok(make_array(map_tree(
            &array.to_data(),
            0,
            dictionaries,
            node,
        )?))
    })
}
