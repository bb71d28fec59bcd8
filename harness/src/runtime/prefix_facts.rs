//! Running facts over a list of messages that mostly grows from one call to
//! the next (the transcript an anchor counts positions in, the request each
//! model call weighs), kept per message by pointer: the next list shares
//! almost all of its messages with the last, so only the ones it adds are
//! read. Reading every message of a long session on each call (a cache miss
//! per message) was a good part of what the host still did per call in
//! O(history) (docs/performance.md, thirteenth round).
//!
//! The memo holds the messages it has read: an address stays theirs (a freed
//! message's could be reused by another), and a `make_mut` on one of them
//! copies it, so a message changed in place is a new pointer and is read
//! again.

use clawspec_contract::Msg;

/// The running fact after each message of the last list (`facts[i]` folds
/// messages `0..=i`).
#[derive(Debug)]
pub struct PrefixFacts<F> {
    msgs: Vec<Msg>,
    facts: Vec<F>,
    init: F,
}

impl<F: Copy + PartialEq> PrefixFacts<F> {
    pub fn new(init: F) -> Self {
        PrefixFacts {
            msgs: Vec::new(),
            facts: Vec::new(),
            init,
        }
    }

    /// Bring the memo to `list` (folding each message it has not read with
    /// `step`) and return the running facts, one per message of `list`.
    /// `step` must depend on the message only (and the fact before it).
    pub fn update<'a>(
        &mut self,
        list: impl IntoIterator<Item = &'a Msg>,
        step: impl Fn(F, &Msg) -> F,
    ) -> &[F] {
        let mut list = list.into_iter();
        let mut kept = 0;
        let mut first_new = None;
        while kept < self.msgs.len() {
            match list.next() {
                Some(m) if Msg::ptr_eq(m, &self.msgs[kept]) => kept += 1,
                other => {
                    first_new = other;
                    break;
                }
            }
        }
        self.msgs.truncate(kept);
        self.facts.truncate(kept);
        for m in first_new.into_iter().chain(list) {
            let before = self.facts.last().copied().unwrap_or(self.init);
            self.facts.push(step(before, m));
            self.msgs.push(m.clone());
        }
        &self.facts
    }

    /// The fact before message `i` of the last list (`init` before the first).
    pub fn before(&self, i: usize) -> F {
        if i == 0 {
            self.init
        } else {
            self.facts[i - 1]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawspec_contract::AgentMessage;

    fn msg(t: &str) -> Msg {
        AgentMessage::user_text(t).into()
    }

    /// Whatever the next list keeps, drops, replaces or adds, the facts are
    /// those of folding it whole; only the messages it adds are read.
    #[test]
    fn facts_are_those_of_the_whole_list_and_only_new_messages_are_read() {
        let read = std::cell::Cell::new(0);
        let step = |n: usize, m: &Msg| {
            read.set(read.get() + 1);
            n + m.text().len()
        };
        let whole = |l: &[Msg]| {
            l.iter()
                .scan(0, |n, m| {
                    Some({
                        *n += m.text().len();
                        *n
                    })
                })
                .collect::<Vec<_>>()
        };
        let mut memo = PrefixFacts::new(0usize);
        let mut list: Vec<Msg> = (0..5).map(|i| msg(&"x".repeat(i))).collect();
        assert_eq!(memo.update(&list, step), &whole(&list)[..]);
        assert_eq!(read.get(), 5);
        list.push(msg("grown"));
        assert_eq!(memo.update(&list, step), &whole(&list)[..]);
        assert_eq!(read.get(), 6, "a grown list reads only its new message");
        list[2] = msg("replaced in place");
        assert_eq!(memo.update(&list, step), &whole(&list)[..]);
        assert_eq!(read.get(), 10, "from the changed message on");
        list.truncate(3);
        assert_eq!(memo.update(&list, step), &whole(&list)[..]);
        assert_eq!(memo.before(0), 0);
        assert_eq!(memo.before(3), whole(&list)[2]);
        // A message changed through `make_mut` while the memo holds it.
        if let AgentMessage::User(u) = list[0].make_mut() {
            u.content = clawspec_contract::MessageContent::Text("changed through make_mut".into());
        }
        assert_eq!(memo.update(&list, step), &whole(&list)[..]);
        assert_eq!(memo.update(&[], step), &[] as &[usize]);
    }
}
