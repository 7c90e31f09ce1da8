//! Integer lane types of the DP kernel: `i16` when every value of a tile
//! provably fits (the common case, twice the SIMD width), `i32` otherwise.

/// Integer lane type of the DP. `NEG_INF` is the kernel's minus infinity: it
/// is only ever used in a single addition with `gap_extend`, and is below
/// every reachable DP value, which makes it equivalent to upstream's
/// `-INT_MAX` wherever upstream's arithmetic is defined (spec §4.5) and
/// well-defined where upstream overflows (`gap_extend < -1`).
pub(super) trait Lane:
    Copy + Ord + Default + std::ops::BitAnd<Output = Self> + std::ops::BitOr<Output = Self>
{
    const NEG_INF: Self;
    /// Addition. The value bounds (`Params::fits_i16`, `MAX_ABS_SCORE`)
    /// rule out overflow, so this wraps instead of checking: overflow checks
    /// (on in test builds) would otherwise keep the loops from vectorising.
    fn plus(self, other: Self) -> Self;
    /// All bits set when `b`, else 0: a branch-free select mask.
    fn mask(b: bool) -> Self;
    /// The low 8 bits (direction codes fit in 4).
    fn low_byte(self) -> u8;
    /// Callers guarantee `v` is in range (see `Params::fits_i16`).
    fn from_i32(v: i32) -> Self;
    fn to_i32(self) -> i32;
}

impl Lane for i16 {
    // Values stay within [-8000, 16000]; NEG_INF + gap_extend >= -24384.
    const NEG_INF: i16 = -16384;
    #[inline(always)]
    fn plus(self, other: i16) -> i16 {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn mask(b: bool) -> i16 {
        -(b as i16)
    }
    #[inline(always)]
    fn low_byte(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn from_i32(v: i32) -> i16 {
        v as i16
    }
    #[inline(always)]
    fn to_i32(self) -> i32 {
        self as i32
    }
}

impl Lane for i32 {
    // Scores are limited to 2^19 in magnitude, so values stay within 2^29.
    const NEG_INF: i32 = -(1 << 30);
    #[inline(always)]
    fn plus(self, other: i32) -> i32 {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn mask(b: bool) -> i32 {
        -(b as i32)
    }
    #[inline(always)]
    fn low_byte(self) -> u8 {
        self as u8
    }
    #[inline(always)]
    fn from_i32(v: i32) -> i32 {
        v
    }
    #[inline(always)]
    fn to_i32(self) -> i32 {
        self
    }
}
