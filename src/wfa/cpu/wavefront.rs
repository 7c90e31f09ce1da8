//! Wavefront storage: one offset vector per (score, component), reused across alignments.

use crate::engine::panic::reserve_or_unwind;

/// Marks an absent cell (`WAVEFRONT_OFFSET_NULL`).
pub const OFFSET_NULL: i32 = i32::MIN / 2;

/// One wavefront. `offs[i]` holds diagonal `base + i`. Cells outside `[lo, hi]` are
/// semantically NULL; they are materialised as NULL only when a reader needs them.
#[derive(Default)]
pub struct Wavefront {
    /// Upstream distinguishes a NULL pointer (no wavefront) from an empty one.
    pub present: bool,
    pub lo: i32,
    pub hi: i32,
    pub base: i32,
    pub offs: Vec<i32>,
}

impl Wavefront {
    /// Readers treat absent and empty wavefronts alike (upstream's `wavefront_null`).
    #[inline]
    pub fn is_null(&self) -> bool {
        !self.present || self.lo > self.hi
    }

    #[inline]
    pub fn get(&self, k: i32) -> i32 {
        self.offs[(k - self.base) as usize]
    }

    #[inline]
    pub fn set(&mut self, k: i32, offset: i32) {
        let i = (k - self.base) as usize;
        self.offs[i] = offset;
    }

    /// Offset at `k` honouring the `[lo, hi]` range (what the backtrace reads).
    #[inline]
    pub fn get_in_range(&self, k: i32) -> Option<i32> {
        if self.present && self.lo <= k && k <= self.hi {
            Some(self.get(k))
        } else {
            None
        }
    }

    /// Makes this wavefront ready to hold `[lo, hi]` with `margin` spare diagonals on
    /// each side, keeping the allocation when it is already large enough.
    pub fn reset(&mut self, lo: i32, hi: i32, margin: i32) {
        let len = (hi - lo + 1 + 2 * margin).max(1) as usize;
        if self.offs.len() < len {
            // Wavefronts grow with the input: running out of memory must
            // fail the alignment, not abort the host.
            let more = len - self.offs.len();
            reserve_or_unwind(&mut self.offs, more);
            self.offs.resize(len, OFFSET_NULL);
        }
        self.base = lo - margin;
        self.lo = lo;
        self.hi = hi;
        self.present = true;
    }

    /// Slice of offsets for diagonals `[from, to]`, after writing NULL into every cell of
    /// that span lying outside `[lo, hi]` (upstream's `wavefront_compute_init_ends`).
    #[inline(always)]
    pub fn padded(&mut self, from: i32, to: i32) -> &[i32] {
        self.ensure_capacity(from, to);
        let (lo, hi) = (self.lo, self.hi);
        let base = self.base;
        let first_valid = lo.max(from);
        for k in from..first_valid.min(to + 1) {
            self.offs[(k - base) as usize] = OFFSET_NULL;
        }
        let last_valid = hi.min(to);
        for k in (last_valid + 1).max(from)..=to {
            self.offs[(k - base) as usize] = OFFSET_NULL;
        }
        &self.offs[(from - base) as usize..=(to - base) as usize]
    }

    /// Makes diagonals `[from, to]` addressable (new cells hold NULL).
    #[inline]
    pub fn ensure_capacity(&mut self, from: i32, to: i32) {
        let end = self.base + self.offs.len() as i32;
        if from >= self.base && to < end {
            return;
        }
        self.recentre(from, to, end);
    }

    /// Rare: re-centres the buffer with generous slack on both sides.
    #[cold]
    #[inline(never)]
    fn recentre(&mut self, from: i32, to: i32, end: i32) {
        let new_base = from.min(self.base) - 64;
        let new_end = (to + 1).max(end) + 64;
        let mut v = Vec::new();
        reserve_or_unwind(&mut v, (new_end - new_base) as usize);
        v.resize((new_end - new_base) as usize, OFFSET_NULL);
        let shift = (self.base - new_base) as usize;
        v[shift..shift + self.offs.len()].copy_from_slice(&self.offs);
        self.offs = v;
        self.base = new_base;
    }
}

/// The five components indexed by score slot (score, or score modulo the scope when
/// only the last few wavefronts are kept).
#[derive(Default)]
pub struct Components {
    pub m: Vec<Wavefront>,
    pub i1: Vec<Wavefront>,
    pub d1: Vec<Wavefront>,
    pub i2: Vec<Wavefront>,
    pub d2: Vec<Wavefront>,
    pub modular: bool,
    pub scope: i32,
    /// Number of slots in use (high memory grows it as the score grows).
    pub used: usize,
}

impl Components {
    /// Drops every wavefront (keeps buffers) and sets the slot policy.
    pub fn clear(&mut self, modular: bool, scope: i32) {
        for v in [
            &mut self.m,
            &mut self.i1,
            &mut self.d1,
            &mut self.i2,
            &mut self.d2,
        ] {
            for w in v.iter_mut().take(self.used) {
                w.present = false;
            }
        }
        self.modular = modular;
        self.scope = scope;
        self.used = 0;
    }

    /// Slot of `score`, or None for negative scores (which read as NULL).
    #[inline]
    pub fn slot(&self, score: i32) -> Option<usize> {
        if score < 0 {
            None
        } else if self.modular {
            Some((score % self.scope) as usize)
        } else {
            Some(score as usize)
        }
    }

    /// Slot that will receive the wavefronts of `score`, creating it if needed.
    pub fn output_slot(&mut self, score: i32) -> usize {
        let s = self.slot(score).expect("non-negative score");
        if s >= self.m.len() {
            let n = s + 1;
            for v in [
                &mut self.m,
                &mut self.i1,
                &mut self.d1,
                &mut self.i2,
                &mut self.d2,
            ] {
                if n > v.capacity() {
                    // Doubling, as `resize` would, but failing softly.
                    let more = n.max(2 * v.len()) - v.len();
                    reserve_or_unwind(v, more);
                }
                v.resize_with(n, Wavefront::default);
            }
        }
        if s >= self.used {
            for v in [
                &mut self.m,
                &mut self.i1,
                &mut self.d1,
                &mut self.i2,
                &mut self.d2,
            ] {
                for w in &mut v[self.used..=s] {
                    w.present = false;
                }
            }
            self.used = s + 1;
        }
        s
    }

    /// Slot of `score` if it holds a non-null wavefront in `comp`.
    #[inline]
    pub fn live(&self, comp: &[Wavefront], score: i32) -> Option<usize> {
        let s = self.slot(score)?;
        if s < self.used && !comp[s].is_null() {
            Some(s)
        } else {
            None
        }
    }
}

/// The DP matrix an alignment (or a BiWFA half) begins or ends in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Component {
    M,
    I1,
    I2,
    D1,
    D2,
}

impl Components {
    /// The wavefronts of one component, indexed by slot.
    pub fn of(&self, c: Component) -> &[Wavefront] {
        match c {
            Component::M => &self.m,
            Component::I1 => &self.i1,
            Component::I2 => &self.i2,
            Component::D1 => &self.d1,
            Component::D2 => &self.d2,
        }
    }

    pub fn of_mut(&mut self, c: Component) -> &mut Vec<Wavefront> {
        match c {
            Component::M => &mut self.m,
            Component::I1 => &mut self.i1,
            Component::I2 => &mut self.i2,
            Component::D1 => &mut self.d1,
            Component::D2 => &mut self.d2,
        }
    }

    /// The wavefront of `c` at `score` if one is stored there (upstream's non-NULL
    /// pointer; it may still be empty).
    #[inline]
    pub fn stored(&self, c: Component, score: i32) -> Option<&Wavefront> {
        let s = self.slot(score)?;
        if s >= self.used {
            return None;
        }
        self.of(c).get(s).filter(|w| w.present)
    }
}
