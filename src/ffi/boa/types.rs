//! x86-64 layouts of the BOA (POA v2) structures that cross the C boundary,
//! with every size, alignment and field offset pinned at compile time: a
//! client compiled against the upstream headers reads these bytes directly
//! (it strides `Sequence_T` arrays, reads `nsource_seq`, `symbol[]`, ...).
//!
//! Rust names are CamelCase; the C names are in `include/boa/poa.h`.

use std::ffi::{c_char, c_float, c_int};
use std::mem::{align_of, offset_of, size_of};

/// `SEQUENCE_NAME_MAX`: name buffers include the terminating NUL.
pub const NAME_MAX: usize = 128;
/// `MATRIX_SYMBOL_MAX`: capacity of the symbol list and score rows.
pub const SYMBOL_MAX: usize = 128;

/// `LPOLetterLink_T`: one edge; the head entry lives inside the letter and
/// holds −1 when the list is empty, further entries are heap nodes.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoLetterLink {
    pub ipos: c_int,
    /// Present because upstream builds with weighted links; the padding it
    /// occupies exists either way, so the layout does not depend on it.
    pub score: c_int,
    pub more: *mut LpoLetterLink,
}

/// `LPOLetterSource_T`: "sequence `iseq` passes here at position `ipos`".
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoLetterSource {
    pub iseq: c_int,
    pub ipos: c_int,
    pub more: *mut LpoLetterSource,
}

/// `LPOLetter_T`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoLetter {
    pub left: LpoLetterLink,
    pub right: LpoLetterLink,
    pub source: LpoLetterSource,
    pub align_ring: c_int,
    pub ring_id: c_int,
    pub score: c_float,
    /// Symbol index (after `initialize_seqs_as_lpo`), a C `char`.
    pub letter: c_char,
}

/// `LPONumericData_T`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoNumericData {
    pub name: [c_char; NAME_MAX],
    pub title: *mut c_char,
    pub data: *mut f64,
}

/// `LPOSourceInfo_T`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoSourceInfo {
    pub name: [c_char; NAME_MAX],
    pub title: *mut c_char,
    pub sequence: *mut c_char,
    pub seq_to_po: *mut c_int,
    pub po_to_seq: *mut c_int,
    pub data: *mut LpoNumericData,
    pub ndata: c_int,
    pub length: c_int,
    pub istart: c_int,
    pub weight: c_int,
    pub bundle_id: c_int,
}

/// `LPOSequence_T` (= `Sequence_T`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct LpoSequence {
    pub length: c_int,
    pub letter: *mut LpoLetter,
    pub title: *mut c_char,
    pub sequence: *mut c_char,
    pub name: [c_char; NAME_MAX],
    pub nsource_seq: c_int,
    pub source_seq: *mut LpoSourceInfo,
}

/// `ResidueScoreMatrix_T` (caller-allocated, 131,904 bytes).
#[repr(C)]
pub struct ResidueScoreMatrix {
    pub nsymbol: c_int,
    pub symbol: [c_char; SYMBOL_MAX],
    pub score: [[c_int; SYMBOL_MAX]; SYMBOL_MAX],
    pub best_match: [[c_int; SYMBOL_MAX]; SYMBOL_MAX],
    pub gap_penalty_set: [[c_int; 3]; 2],
    pub trunc_gap_length: c_int,
    pub decay_gap_length: c_int,
    pub gap_penalty_x: *mut c_int,
    pub gap_penalty_y: *mut c_int,
    pub max_gap_length: c_int,
    pub nfreq: c_int,
    pub freq_symbol: [c_char; SYMBOL_MAX],
    pub freq: [c_float; SYMBOL_MAX],
}

/// `stringptr` (`default.h`).
#[repr(C)]
pub struct StringPtr {
    pub p: *mut c_char,
    pub last_alloc: c_int,
}

/// `LPOScore_T (*)(int, int, LPOLetter_T[], LPOLetter_T[], ResidueScoreMatrix_T *)`.
pub type ScoringFunction = Option<
    unsafe extern "C" fn(
        c_int,
        c_int,
        *mut LpoLetter,
        *mut LpoLetter,
        *mut ResidueScoreMatrix,
    ) -> c_int,
>;

macro_rules! layout {
    ($ty:ty, size $size:expr, align $align:expr, { $($field:ident @ $off:expr),* $(,)? }) => {
        const _: () = assert!(size_of::<$ty>() == $size);
        const _: () = assert!(align_of::<$ty>() == $align);
        $(const _: () = assert!(offset_of!($ty, $field) == $off);)*
    };
}

layout!(LpoLetterLink, size 16, align 8, { ipos @ 0, score @ 4, more @ 8 });
layout!(LpoLetterSource, size 16, align 8, { iseq @ 0, ipos @ 4, more @ 8 });
layout!(LpoLetter, size 64, align 8, {
    left @ 0, right @ 16, source @ 32, align_ring @ 48, ring_id @ 52, score @ 56, letter @ 60,
});
layout!(LpoNumericData, size 144, align 8, { name @ 0, title @ 128, data @ 136 });
layout!(LpoSourceInfo, size 192, align 8, {
    name @ 0, title @ 128, sequence @ 136, seq_to_po @ 144, po_to_seq @ 152, data @ 160,
    ndata @ 168, length @ 172, istart @ 176, weight @ 180, bundle_id @ 184,
});
layout!(LpoSequence, size 176, align 8, {
    length @ 0, letter @ 8, title @ 16, sequence @ 24, name @ 32, nsource_seq @ 160,
    source_seq @ 168,
});
layout!(ResidueScoreMatrix, size 131_904, align 8, {
    nsymbol @ 0, symbol @ 4, score @ 132, best_match @ 65_668, gap_penalty_set @ 131_204,
    trunc_gap_length @ 131_228, decay_gap_length @ 131_232, gap_penalty_x @ 131_240,
    gap_penalty_y @ 131_248, max_gap_length @ 131_256, nfreq @ 131_260,
    freq_symbol @ 131_264, freq @ 131_392,
});
layout!(StringPtr, size 16, align 8, { p @ 0, last_alloc @ 8 });
