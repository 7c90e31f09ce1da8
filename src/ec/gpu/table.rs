//! The default-mode solid set as the GPU reads it: an open-addressing table
//! of canonical codes with linear probing, at most half full. The kernel's
//! `ec_solid` probes it the same way; the CPU rerun of a GPU job asks it
//! too, so both answer from the same members as the spectrum's hash set.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::ec::kmer_counts::SolidSet;
use crate::ec::parallel;

/// A slot no canonical code can hold: the canonical code is the smaller of
/// a k-mer's two codes, and all-ones is never smaller than its reverse
/// complement (all zeros).
pub const EMPTY_SLOT: u64 = u64::MAX;

/// Slot hash, the splitmix64 finaliser; the kernel's twin is
/// `ec_slot_hash` in `kernels/ec.cu`.
#[inline]
pub fn slot_hash(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Codes inserted per task while a table is built.
const BUILD_CHUNK: usize = 1 << 16;

#[derive(Debug)]
pub struct ProbeTable {
    /// Atomic so that the table is filled by every pool thread at once;
    /// once built it is only read (relaxed loads are plain loads).
    slots: Vec<AtomicU64>,
    mask: u64,
}

impl ProbeTable {
    /// Builds the table of `codes` (distinct), on the CPU pool: on 30 M
    /// codes a serial build took over a second before the first GPU launch
    /// could start. Which slot a code lands in depends on the insertion
    /// order, what is a member does not, and the kernel and `contains_codes`
    /// only ask membership (probing stops at the code or at an empty slot,
    /// and a slot once taken is never emptied).
    pub fn new(codes: &[u64]) -> Self {
        let capacity = (2 * codes.len()).next_power_of_two().max(1024);
        let mask = capacity as u64 - 1;
        let slots = parallel::collect_indexed(capacity, |_| AtomicU64::new(EMPTY_SLOT));
        parallel::for_each_chunk(codes, BUILD_CHUNK, |chunk| {
            for &code in chunk.iter() {
                let mut slot = slot_hash(code) & mask;
                loop {
                    match slots[slot as usize].compare_exchange(
                        EMPTY_SLOT,
                        code,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    ) {
                        Ok(_) => break,
                        Err(held) if held == code => break,
                        Err(_) => slot = (slot + 1) & mask,
                    }
                }
            }
        });
        ProbeTable { slots, mask }
    }

    /// Slots in the table (a power of two).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Writes the table as the device reads it (little-endian words) to
    /// the start of `out`, which holds at least `8 * slot_count()` bytes.
    pub fn write_words(&self, out: &mut [u8]) {
        for (word, slot) in out.chunks_exact_mut(8).zip(&self.slots) {
            word.copy_from_slice(&slot.load(Ordering::Relaxed).to_le_bytes());
        }
    }

    pub fn mask(&self) -> u64 {
        self.mask
    }
}

impl SolidSet for ProbeTable {
    #[inline]
    fn contains_codes(&self, fwd: u64, rc: u64) -> bool {
        let code = fwd.min(rc);
        let mut slot = slot_hash(code) & self.mask;
        loop {
            match self.slots[slot as usize].load(Ordering::Relaxed) {
                v if v == code => return true,
                EMPTY_SLOT => return false,
                _ => slot = (slot + 1) & self.mask,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_found_and_others_not() {
        let codes: Vec<u64> = (0..5000u64).map(|i| i * 7919 % 100_003).collect();
        let t = ProbeTable::new(&codes);
        assert!(t.slot_count() >= 2 * codes.len());
        for &c in &codes {
            assert!(t.contains_codes(c, u64::MAX));
        }
        let absent = (0..100_003u64).filter(|c| !codes.contains(c)).take(5000);
        for c in absent {
            assert!(!t.contains_codes(c, c));
        }
    }

    #[test]
    fn a_table_built_by_many_threads_holds_exactly_its_codes() {
        // Several build chunks, inserted at once, with clustered hashes.
        let codes: Vec<u64> = (0..5 * BUILD_CHUNK as u64).map(|i| i * 3).collect();
        let t = ProbeTable::new(&codes);
        for &c in &codes {
            assert!(t.contains_codes(c, u64::MAX));
            assert!(!t.contains_codes(c + 1, u64::MAX));
        }
        let mut words = vec![0u8; 8 * t.slot_count()];
        t.write_words(&mut words);
        let held = words
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .filter(|&w| w != EMPTY_SLOT)
            .count();
        assert_eq!(held, codes.len());
    }
}
