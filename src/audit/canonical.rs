//! The canonical JSON an entry's hash is computed over: object keys sorted by their UTF-8
//! bytes, no whitespace, strings and numbers exactly as `serde_json` writes them. Written by
//! hand because `serde_json` (with `preserve_order`) keeps insertion order.

use serde_json::Value;

/// Appends the canonical serialisation of `v` to `out`.
pub fn write_canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<(&String, &Value)> = map.iter().collect();
            // Byte order of UTF-8 equals Unicode code point order (what Python's sort_keys uses).
            keys.sort_unstable_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push(b'{');
            for (i, (k, val)) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_string(k, out);
                out.push(b':');
                write_canonical(val, out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        Value::String(s) => write_string(s, out),
        // Null, booleans and numbers have a single serde_json spelling already.
        other => {
            // Writing a scalar into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

/// The canonical serialisation of `v` as a string.
pub fn to_canonical_string(v: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(v, &mut out);
    // Built only from `&str`s and ASCII punctuation, so it is UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    let _ = serde_json::to_writer(&mut *out, s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sorts_keys_by_bytes_and_drops_whitespace() {
        let v = json!({"b": 1, "a": {"z": [1, 2.5, "x"], "é": null, "Z": true}, "ä": "\n\"q\""});
        assert_eq!(
            to_canonical_string(&v),
            r#"{"a":{"Z":true,"z":[1,2.5,"x"],"é":null},"b":1,"ä":"\n\"q\""}"#
        );
    }

    #[test]
    fn is_stable_through_a_parse() {
        let v = json!({"n": 1e300, "m": -0.0, "k": 0.00001, "u": u64::MAX, "i": i64::MIN, "c": "\u{1}\u{7f}"});
        let s = to_canonical_string(&v);
        let back: Value = serde_json::from_str(&s).unwrap();
        assert_eq!(to_canonical_string(&back), s);
    }
}
