//! What can be wrong with one value, whatever part of the format it is in: out of its
//! bounds, or naming an event that does not exist.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A number outside `min..=max`.
    OutOfRange { value: i128, min: i128, max: i128 },
    /// An event index past the workload's events.
    NoSuchEvent { event: u64, events: usize },
    /// A delivery attempt numbered 0.
    DeliveryZero,
}
