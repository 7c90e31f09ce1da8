//! The single gateway to parallelism for the EC family.
//!
//! Every parallel loop of the module goes through [`for_each_chunk_mut`],
//! [`for_each_chunk`] or [`collect_indexed`],
//! which runs on the engine's CPU pool (so `SEQSHIM_THREADS` applies and the
//! host's rayon global pool is never touched). Results never depend on the
//! thread count: each chunk is processed independently and chunk boundaries
//! are fixed by `chunk_len`, not by the number of workers.

use rayon::prelude::*;

/// Calls `work(chunk_index, chunk)` for consecutive chunks of `chunk_len`
/// items (the last one may be shorter), possibly in parallel.
pub fn for_each_chunk_mut<T, F>(items: &mut [T], chunk_len: usize, work: F)
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    let chunk_len = chunk_len.max(1);
    crate::engine::cpu::install(|| {
        items
            .par_chunks_mut(chunk_len)
            .enumerate()
            .for_each(|(i, chunk)| work(i, chunk));
    });
}

/// Calls `work(chunk)` for consecutive chunks of `chunk_len` items (the
/// last one may be shorter), possibly in parallel.
pub fn for_each_chunk<T, F>(items: &[T], chunk_len: usize, work: F)
where
    T: Sync,
    F: Fn(&[T]) + Sync + Send,
{
    let chunk_len = chunk_len.max(1);
    crate::engine::cpu::install(|| items.par_chunks(chunk_len).for_each(work));
}

/// `(0..n).map(make)` collected in order, possibly in parallel: a large
/// table's slots are written (and its pages first touched) by every pool
/// thread instead of one.
pub fn collect_indexed<T, F>(n: usize, make: F) -> Vec<T>
where
    T: Send,
    F: Fn(usize) -> T + Sync + Send,
{
    crate::engine::cpu::install(|| (0..n).into_par_iter().map(make).collect())
}
