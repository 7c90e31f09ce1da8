//! Scoring parameters, base coding and the score bounds that decide which
//! integer width the DP kernel may use.

use super::error::GactError;

/// Largest absolute substitution or gap score accepted; keeps every DP value
/// of a 511x511 tile far inside `i32` with the kernel's finite minus infinity.
pub const MAX_ABS_SCORE: i32 = 1 << 19;

/// Darwin scoring: a 5x5 substitution matrix over the codes A=0 C=1 G=2 T=3
/// N/other=4, scored as `sub_mat[5 * code(query) + code(ref)]`, plus linear
/// affine gaps: a gap of length L scores `gap_open + (L - 1) * gap_extend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Params {
    pub sub_mat: [i32; 25],
    /// Score (<= 0) of the first base of a gap.
    pub gap_open: i32,
    /// Score (<= 0) of each further base of a gap.
    pub gap_extend: i32,
}

impl Params {
    /// The matrix Darwin's `params.cfg` reader builds: `match_score` on the
    /// ACGT diagonal, `mismatch_score` between different ACGT bases and
    /// `n_score` for every pair involving code 4.
    pub fn from_match_mismatch(
        match_score: i32,
        mismatch_score: i32,
        n_score: i32,
        gap_open: i32,
        gap_extend: i32,
    ) -> Params {
        let mut sub_mat = [n_score; 25];
        for q in 0..4 {
            for r in 0..4 {
                sub_mat[5 * q + r] = if q == r { match_score } else { mismatch_score };
            }
        }
        Params {
            sub_mat,
            gap_open,
            gap_extend,
        }
    }

    /// `software/params.cfg@16bdb81`: +1 / -1 / N 0, gap -1 / -1.
    pub fn darwin_default() -> Params {
        Params::from_match_mismatch(1, -1, 0, -1, -1)
    }

    /// Score of a query byte against a reference byte.
    #[inline]
    pub fn pair_score(&self, query_base: u8, ref_base: u8) -> i32 {
        self.sub_mat[5 * base_code(query_base) as usize + base_code(ref_base) as usize]
    }

    /// Rejects parameters for which upstream is undefined or our integer
    /// ranges could overflow.
    pub(super) fn validate(&self) -> Result<(), GactError> {
        if self.gap_open > 0 || self.gap_extend > 0 {
            return Err(GactError::PositiveGapScore {
                gap_open: self.gap_open,
                gap_extend: self.gap_extend,
            });
        }
        let too_big = |v: i32| v.unsigned_abs() > MAX_ABS_SCORE as u32;
        if self.sub_mat.iter().any(|&v| too_big(v))
            || too_big(self.gap_open)
            || too_big(self.gap_extend)
        {
            return Err(GactError::ScoreOutOfRange);
        }
        Ok(())
    }

    /// Whether every DP value of an `m`x`n` tile (and the kernel's sentinel
    /// arithmetic) fits in `i16` lanes; see `kernel::Lane` for the sentinel.
    pub(super) fn fits_i16(&self, m: usize, n: usize) -> bool {
        let s_max = self.sub_mat.iter().copied().max().unwrap_or(0).max(0) as i64;
        let s_min = self.sub_mat.iter().copied().min().unwrap_or(0).min(0) as i64;
        // H never exceeds min(m, n) positive substitutions; M adds one more.
        let upper = (m.min(n) as i64 + 1) * s_max;
        // M >= s_min, I/D >= s_min + gap_open, their extensions one gap_extend lower.
        let lower = s_min + self.gap_open as i64 + self.gap_extend as i64;
        upper <= 16_000 && lower >= -8_000
    }
}

/// Darwin's `NtChar2Int`: A/a 0, C/c 1, G/g 2, T/t 3, every other byte 4.
/// Upstream accepts any byte, so there is no invalid-base error.
#[inline]
pub fn base_code(b: u8) -> u8 {
    BASE_CODES[b as usize]
}

const BASE_CODES: [u8; 256] = {
    let mut t = [4u8; 256];
    t[b'A' as usize] = 0;
    t[b'a' as usize] = 0;
    t[b'C' as usize] = 1;
    t[b'c' as usize] = 1;
    t[b'G' as usize] = 2;
    t[b'g' as usize] = 2;
    t[b'T' as usize] = 3;
    t[b't' as usize] = 3;
    t
};
