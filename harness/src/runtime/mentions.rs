//! "Does this value's JSON text contain the state dir?" without building the
//! text: the runtime asks it of every model call's whole request, so building
//! a string (and copying the request) per call made a long session quadratic
//! in allocations as well as in bytes scanned.

use std::io::Write;

use serde::Serialize;

/// `serde_json::to_string(v)?.contains(needle)`, streamed: the serialiser's
/// output is scanned in chunks, the last `needle.len() - 1` bytes of a chunk
/// kept for a match across the boundary, and serialising stops at the first
/// match.
pub fn serialises_with<T: Serialize + ?Sized>(v: &T, needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    let mut scan = Scan { needle, buf: Vec::with_capacity(CHUNK + needle.len()), found: false };
    // A write error is only ever our own "found" signal.
    let _ = serde_json::to_writer(&mut scan, v);
    scan.found || scan.search()
}

const CHUNK: usize = 16 * 1024;

struct Scan<'a> {
    needle: &'a [u8],
    buf: Vec<u8>,
    found: bool,
}

impl Scan<'_> {
    fn search(&self) -> bool {
        let (n, first) = (self.needle.len(), self.needle[0]);
        self.buf.len() >= n && (0..=self.buf.len() - n).any(|i| self.buf[i] == first && &self.buf[i..i + n] == self.needle)
    }
}

impl Write for Scan<'_> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            if self.search() {
                self.found = true;
                return Err(std::io::Error::other("found"));
            }
            let keep = self.needle.len() - 1;
            let cut = self.buf.len() - keep;
            self.buf.drain(..cut);
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn strings() -> impl Strategy<Value = String> {
        // Small alphabet so needles occur, sometimes across chunk borders.
        prop::collection::vec(prop::sample::select(vec!['a', 'b', '/', '"', '\\', 'é', '\n']), 0..40).prop_map(|c| c.into_iter().collect())
    }

    fn values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![Just(Value::Null), any::<i64>().prop_map(Value::from), strings().prop_map(Value::String)];
        leaf.prop_recursive(4, 2000, 60, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..60).prop_map(Value::Array),
                prop::collection::vec((strings(), inner), 0..8).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn equals_searching_the_serialised_text(v in values(), needle in strings()) {
            let text = serde_json::to_string(&v).unwrap();
            prop_assert_eq!(serialises_with(&v, needle.as_bytes()), text.contains(needle.as_str()));
        }
    }

    #[test]
    fn finds_a_match_across_a_chunk_border_and_at_the_very_end() {
        for pad in [CHUNK - 5, CHUNK - 1, CHUNK, CHUNK + 3, 3 * CHUNK - 7] {
            let v = Value::String(format!("{}/tmp/clawspec-1/x", "a".repeat(pad)));
            assert!(serialises_with(&v, b"/tmp/clawspec-1/x\""), "pad {pad}");
            assert!(serialises_with(&v, b"/tmp/clawspec-1"), "pad {pad}");
            assert!(!serialises_with(&v, b"/tmp/clawspec-2"), "pad {pad}");
        }
    }
}
