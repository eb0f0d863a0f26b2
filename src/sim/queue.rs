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

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
}
