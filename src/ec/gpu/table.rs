//! The default-mode solid set as the GPU reads it: an open-addressing table
//! of canonical codes with linear probing, at most half full. The kernel's
//! `ec_solid` probes it the same way; the CPU rerun of a GPU job asks it
//! too, so both answer from the same members as the spectrum's hash set.

use crate::ec::kmer_counts::SolidSet;

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

#[derive(Debug)]
pub struct ProbeTable {
    slots: Vec<u64>,
    mask: u64,
}

impl ProbeTable {
    /// Builds the table of `len` distinct codes.
    pub fn new(codes: impl Iterator<Item = u64>, len: usize) -> Self {
        let capacity = (2 * len).next_power_of_two().max(1024);
        let mask = capacity as u64 - 1;
        let mut slots = vec![EMPTY_SLOT; capacity];
        for code in codes {
            let mut slot = slot_hash(code) & mask;
            while slots[slot as usize] != EMPTY_SLOT && slots[slot as usize] != code {
                slot = (slot + 1) & mask;
            }
            slots[slot as usize] = code;
        }
        ProbeTable { slots, mask }
    }

    pub fn slots(&self) -> &[u64] {
        &self.slots
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
            match self.slots[slot as usize] {
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
        let t = ProbeTable::new(codes.iter().copied(), codes.len());
        assert!(t.slots().len() >= 2 * codes.len());
        for &c in &codes {
            assert!(t.contains_codes(c, u64::MAX));
        }
        let absent = (0..100_003u64).filter(|c| !codes.contains(c)).take(5000);
        for c in absent {
            assert!(!t.contains_codes(c, c));
        }
    }
}
