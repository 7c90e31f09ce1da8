//! ABEA's batch state for the native batch lifecycle: reads are copied in
//! one at a time, aligned together by [`align_batch`](super::align_batch)
//! (GPU and CPU pool at once, f5c's routing), and each read's pairs or
//! status read back by index.

use std::sync::Arc;

use super::{AlignedPair, BatchOptions, BatchRead, Model, align_batch};
use crate::engine::scheduler::ScheduleError;

/// Where one read stands.
#[derive(Clone, Debug, PartialEq)]
pub enum ReadSlot {
    /// Added, not yet run.
    Pending,
    /// Aligned (empty for a read f5c skips).
    Done(Vec<AlignedPair>),
    /// The device failed it and strict mode forbade the CPU rescue.
    Failed(ScheduleError),
}

/// Reads aligned with one model table and one set of options.
pub struct Batch {
    models: Arc<[Model]>,
    kmer_size: u32,
    options: BatchOptions,
    reads: Vec<BatchRead>,
    slots: Vec<ReadSlot>,
}

impl Batch {
    pub fn new(models: Arc<[Model]>, kmer_size: u32, options: BatchOptions) -> Batch {
        Batch {
            models,
            kmer_size,
            options,
            reads: Vec::new(),
            slots: Vec::new(),
        }
    }

    /// Room for `reads` more reads, if memory allows (a hint).
    pub fn try_reserve(&mut self, reads: usize) -> bool {
        self.reads.try_reserve(reads).is_ok() && self.slots.try_reserve(reads).is_ok()
    }

    /// Adds a read; its index.
    pub fn add(&mut self, read: BatchRead) -> usize {
        self.reads.push(read);
        self.slots.push(ReadSlot::Pending);
        self.slots.len() - 1
    }

    /// Aligns every read added since the last run.
    pub fn run(&mut self) {
        let first = self.slots.len() - self.reads.len();
        let reads = std::mem::take(&mut self.reads);
        let results = align_batch(self.models.clone(), self.kmer_size, reads, &self.options);
        for (slot, result) in self.slots[first..].iter_mut().zip(results) {
            *slot = match result {
                Ok(pairs) => ReadSlot::Done(pairs),
                Err(e) => ReadSlot::Failed(e),
            };
        }
    }

    /// Read `index`'s slot; `None` past the end.
    pub fn slot(&self, index: usize) -> Option<&ReadSlot> {
        self.slots.get(index)
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forgets every read and result; models and options stay.
    pub fn reset(&mut self) {
        self.reads.clear();
        self.slots.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abea::{Scalings, align};

    #[test]
    fn batch_results_equal_single_calls() {
        let models: Vec<Model> = (0..4096)
            .map(|i| Model {
                level_mean: 60.0 + (i % 97) as f32,
                level_stdv: 1.5,
                level_log_stdv: 1.5f32.ln(),
            })
            .collect();
        let scaling = Scalings {
            scale: 1.0,
            shift: 0.0,
            var: 1.0,
            log_var: 0.0,
        };
        let sequence: Vec<u8> = (0..300).map(|i| b"ACGT"[(i * 7 + i / 5) % 4]).collect();
        let events: Vec<crate::abea::Event> = (0..500)
            .map(|i| crate::abea::Event {
                start: i,
                length: 1.0,
                mean: 60.0 + (i % 90) as f32,
                stdv: 1.0,
            })
            .collect();
        let single = align(&sequence, &events, &models, 6, scaling, 0.0);
        let mut batch = Batch::new(models.clone().into(), 6, BatchOptions::default());
        for _ in 0..3 {
            batch.add(BatchRead {
                sequence: sequence.clone(),
                means: events.iter().map(|e| e.mean).collect(),
                scaling,
            });
        }
        assert_eq!(batch.slot(0), Some(&ReadSlot::Pending));
        batch.run();
        assert_eq!(batch.len(), 3);
        for i in 0..3 {
            assert_eq!(batch.slot(i), Some(&ReadSlot::Done(single.clone())));
        }
        assert_eq!(batch.slot(3), None);
        batch.reset();
        assert!(batch.is_empty());
    }
}
