//! The dictionary variant: strings dictionary-encoded, and dictionaries encoded again, each with
//! a shuffled dictionary that holds entries no key points at, as writers that keep one
//! dictionary across batches (or sort it, or never prune it) return them.

use arrow::array::{
    make_array, Array, ArrayData, ArrayRef, AsArray, DictionaryArray, PrimitiveArray, StringArray,
};
use arrow::compute::cast;
use arrow::datatypes::{ArrowDictionaryKeyType, ArrowNativeType, DataType, Int16Type, Int32Type};
use arrow::error::ArrowError;
use std::collections::HashMap;
use std::sync::Arc;

/// How many entries no key points at are added to each dictionary.
const UNUSED: usize = 3;

/// A string column (of any offsets or views) as a dictionary of Int32 keys; a dictionary of
/// strings encoded again, with Int16 keys (Int32 where the source had Int16), so that the key
/// width differs too. Anything else stays as it is.
pub fn encoded(data: ArrayData) -> Result<ArrayData, ArrowError> {
    use DataType as T;
    let (value_type, wide_keys) = match data.data_type() {
        T::Utf8 | T::LargeUtf8 | T::Utf8View => (data.data_type().clone(), true),
        T::Dictionary(key, value)
            if matches!(value.as_ref(), T::Utf8 | T::LargeUtf8 | T::Utf8View) =>
        {
            (value.as_ref().clone(), key.as_ref() == &T::Int16)
        }
        _ => return Ok(data),
    };
    // The values each row holds, whatever the source's representation of them.
    let plain = cast(&make_array(data), &T::Utf8)?;
    let plain = plain.as_string::<i32>();
    let array: ArrayRef = if wide_keys {
        Arc::new(shuffled::<Int32Type>(plain, &value_type)?)
    } else {
        Arc::new(shuffled::<Int16Type>(plain, &value_type)?)
    };
    Ok(array.to_data())
}

/// A permutation of `0..n`, the same every time: a Fisher–Yates shuffle driven by a xorshift
/// generator of fixed seed (the dictionary's order must not follow the rows').
fn permutation(n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    order
}

/// `plain`'s values as a dictionary with keys of type `K`: the distinct values and `UNUSED`
/// entries no row holds, in a shuffled order, the dictionary's values of type `value_type`.
fn shuffled<K: ArrowDictionaryKeyType>(
    plain: &StringArray,
    value_type: &DataType,
) -> Result<DictionaryArray<K>, ArrowError> {
    let mut entries: Vec<String> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for value in plain.iter().flatten() {
        if !at.contains_key(value) {
            at.insert(value, entries.len());
            entries.push(value.to_string());
        }
    }
    let used = entries.len();
    let mut unused = 0;
    while entries.len() < used + UNUSED {
        let candidate = format!("unused entry {unused}");
        unused += 1;
        if !at.contains_key(candidate.as_str()) {
            entries.push(candidate);
        }
    }
    // order[new] = old: where each entry goes in the shuffled dictionary.
    let order = permutation(entries.len());
    let mut new_place = vec![0usize; entries.len()];
    for (new, &old) in order.iter().enumerate() {
        new_place[old] = new;
    }
    let key = |i: usize| {
        K::Native::from_usize(i).ok_or_else(|| {
            ArrowError::InvalidArgumentError(format!(
                "a dictionary of {} entries does not fit its keys",
                entries.len()
            ))
        })
    };
    let keys = plain
        .iter()
        .map(|v| v.map(|v| key(new_place[at[v]])).transpose())
        .collect::<Result<PrimitiveArray<K>, _>>()?;
    let values: StringArray = order
        .iter()
        .map(|&old| Some(entries[old].as_str()))
        .collect();
    let values = cast(&values, value_type)?;
    DictionaryArray::try_new(keys, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dictionary_is_shuffled_and_holds_unused_entries() {
        let plain = StringArray::from(vec![Some("a"), None, Some("b"), Some("a"), Some("")]);
        let encoded = encoded(plain.to_data()).unwrap();
        let dict = make_array(encoded);
        let dict = dict.as_dictionary::<Int32Type>();
        assert_eq!(dict.values().len(), 3 + UNUSED);
        let decoded = cast(dict, &DataType::Utf8).unwrap();
        assert_eq!(decoded.as_string::<i32>(), &plain);
        let firsts: Vec<_> = (0..3)
            .map(|i| dict.values().as_string::<i32>().value(i))
            .collect();
        assert_ne!(
            firsts,
            vec!["a", "b", ""],
            "the dictionary keeps the rows' order"
        );
        // Encoded again: the key width changes, the values stay.
        let again = make_array(encoded_again(dict));
        assert_eq!(
            again.data_type(),
            &DataType::Dictionary(Box::new(DataType::Int16), Box::new(DataType::Utf8))
        );
        assert_eq!(
            cast(&again, &DataType::Utf8).unwrap().as_string::<i32>(),
            &plain
        );
    }

    fn encoded_again(dict: &DictionaryArray<Int32Type>) -> ArrayData {
        encoded(dict.to_data()).unwrap()
    }
}
