//! The scheduler's event queue: pending occurrences ordered by (virtual time, sequence
//! number). The sequence number is assigned at insertion, so two occurrences at the same
//! tick run in the order they were scheduled: no tie is ever broken by memory layout.

use crate::model::Tick;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

struct Entry<T> {
    at: Tick,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    /// Reversed, because `BinaryHeap` is a max-heap and we pop the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// A min-queue on (time, insertion order).
pub struct EventQueue<T> {
    heap: BinaryHeap<Entry<T>>,
    next_seq: u64,
}

impl<T> Default for EventQueue<T> {
    fn default() -> Self {
        EventQueue {
            heap: BinaryHeap::new(),
            next_seq: 0,
        }
    }
}

impl<T> EventQueue<T> {
    pub fn push(&mut self, at: Tick, item: T) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.heap.push(Entry { at, seq, item });
    }

    pub fn pop(&mut self) -> Option<(Tick, T)> {
        self.heap.pop().map(|e| (e.at, e.item))
    }

    /// The next item to run and its time, left in place.
    pub fn peek(&self) -> Option<(Tick, &T)> {
        self.heap.peek().map(|e| (e.at, &e.item))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Removes and returns, in run order, every pending item at time `at` that `take`
    /// selects; the others keep their places.
    pub fn take_at(&mut self, at: Tick, mut take: impl FnMut(&T) -> bool) -> Vec<T> {
        let mut entries = std::mem::take(&mut self.heap).into_vec();
        entries.sort_by_key(|e| (e.at, e.seq));
        let mut taken = Vec::new();
        for e in entries {
            if e.at == at && take(&e.item) {
                taken.push(e.item);
            } else {
                self.heap.push(e);
            }
        }
        taken
    }

    /// The pending items in the order they will run, with their times. For state
    /// fingerprints; it sorts a copy, so it is not for the hot path.
    pub fn pending(&self) -> Vec<(Tick, &T)> {
        let mut entries: Vec<&Entry<T>> = self.heap.iter().collect();
        entries.sort_by_key(|e| (e.at, e.seq));
        entries.into_iter().map(|e| (e.at, &e.item)).collect()
    }
}

/// The pending occurrences in the order they will run, each with its distance from `now`.
/// Sequence numbers are left out: every later push comes after every pending entry of its
/// tick, so the order of the pending ones is all that decides ties.
impl<T: std::hash::Hash> crate::sim::Fingerprint for EventQueue<T> {
    fn fingerprint(&self, now: Tick, h: &mut crate::sim::StateHasher) {
        let EventQueue {
            heap: _,
            next_seq: _,
        } = self; // Both read through `pending`.
        let pending = self.pending();
        h.value(&pending.len());
        for (at, item) in pending {
            h.instant(at, now);
            h.value(item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earlier_time_first_then_insertion_order_on_ties() {
        let mut q = EventQueue::default();
        q.push(5, "c");
        q.push(1, "a");
        q.push(5, "d");
        q.push(1, "b");
        q.push(0, "first");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(0, "first"), (1, "a"), (1, "b"), (5, "c"), (5, "d")]
        );
    }

    #[test]
    fn take_at_removes_only_the_selected_items_at_that_time() {
        let mut q = EventQueue::default();
        q.push(1, 'a');
        q.push(1, 'b');
        q.push(1, 'c');
        q.push(2, 'b');
        assert_eq!(q.take_at(1, |x| *x != 'a'), vec!['b', 'c']);
        assert_eq!(
            std::iter::from_fn(|| q.pop()).collect::<Vec<_>>(),
            vec![(1, 'a'), (2, 'b')]
        );
    }

    #[test]
    fn pending_lists_in_run_order_without_consuming() {
        let mut q = EventQueue::default();
        q.push(5, 'c');
        q.push(1, 'a');
        q.push(5, 'd');
        assert_eq!(q.pending(), vec![(1, &'a'), (5, &'c'), (5, &'d')]);
        assert_eq!(q.len(), 3);
    }
}
