//! JSON value equality that is cheap when both objects list their keys in
//! the same order.
//!
//! The driver's delta planner and the trace store compare every call's
//! history with the arrays they remember, message by message. With
//! `preserve_order`, `serde_json`'s `==` on objects looks every key up in
//! the other map (a SipHash per key): most of those comparisons' cost. The
//! messages compared were built by the same serialiser, so their keys are
//! almost always in the same order; walking both in step answers that case
//! without hashing, and anything else falls back to the lookup. Same answer
//! as `==` in every case (proptest below).

use serde_json::Value;

/// `a == b`, faster on identically ordered objects.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return false;
            }
            for ((ka, va), (kb, vb)) in x.iter().zip(y.iter()) {
                if ka != kb {
                    // Keys in another order: the order-insensitive lookup.
                    return x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)));
                }
                if !json_eq(va, vb) {
                    // Same key, different value: unequal whatever the order.
                    return false;
                }
            }
            true
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| json_eq(v, w)),
        _ => a == b,
    }
}

/// How many leading items of `a` and `b` are equal.
pub fn common_prefix(a: &[Value], b: &[Value]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| json_eq(x, y)).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{json, Map};

    /// Small values from a small alphabet, so that equal values, reordered
    /// keys, and near misses all occur often.
    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![Just(Value::Null), any::<bool>().prop_map(Value::from), (0i64..3).prop_map(Value::from), Just(json!(1.0)), "[ab]{0,2}".prop_map(Value::from)];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[abc]", inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    /// The same value with every object's keys in reverse order.
    fn reordered(v: &Value) -> Value {
        match v {
            Value::Object(m) => Value::Object(m.iter().rev().map(|(k, v)| (k.clone(), reordered(v))).collect()),
            Value::Array(a) => Value::Array(a.iter().map(reordered).collect()),
            other => other.clone(),
        }
    }

    proptest! {
        #[test]
        fn agrees_with_serde_json_eq(a in value(), b in value()) {
            prop_assert_eq!(json_eq(&a, &b), a == b);
            let r = reordered(&a);
            prop_assert_eq!(json_eq(&a, &r), a == r);
            prop_assert!(json_eq(&a, &r), "key order never matters");
            prop_assert_eq!(json_eq(&r, &b), r == b);
        }
    }

    #[test]
    fn same_key_different_value_is_unequal_in_either_order() {
        let a = json!({"x": 1, "y": 2});
        assert!(!json_eq(&a, &json!({"x": 1, "y": 3})));
        assert!(!json_eq(&a, &json!({"y": 2, "x": 2})));
        assert!(json_eq(&a, &json!({"y": 2, "x": 1})));
        assert!(!json_eq(&a, &json!({"x": 1, "z": 2})));
    }
}
