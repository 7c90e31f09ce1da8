//! `#[repr(C)]` mirrors of the WFA2-lib 2.3.3 types clients see, with every
//! size, alignment and field offset pinned by `const` asserts. Clients copy
//! these structs by value and read fields at fixed offsets, so the numbers
//! below are the ABI; `ffi-tests/wfa2/layout.c` checks the same numbers
//! against the upstream headers.
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_int, c_void};
use std::mem::{align_of, offset_of, size_of};

pub const INDEL: c_int = 0;
pub const EDIT: c_int = 1;
pub const GAP_LINEAR: c_int = 2;
pub const GAP_AFFINE: c_int = 3;
pub const GAP_AFFINE_2P: c_int = 4;

pub const COMPUTE_SCORE: c_int = 0;
pub const COMPUTE_ALIGNMENT: c_int = 1;

pub const ALIGNMENT_END2END: c_int = 0;
pub const ALIGNMENT_ENDSFREE: c_int = 1;

pub const MEMORY_HIGH: c_int = 0;
pub const MEMORY_MED: c_int = 1;
pub const MEMORY_LOW: c_int = 2;
pub const MEMORY_ULTRALOW: c_int = 3;

pub const WF_STATUS_SUCCESSFUL: c_int = 0;
pub const WF_STATUS_UNFEASIBLE: c_int = -1;
pub const WF_STATUS_MAX_SCORE_REACHED: c_int = -2;
pub const WF_STATUS_OOM: c_int = -3;

pub const ALIGN_MODE_REGULAR: c_int = 0;
pub const ALIGN_MODE_BIWFA: c_int = 1;

pub type alignment_match_funct_t = Option<unsafe extern "C" fn(c_int, c_int, *mut c_void) -> c_int>;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct linear_penalties_t {
    pub match_: c_int,
    pub mismatch: c_int,
    pub indel: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct affine_penalties_t {
    pub match_: c_int,
    pub mismatch: c_int,
    pub gap_opening: c_int,
    pub gap_extension: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct affine2p_penalties_t {
    pub match_: c_int,
    pub mismatch: c_int,
    pub gap_opening1: c_int,
    pub gap_extension1: c_int,
    pub gap_opening2: c_int,
    pub gap_extension2: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct alignment_form_t {
    pub span: c_int,
    pub pattern_begin_free: c_int,
    pub pattern_end_free: c_int,
    pub text_begin_free: c_int,
    pub text_end_free: c_int,
}

impl alignment_form_t {
    /// These ends-free lengths with the span the caller decided on.
    pub fn with_span(&self, span: crate::wfa::AlignmentSpan) -> crate::wfa::AlignmentForm {
        crate::wfa::AlignmentForm {
            span,
            pattern_begin_free: self.pattern_begin_free,
            pattern_end_free: self.pattern_end_free,
            text_begin_free: self.text_begin_free,
            text_end_free: self.text_end_free,
        }
    }
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct wavefront_heuristic_t {
    pub strategy: u32,
    pub steps_between_cutoffs: c_int,
    pub min_k: c_int,
    pub max_k: c_int,
    pub min_wavefront_length: c_int,
    pub max_distance_threshold: c_int,
    pub xdrop: c_int,
    pub zdrop: c_int,
    pub steps_wait: c_int,
    pub max_sw_score: c_int,
    pub max_sw_score_offset: c_int,
    pub max_sw_score_k: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct wavefront_penalties_t {
    pub distance_metric: c_int,
    pub match_: c_int,
    pub mismatch: c_int,
    pub gap_opening1: c_int,
    pub gap_extension1: c_int,
    pub gap_opening2: c_int,
    pub gap_extension2: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct wavefront_plot_attr_t {
    pub enabled: bool,
    pub resolution_points: c_int,
    pub align_level: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct timespec_t {
    pub tv_sec: i64,
    pub tv_nsec: i64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct profiler_counter_t {
    pub total: u64,
    pub samples: u64,
    pub min: u64,
    pub max: u64,
    pub m_old_m: f64,
    pub m_new_m: f64,
    pub m_old_s: f64,
    pub m_new_s: f64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct profiler_timer_t {
    pub begin_timer: timespec_t,
    pub time_ns: profiler_counter_t,
    pub accumulated: u64,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct alignment_system_t {
    pub max_alignment_score: c_int,
    pub probe_interval_global: c_int,
    pub probe_interval_compact: c_int,
    pub max_partial_compacts: u64,
    pub max_memory_compact: u64,
    pub max_memory_resident: u64,
    pub max_memory_abort: u64,
    pub verbose: c_int,
    pub check_alignment_correct: bool,
    pub timer: profiler_timer_t,
    pub max_num_threads: c_int,
    pub min_offsets_per_thread: c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct wavefront_aligner_attr_t {
    pub distance_metric: c_int,
    pub alignment_scope: c_int,
    pub alignment_form: alignment_form_t,
    pub linear_penalties: linear_penalties_t,
    pub affine_penalties: affine_penalties_t,
    pub affine2p_penalties: affine2p_penalties_t,
    pub heuristic: wavefront_heuristic_t,
    pub memory_mode: c_int,
    pub match_funct: alignment_match_funct_t,
    pub match_funct_arguments: *mut c_void,
    pub mm_allocator: *mut mm_allocator_t,
    pub plot: wavefront_plot_attr_t,
    pub system: alignment_system_t,
}

/// Self-consistent with this library's allocator only: clients treat it as
/// opaque and pass it back, so only the size is ABI.
#[repr(C)]
#[derive(Debug)]
pub struct mm_allocator_t {
    pub request_ticker: u64,
    pub segment_size: u64,
    /// Our registry of live requests (`Box<Registry>`), in the slot upstream
    /// keeps its segment vector.
    pub segments: *mut c_void,
    pub segments_free: *mut c_void,
    pub current_segment_idx: u64,
    pub malloc_requests: *mut c_void,
    pub malloc_requests_freed: u64,
}

#[repr(C)]
#[derive(Debug)]
pub struct cigar_t {
    pub operations: *mut c_char,
    pub max_operations: c_int,
    pub begin_offset: c_int,
    pub end_offset: c_int,
    pub score: c_int,
    pub mm_allocator: *mut mm_allocator_t,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct wavefront_align_status_t {
    pub status: c_int,
    pub score: c_int,
    pub num_null_steps: c_int,
    pub memory_used: u64,
    pub wf_align_compute: *mut c_void,
    pub wf_align_extend: *mut c_void,
}

/// Upstream's wavefront bookkeeping; nothing here reads it, but clients
/// that embed the aligner's layout need its 96 bytes in place.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct wavefront_components_t {
    pub memory_modular: bool,
    pub bt_piggyback: bool,
    pub num_wavefronts: c_int,
    pub max_score_scope: c_int,
    pub historic_max_hi: c_int,
    pub historic_min_lo: c_int,
    pub mwavefronts: *mut c_void,
    pub i1wavefronts: *mut c_void,
    pub i2wavefronts: *mut c_void,
    pub d1wavefronts: *mut c_void,
    pub d2wavefronts: *mut c_void,
    pub wavefront_null: *mut c_void,
    pub wavefront_victim: *mut c_void,
    pub bt_buffer: *mut c_void,
    pub mm_allocator: *mut mm_allocator_t,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct wavefront_pos_t {
    pub score: c_int,
    pub k: c_int,
    pub offset: c_int,
}

#[repr(C)]
#[derive(Debug)]
pub struct wavefront_aligner_t {
    pub align_mode: c_int,
    pub align_mode_tag: *mut c_char,
    pub align_status: wavefront_align_status_t,
    pub sequences: *mut c_void,
    pub pattern: *mut c_char,
    pub pattern_length: c_int,
    pub text: *mut c_char,
    pub text_length: c_int,
    pub match_funct: alignment_match_funct_t,
    pub match_funct_arguments: *mut c_void,
    pub alignment_scope: c_int,
    pub alignment_form: alignment_form_t,
    pub penalties: wavefront_penalties_t,
    pub heuristic: wavefront_heuristic_t,
    pub memory_mode: c_int,
    pub wf_components: wavefront_components_t,
    pub component_begin: c_int,
    pub component_end: c_int,
    pub alignment_end_pos: wavefront_pos_t,
    /// Non-null exactly for BiWFA (ultralow) aligners, as upstream; points at
    /// our state, like `wavefront_slab`.
    pub bialigner: *mut c_void,
    pub cigar: *mut cigar_t,
    pub mm_allocator_own: bool,
    pub mm_allocator: *mut mm_allocator_t,
    /// Holds our `Box<State>`: clients never look inside the slab.
    pub wavefront_slab: *mut c_void,
    pub plot: *mut c_void,
    pub system: alignment_system_t,
}

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sequence_offset_t {
    pub pattern_offset: u64,
    pub pattern_length: u64,
    pub text_offset: u64,
    pub text_length: u64,
}

#[repr(C)]
#[derive(Debug)]
pub struct sequence_buffer_t {
    pub sequence_id: u64,
    pub offsets: *mut sequence_offset_t,
    pub offsets_used: u64,
    pub offsets_allocated: u64,
    pub buffer: *mut c_char,
    pub buffer_used: u64,
    pub buffer_allocated: u64,
    pub max_pattern_length: c_int,
    pub max_text_length: c_int,
}

#[repr(C)]
#[derive(Debug)]
pub struct score_matrix_t {
    pub columns: *mut *mut c_int,
    pub num_rows: c_int,
    pub num_columns: c_int,
    pub mm_allocator: *mut mm_allocator_t,
}

macro_rules! layout {
    ($ty:ty, size $size:expr, align $align:expr $(, $field:ident @ $off:expr)* $(,)?) => {
        const _: () = assert!(size_of::<$ty>() == $size);
        const _: () = assert!(align_of::<$ty>() == $align);
        $(const _: () = assert!(offset_of!($ty, $field) == $off);)*
    };
}

layout!(linear_penalties_t, size 12, align 4, match_@0, mismatch@4, indel@8);
layout!(affine_penalties_t, size 16, align 4, match_@0, mismatch@4, gap_opening@8, gap_extension@12);
layout!(affine2p_penalties_t, size 24, align 4, match_@0, mismatch@4, gap_opening1@8,
    gap_extension1@12, gap_opening2@16, gap_extension2@20);
layout!(alignment_form_t, size 20, align 4, span@0, pattern_begin_free@4, pattern_end_free@8,
    text_begin_free@12, text_end_free@16);
layout!(wavefront_heuristic_t, size 48, align 4, strategy@0, steps_between_cutoffs@4, min_k@8,
    max_k@12, min_wavefront_length@16, max_distance_threshold@20, xdrop@24, zdrop@28,
    steps_wait@32, max_sw_score@36, max_sw_score_offset@40, max_sw_score_k@44);
layout!(wavefront_penalties_t, size 28, align 4, distance_metric@0, match_@4, mismatch@8,
    gap_opening1@12, gap_extension1@16, gap_opening2@20, gap_extension2@24);
layout!(wavefront_plot_attr_t, size 12, align 4, enabled@0, resolution_points@4, align_level@8);
layout!(profiler_counter_t, size 64, align 8, total@0, samples@8, min@16, max@24, m_old_m@32,
    m_new_m@40, m_old_s@48, m_new_s@56);
layout!(profiler_timer_t, size 88, align 8, begin_timer@0, time_ns@16, accumulated@80);
layout!(alignment_system_t, size 152, align 8, max_alignment_score@0, probe_interval_global@4,
    probe_interval_compact@8, max_partial_compacts@16, max_memory_compact@24,
    max_memory_resident@32, max_memory_abort@40, verbose@48, check_alignment_correct@52,
    timer@56, max_num_threads@144, min_offsets_per_thread@148);
layout!(wavefront_aligner_attr_t, size 328, align 8, distance_metric@0, alignment_scope@4,
    alignment_form@8, linear_penalties@28, affine_penalties@40, affine2p_penalties@56,
    heuristic@80, memory_mode@128, match_funct@136, match_funct_arguments@144,
    mm_allocator@152, plot@160, system@176);
layout!(mm_allocator_t, size 56, align 8, request_ticker@0, segment_size@8, segments@16,
    segments_free@24, current_segment_idx@32, malloc_requests@40, malloc_requests_freed@48);
layout!(cigar_t, size 32, align 8, operations@0, max_operations@8, begin_offset@12,
    end_offset@16, score@20, mm_allocator@24);
layout!(wavefront_align_status_t, size 40, align 8, status@0, score@4, num_null_steps@8,
    memory_used@16, wf_align_compute@24, wf_align_extend@32);
layout!(wavefront_components_t, size 96, align 8, memory_modular@0, bt_piggyback@1,
    num_wavefronts@4, max_score_scope@8, historic_max_hi@12, historic_min_lo@16,
    mwavefronts@24, bt_buffer@80, mm_allocator@88);
layout!(wavefront_pos_t, size 12, align 4, score@0, k@4, offset@8);
layout!(wavefront_aligner_t, size 536, align 8, align_mode@0, align_mode_tag@8,
    align_status@16, sequences@56, pattern@64, pattern_length@72, text@80, text_length@88,
    match_funct@96, match_funct_arguments@104, alignment_scope@112, alignment_form@116,
    penalties@136, heuristic@164, memory_mode@212, wf_components@216, component_begin@312,
    component_end@316, alignment_end_pos@320, bialigner@336, cigar@344,
    mm_allocator_own@352, mm_allocator@360, wavefront_slab@368, plot@376, system@384);
layout!(sequence_offset_t, size 32, align 8, pattern_offset@0, pattern_length@8,
    text_offset@16, text_length@24);
layout!(sequence_buffer_t, size 64, align 8, sequence_id@0, offsets@8, offsets_used@16,
    offsets_allocated@24, buffer@32, buffer_used@40, buffer_allocated@48,
    max_pattern_length@56, max_text_length@60);
layout!(score_matrix_t, size 24, align 8, columns@0, num_rows@8, num_columns@12,
    mm_allocator@16);

/// The defaults of `wavefront_aligner_attr_default` (wfadaptive(10,50,1) on).
pub const ATTR_DEFAULT: wavefront_aligner_attr_t = wavefront_aligner_attr_t {
    distance_metric: GAP_AFFINE,
    alignment_scope: COMPUTE_ALIGNMENT,
    alignment_form: alignment_form_t {
        span: ALIGNMENT_END2END,
        pattern_begin_free: 0,
        pattern_end_free: 0,
        text_begin_free: 0,
        text_end_free: 0,
    },
    linear_penalties: linear_penalties_t {
        match_: 0,
        mismatch: 4,
        indel: 2,
    },
    affine_penalties: affine_penalties_t {
        match_: 0,
        mismatch: 4,
        gap_opening: 6,
        gap_extension: 2,
    },
    affine2p_penalties: affine2p_penalties_t {
        match_: 0,
        mismatch: 4,
        gap_opening1: 6,
        gap_extension1: 2,
        gap_opening2: 24,
        gap_extension2: 1,
    },
    heuristic: wavefront_heuristic_t {
        strategy: 0x4,
        steps_between_cutoffs: 1,
        min_k: 0,
        max_k: 0,
        min_wavefront_length: 10,
        max_distance_threshold: 50,
        xdrop: 0,
        zdrop: 0,
        steps_wait: 0,
        max_sw_score: 0,
        max_sw_score_offset: 0,
        max_sw_score_k: 0,
    },
    memory_mode: MEMORY_HIGH,
    match_funct: None,
    match_funct_arguments: std::ptr::null_mut(),
    mm_allocator: std::ptr::null_mut(),
    plot: wavefront_plot_attr_t {
        enabled: false,
        resolution_points: 2000,
        align_level: 0,
    },
    system: alignment_system_t {
        max_alignment_score: i32::MAX,
        probe_interval_global: 3000,
        probe_interval_compact: 6000,
        max_partial_compacts: 0,
        max_memory_compact: u64::MAX,
        max_memory_resident: u64::MAX,
        max_memory_abort: u64::MAX,
        verbose: 0,
        check_alignment_correct: false,
        timer: profiler_timer_t {
            begin_timer: timespec_t {
                tv_sec: 0,
                tv_nsec: 0,
            },
            time_ns: profiler_counter_t {
                total: 0,
                samples: 0,
                min: 0,
                max: 0,
                m_old_m: 0.0,
                m_new_m: 0.0,
                m_old_s: 0.0,
                m_new_s: 0.0,
            },
            accumulated: 0,
        },
        max_num_threads: 1,
        min_offsets_per_thread: 500,
    },
};
