//! Every successful `assemble`'s input and output, resolved once per trace
//! for all clauses, in memory that grows with the session, not its square.
//!
//! A session's assembles carry a growing history: call k's messages are
//! call k−1's plus a turn. Holding each call's resolved list on its own (a
//! pointer per message per call) made the checks' memory quadratic — 2 000
//! steps: ~4 000 assembled lists of up to ~4 000 pointers, allocated and
//! walked at once, which is what made the checks grow faster than the square
//! of the session. Here a list that extends (or is a prefix of) a recent one
//! is stored as a length into that one's *spine*, a shared run of messages:
//! a message is held once per spine, and a pass-through engine's session
//! needs one spine for all its inputs and outputs.
//!
//! Messages are compared by identity (the trace store parses each stored
//! message once and shares it), so a list shares a spine only with lists
//! holding the very same messages: exactly what resolving it alone gives.

use std::ops::Deref;
use std::sync::Arc;

use clawspec_contract::AgentMessage;

use crate::trace::{CallRecord, Trace};

/// The first `len` messages of a shared spine.
#[derive(Clone)]
pub struct Shared {
    spine: Arc<[Arc<AgentMessage>]>,
    len: usize,
}

impl Deref for Shared {
    type Target = [Arc<AgentMessage>];
    fn deref(&self) -> &[Arc<AgentMessage>] {
        &self.spine[..self.len]
    }
}

impl Shared {
    /// The very same messages (one spine, one length): an engine that
    /// passed its input through returned this of it.
    pub fn same(&self, other: &Shared) -> bool {
        super::matching::shortcuts() && Arc::ptr_eq(&self.spine, &other.spine) && self.len == other.len
    }

    /// The spine's address: lists sharing one share what is worked out over
    /// it ([`super::text_keys::TextKeys::spine`]).
    pub fn spine_key(&self) -> usize {
        self.spine.as_ptr() as usize
    }

    /// The whole spine this list is a prefix of.
    pub fn spine_all(&self) -> &[Arc<AgentMessage>] {
        &self.spine
    }

    /// The spine's address and whole length (tests: how much is shared).
    #[cfg(test)]
    pub(crate) fn spine(&self) -> (usize, usize) {
        (self.spine.as_ptr() as usize, self.spine.len())
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One successful assemble: the call, what the host sent, what came back.
pub type Assembled<'a> = (&'a CallRecord, Shared, Shared);

/// How many recent spines a new list is tried against (an assemble's input
/// and output, and the previous call's).
const RECENT: usize = 4;

/// Spines being built: (spine index, length) per list.
#[derive(Default)]
struct Builder {
    spines: Vec<Vec<Arc<AgentMessage>>>,
}

impl Builder {
    /// Where `list` goes: a prefix of a recent spine, the whole of one that
    /// it extends, or a spine of its own.
    fn place(&mut self, list: Vec<Arc<AgentMessage>>) -> (usize, usize) {
        let n = list.len();
        if super::matching::shortcuts() {
            let first = self.spines.len().saturating_sub(RECENT);
            for s in (first..self.spines.len()).rev() {
                let spine = &mut self.spines[s];
                let common = spine.iter().zip(&list).take_while(|(a, b)| Arc::ptr_eq(a, b)).count();
                if common == n {
                    return (s, n);
                }
                if common == spine.len() {
                    spine.extend(list.into_iter().skip(common));
                    return (s, n);
                }
            }
        }
        self.spines.push(list);
        (self.spines.len() - 1, n)
    }
}

/// assemble calls of `t` that returned a well-formed messages array, in call
/// order, with what each was sent and returned.
pub fn resolve(t: &Trace) -> Vec<Assembled<'_>> {
    let mut b = Builder::default();
    let mut placed = Vec::new();
    for call in t.calls().filter(|x| x.method == "assemble") {
        let (Some(input), Some(output)) = (call.input(t), call.output(t)) else { continue };
        let i = b.place(input);
        let o = b.place(output);
        placed.push((call, i, o));
    }
    let spines: Vec<Arc<[Arc<AgentMessage>]>> = b.spines.into_iter().map(Arc::from).collect();
    let shared = |(s, len): (usize, usize)| Shared { spine: spines[s].clone(), len };
    placed.into_iter().map(|(call, i, o)| (call, shared(i), shared(o))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(n: usize) -> Vec<Arc<AgentMessage>> {
        (0..n).map(|i| Arc::new(serde_json::from_value(json!({"role": "user", "content": format!("m{i}")})).unwrap())).collect()
    }

    #[test]
    fn a_growing_history_and_its_prefixes_share_one_spine() {
        let all = msgs(6);
        let mut b = Builder::default();
        assert_eq!(b.place(all[..2].to_vec()), (0, 2));
        assert_eq!(b.place(all[..2].to_vec()), (0, 2), "an equal list");
        assert_eq!(b.place(all[..4].to_vec()), (0, 4), "extends it");
        assert_eq!(b.place(all[..3].to_vec()), (0, 3), "a prefix");
        assert_eq!(b.place(all.to_vec()), (0, 6));
        assert_eq!(b.spines.len(), 1);
        assert_eq!(b.spines[0].len(), 6);
    }

    #[test]
    fn equal_but_distinct_messages_and_divergent_lists_get_their_own_spine() {
        let all = msgs(4);
        let other = msgs(4); // same values, other allocations
        let mut b = Builder::default();
        b.place(all.clone());
        assert_eq!(b.place(other), (1, 4));
        let mut branch = all[..2].to_vec();
        branch.extend(msgs(1));
        assert_eq!(b.place(branch), (2, 3), "diverges from both after 2 messages");
    }
}
