//! Keeping both cores busy while a run's results are stored (issue 16): the store takes rows
//! one at a time on one thread (SQLite has one writer), so whatever makes those rows
//! (serializing and compressing signatures) runs on a helper thread, in parallel (rayon), a
//! batch at a time and a few batches ahead, while this thread stores the batch before.
//! The rows reach the store in the same order as made sequentially: the output is the same.

use std::sync::mpsc::sync_channel;

use rayon::prelude::*;

/// Batches made ahead of the one being consumed: enough to cover a slow batch, few enough
/// that the memory held ahead stays a few batches.
const AHEAD: usize = 2;

/// `make(0)`, `make(1)`, … `make(n - 1)` handed to `consume` in that order as one iterator,
/// made in parallel a batch of `batch` at a time on a helper thread while `consume` takes the
/// batch before. The helper stops making as soon as `consume` returns (when it stops early,
/// e.g. on an error). A panic in `make` is raised again here.
pub fn ordered_par_batches<T: Send, R>(
    n: usize,
    batch: usize,
    make: impl Fn(usize) -> T + Sync,
    consume: impl FnOnce(&mut dyn Iterator<Item = T>) -> R,
) -> R {
    let batch = batch.max(1);
    std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Vec<T>>(AHEAD);
        let make = &make;
        let helper = scope.spawn(move || {
            for start in (0..n).step_by(batch) {
                let made: Vec<T> = (start..(start + batch).min(n))
                    .into_par_iter()
                    .map(make)
                    .collect();
                if tx.send(made).is_err() {
                    // The consumer stopped: nothing more is wanted.
                    return;
                }
            }
        });
        let mut items = Ordered {
            rx: &rx,
            current: Vec::new().into_iter(),
            remaining: n,
        };
        let result = consume(&mut items);
        // Unblocks a helper waiting to send, so that it ends.
        drop(rx);
        if let Err(panic) = helper.join() {
            std::panic::resume_unwind(panic);
        }
        result
    })
}

/// The items of [`ordered_par_batches`] in order, with their exact count as the size hint
/// (the store chooses its bulk path by it).
struct Ordered<'r, T> {
    rx: &'r std::sync::mpsc::Receiver<Vec<T>>,
    current: std::vec::IntoIter<T>,
    remaining: usize,
}

impl<T> Iterator for Ordered<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(item) = self.current.next() {
                self.remaining = self.remaining.saturating_sub(1);
                return Some(item);
            }
            // A closed channel: every batch was taken, or the helper panicked (raised after).
            self.current = self.rx.recv().ok()?.into_iter();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The pipelined items are the sequential ones, in order, whatever the batch size.
        #[test]
        fn the_pipelined_items_are_the_sequential_ones(n in 0usize..3000, batch in 0usize..700, seed in any::<u64>()) {
            let make = |i: usize| (i as u64).wrapping_mul(seed | 1).rotate_left(17);
            let (hint, got): ((usize, Option<usize>), Vec<u64>) =
                ordered_par_batches(n, batch, make, |it| (it.size_hint(), it.collect()));
            let want: Vec<u64> = (0..n).map(make).collect();
            prop_assert_eq!(got, want);
            prop_assert_eq!(hint, (n, Some(n)));
        }

        /// A consumer that stops early gets a prefix and the helper ends.
        #[test]
        fn a_consumer_that_stops_early_gets_a_prefix(n in 0usize..3000, batch in 1usize..300, take in 0usize..3000) {
            let got: Vec<usize> = ordered_par_batches(n, batch, |i| i, |it| it.take(take).collect());
            prop_assert_eq!(got, (0..n.min(take)).collect::<Vec<_>>());
        }
    }

    #[test]
    #[should_panic(expected = "made to fail")]
    fn a_panic_while_making_is_raised_here() {
        ordered_par_batches(
            10,
            3,
            |i| {
                if i == 7 {
                    panic!("made to fail");
                }
                i
            },
            |it| it.count(),
        );
    }
}
