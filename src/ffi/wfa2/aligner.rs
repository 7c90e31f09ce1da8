//! `wavefront/wfa.h`: the aligner object, its setters, the exported data
//! objects and `wavefront_align`, which maps the aligner's fields onto
//! [`crate::wfa::Aligner`] and writes status and CIGAR back in 2.3.3's layout.

use std::cell::UnsafeCell;
use std::ffi::{c_char, c_int, c_void};

use super::cigar;
use super::convert::{State, heuristic_of, heuristic_to_c, mode_of, refuse, scope_of, write_cigar};
use super::io::{self, Stream};
use super::mm_allocator::{self as mm, allocate};
use super::types::*;
use crate::ffi_guard;
use crate::wfa::{
    Affine2pPenalties, AffinePenalties, AlignStatus, AlignerAttributes, AlignmentForm,
    AlignmentScope, AlignmentSpan, Heuristic, LinearPenalties, MatchFunction, MemoryMode,
    Penalties, WfaError,
};

/// A writable data object exported under a C name. Clients get copy
/// relocations of these, so they must be plain data of upstream's size.
#[repr(transparent)]
pub struct CData<T>(UnsafeCell<T>);

// SAFETY: C clients mutate these without synchronisation, exactly as they do
// with upstream's globals; Rust code only reads them through raw pointers.
unsafe impl<T> Sync for CData<T> {}

impl<T> CData<T> {
    pub fn get(&self) -> *mut T {
        self.0.get()
    }
}

/// Upstream's defaults, wfadaptive(10,50,1) included; clients copy and edit it.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static wavefront_aligner_attr_default: CData<wavefront_aligner_attr_t> =
    CData(UnsafeCell::new(ATTR_DEFAULT));

/// Status messages indexed by `status + 3`; the fifth entry is NULL.
#[allow(non_upper_case_globals)]
#[unsafe(no_mangle)]
pub static wf_error_msg: CData<[*const c_char; 5]> = CData(UnsafeCell::new([
    c"[WFA] Alignment failed. Maximum memory threshold reached".as_ptr(),
    c"[WFA] Alignment failed. Maximum score reached".as_ptr(),
    c"[WFA] Alignment unfeasible (possible due to heuristic parameters)".as_ptr(),
    c"[WFA] Alignment finished successfully".as_ptr(),
    std::ptr::null(),
]));

const _: () = assert!(size_of::<CData<wavefront_aligner_attr_t>>() == 328);
const _: () = assert!(size_of::<CData<[*const c_char; 5]>>() == 40);

const BUFFER_SIZE_4K: u64 = 4 << 10;
const BUFFER_SIZE_4M: u64 = 4 << 20;

fn client_penalties(a: &wavefront_aligner_attr_t) -> Option<Penalties> {
    Some(match a.distance_metric {
        INDEL => Penalties::Indel,
        EDIT => Penalties::Edit,
        GAP_LINEAR => Penalties::GapLinear(LinearPenalties {
            match_score: a.linear_penalties.match_,
            mismatch: a.linear_penalties.mismatch,
            indel: a.linear_penalties.indel,
        }),
        GAP_AFFINE => Penalties::GapAffine(AffinePenalties {
            match_score: a.affine_penalties.match_,
            mismatch: a.affine_penalties.mismatch,
            gap_opening: a.affine_penalties.gap_opening,
            gap_extension: a.affine_penalties.gap_extension,
        }),
        GAP_AFFINE_2P => Penalties::GapAffine2p(Affine2pPenalties {
            match_score: a.affine2p_penalties.match_,
            mismatch: a.affine2p_penalties.mismatch,
            gap_opening1: a.affine2p_penalties.gap_opening1,
            gap_extension1: a.affine2p_penalties.gap_extension1,
            gap_opening2: a.affine2p_penalties.gap_opening2,
            gap_extension2: a.affine2p_penalties.gap_extension2,
        }),
        _ => return None,
    })
}

fn build(
    penalties: Penalties,
    scope: AlignmentScope,
    mode: MemoryMode,
) -> Result<crate::wfa::Aligner, WfaError> {
    crate::wfa::Aligner::new(&AlignerAttributes {
        penalties,
        scope,
        form: AlignmentForm::END_TO_END,
        memory_mode: mode,
        heuristic: Heuristic::none(),
        max_alignment_score: i32::MAX,
    })
}

/// Creates an aligner from `attributes` (the current value of
/// `wavefront_aligner_attr_default` when null). Invalid penalties print
/// 2.3.3's message and return NULL (2.3.3 exits).
///
/// # Safety
/// `attributes` must be null or point to a valid `wavefront_aligner_attr_t`
/// whose `mm_allocator`, when set, is live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_new(
    attributes: *mut wavefront_aligner_attr_t,
) -> *mut wavefront_aligner_t {
    ffi_guard!(std::ptr::null_mut(), {
        let attr_ptr = if attributes.is_null() {
            wavefront_aligner_attr_default.get()
        } else {
            attributes
        };
        // SAFETY: valid per the contract (or our own global).
        let a = unsafe { attr_ptr.read() };
        let Some(penalties) = client_penalties(&a) else {
            io::eprint(b"[WFA] Distance function not implemented\n");
            return std::ptr::null_mut();
        };
        let scope = scope_of(a.alignment_scope);
        let mode = mode_of(a.memory_mode);
        let aligner = match build(penalties, scope, mode) {
            Ok(aligner) => aligner,
            Err(WfaError::InvalidPenalties(msg)) => {
                io::eprint(format!("[WFA::Penalties] {msg}\n").as_bytes());
                return std::ptr::null_mut();
            }
            Err(e) => {
                crate::log_warn!("wavefront_aligner_new: {e:?}");
                return std::ptr::null_mut();
            }
        };
        let biwfa = a.memory_mode == MEMORY_ULTRALOW;
        let score_only = scope == AlignmentScope::ComputeScore;
        let (mm, own) = if a.mm_allocator.is_null() {
            let size = if biwfa {
                BUFFER_SIZE_4K
            } else {
                BUFFER_SIZE_4M
            };
            // SAFETY: always safe.
            (unsafe { mm::mm_allocator_new(size) }, true)
        } else {
            (a.mm_allocator, false)
        };
        let internal = aligner.internal_penalties();
        let heuristic = Heuristic::from_attributes(&heuristic_of(&a.heuristic));
        let state = Box::into_raw(Box::new(State {
            aligner,
            built: (scope, mode),
            penalties,
            pattern: Vec::new(),
            text: Vec::new(),
        }));
        // SAFETY: `mm` is live; the block is zeroed and of the right size.
        let wf = unsafe { allocate(mm, size_of::<wavefront_aligner_t>() as u64, true, 8) }
            as *mut wavefront_aligner_t;
        // SAFETY: `mm` is live.
        let cigar = unsafe { cigar::new(if score_only { 10 } else { 4000 }, mm) };
        if wf.is_null() || cigar.is_null() {
            // SAFETY: `state` came from Box::into_raw above and is not shared.
            drop(unsafe { Box::from_raw(state) });
            return std::ptr::null_mut();
        }
        // SAFETY: a zeroed block: every field is valid as all-zero bytes
        // (pointers null, function pointer None), and we own it.
        let w = unsafe { &mut *wf };
        w.align_mode = if biwfa {
            ALIGN_MODE_BIWFA
        } else {
            ALIGN_MODE_REGULAR
        };
        w.match_funct = a.match_funct;
        w.match_funct_arguments = a.match_funct_arguments;
        w.alignment_scope = a.alignment_scope;
        w.alignment_form = a.alignment_form;
        w.penalties = wavefront_penalties_t {
            distance_metric: a.distance_metric,
            match_: internal.match_score,
            mismatch: internal.mismatch,
            gap_opening1: internal.gap_opening1,
            gap_extension1: internal.gap_extension1,
            gap_opening2: internal.gap_opening2,
            gap_extension2: internal.gap_extension2,
        };
        w.heuristic = heuristic_to_c(&heuristic);
        w.memory_mode = a.memory_mode;
        w.bialigner = if biwfa {
            state.cast()
        } else {
            std::ptr::null_mut()
        };
        w.cigar = cigar;
        w.mm_allocator_own = own;
        w.mm_allocator = mm;
        w.wavefront_slab = state.cast();
        w.system = a.system;
        wf
    })
}

/// # Safety
/// `wf` must be an aligner from [`wavefront_aligner_new`].
unsafe fn state<'a>(wf: *mut wavefront_aligner_t) -> &'a mut State {
    // SAFETY: `wavefront_slab` holds the Box<State> made by new().
    unsafe { &mut *((*wf).wavefront_slab as *mut State) }
}

/// Releases the memory kept from the last alignment.
///
/// # Safety
/// `wf_aligner` must be an aligner from [`wavefront_aligner_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_reap(wf_aligner: *mut wavefront_aligner_t) {
    ffi_guard!((), {
        if wf_aligner.is_null() {
            return;
        }
        // SAFETY: a valid aligner per the contract (not null, checked).
        let (w, s) = unsafe { (&mut *wf_aligner, state(wf_aligner)) };
        s.pattern = Vec::new();
        s.text = Vec::new();
        w.pattern = std::ptr::null_mut();
        w.text = std::ptr::null_mut();
    })
}

/// Releases the aligner, its CIGAR, and its allocator when it owns it.
///
/// # Safety
/// `wf_aligner` must be an aligner from [`wavefront_aligner_new`], not used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_delete(wf_aligner: *mut wavefront_aligner_t) {
    ffi_guard!((), {
        if wf_aligner.is_null() {
            return;
        }
        // SAFETY: valid aligner per the contract; each piece freed once.
        unsafe {
            let (mm, own) = ((*wf_aligner).mm_allocator, (*wf_aligner).mm_allocator_own);
            drop(Box::from_raw((*wf_aligner).wavefront_slab as *mut State));
            cigar::cigar_free((*wf_aligner).cigar);
            mm::free(mm, wf_aligner.cast());
            if own {
                mm::mm_allocator_delete(mm);
            }
        }
    })
}

macro_rules! setter {
    ($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*) |$w:ident| $body:block) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// `wf_aligner` must be an aligner from [`wavefront_aligner_new`].
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(wf_aligner: *mut wavefront_aligner_t $(, $arg: $ty)*) {
            ffi_guard!((), {
                // SAFETY: null or a valid aligner per the contract.
                let Some($w) = (unsafe { wf_aligner.as_mut() }) else {
                    return;
                };
                $body
            })
        }
    };
}

setter!(
    /// Global alignment. Only the span changes: 2.3.3 keeps the old
    /// begin-free lengths, and they still shape wavefront 0.
    wavefront_aligner_set_alignment_end_to_end() |w| {
        w.alignment_form.span = ALIGNMENT_END2END;
    }
);

setter!(
    /// Ends-free alignment with these free lengths.
    wavefront_aligner_set_alignment_free_ends(
        pattern_begin_free: c_int,
        pattern_end_free: c_int,
        text_begin_free: c_int,
        text_end_free: c_int
    ) |w| {
        w.alignment_form = alignment_form_t {
            span: ALIGNMENT_ENDSFREE,
            pattern_begin_free,
            pattern_end_free,
            text_begin_free,
            text_end_free,
        };
    }
);

fn edit_heuristic(w: &mut wavefront_aligner_t, f: impl FnOnce(&mut Heuristic)) {
    let mut h = heuristic_of(&w.heuristic);
    f(&mut h);
    w.heuristic = heuristic_to_c(&h);
}

setter!(
    /// Exact alignment.
    wavefront_aligner_set_heuristic_none() |w| {
        edit_heuristic(w, |h| h.set_none());
    }
);

setter!(
    /// Adds wf-adaptive pruning.
    wavefront_aligner_set_heuristic_wfadaptive(
        min_wavefront_length: c_int,
        max_distance_threshold: c_int,
        score_steps: c_int
    ) |w| {
        edit_heuristic(w, |h| {
            h.set_wfadaptive(min_wavefront_length, max_distance_threshold, score_steps)
        });
    }
);

setter!(
    /// Adds wfmash-style pruning.
    wavefront_aligner_set_heuristic_wfmash(
        min_wavefront_length: c_int,
        max_distance_threshold: c_int,
        score_steps: c_int
    ) |w| {
        edit_heuristic(w, |h| {
            h.set_wfmash(min_wavefront_length, max_distance_threshold, score_steps)
        });
    }
);

setter!(
    /// Adds X-drop.
    wavefront_aligner_set_heuristic_xdrop(xdrop: c_int, score_steps: c_int) |w| {
        edit_heuristic(w, |h| h.set_xdrop(xdrop, score_steps));
    }
);

setter!(
    /// Adds Z-drop.
    wavefront_aligner_set_heuristic_zdrop(ydrop: c_int, score_steps: c_int) |w| {
        edit_heuristic(w, |h| h.set_zdrop(ydrop, score_steps));
    }
);

setter!(
    /// Adds a static band.
    wavefront_aligner_set_heuristic_banded_static(band_min_k: c_int, band_max_k: c_int) |w| {
        edit_heuristic(w, |h| h.set_banded_static(band_min_k, band_max_k));
    }
);

setter!(
    /// Adds an adaptive band.
    wavefront_aligner_set_heuristic_banded_adaptive(
        band_min_k: c_int,
        band_max_k: c_int,
        score_steps: c_int
    ) |w| {
        edit_heuristic(w, |h| h.set_banded_adaptive(band_min_k, band_max_k, score_steps));
    }
);

setter!(
    /// Installs a custom match function: extension then asks it instead of
    /// comparing bytes (the sequences may be NULL).
    wavefront_aligner_set_match_funct(
        match_funct: Option<unsafe extern "C" fn(c_int, c_int, *mut c_void) -> c_int>,
        match_funct_arguments: *mut c_void
    ) |w| {
        w.match_funct = match_funct;
        w.match_funct_arguments = match_funct_arguments;
    }
);

setter!(
    /// Stops alignments at this score (status -2).
    wavefront_aligner_set_max_alignment_score(max_alignment_score: c_int) |w| {
        w.system.max_alignment_score = max_alignment_score;
    }
);

setter!(
    /// `max_memory_abort` stops an alignment with status -3, probed every
    /// `probe_interval_global` scores as in 2.3.3 (against seqshim's own
    /// buffer sizes); `max_memory_resident` is recorded only.
    wavefront_aligner_set_max_memory(max_memory_resident: u64, max_memory_abort: u64) |w| {
        w.system.max_memory_resident = max_memory_resident;
        w.system.max_memory_abort = max_memory_abort;
    }
);

setter!(
    /// Recorded as upstream; like Debian's build, alignments use one thread.
    wavefront_aligner_set_max_num_threads(max_num_threads: c_int) |w| {
        w.system.max_num_threads = max_num_threads;
    }
);

setter!(
    /// Recorded as upstream; no effect with one thread.
    wavefront_aligner_set_min_offsets_per_thread(min_offsets_per_thread: c_int) |w| {
        w.system.min_offsets_per_thread = min_offsets_per_thread;
    }
);

/// Bytes this aligner holds for its CIGAR and sequence copies (upstream
/// reports its wavefront slab instead, so the numbers differ).
///
/// # Safety
/// `wf_aligner` must be an aligner from [`wavefront_aligner_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_get_size(wf_aligner: *mut wavefront_aligner_t) -> u64 {
    ffi_guard!(0, {
        if wf_aligner.is_null() {
            return 0;
        }
        // SAFETY: a valid aligner per the contract (not null, checked).
        let (w, s) = unsafe { (&*wf_aligner, state(wf_aligner)) };
        // SAFETY: the aligner's cigar is valid.
        let cigar = unsafe { (*w.cigar).max_operations.max(0) } as u64;
        cigar + (s.pattern.capacity() + s.text.capacity()) as u64
    })
}

/// Prints the aligner kind: "WFA", "BiWFA", or the mode tag when set.
///
/// # Safety
/// `stream` must be a valid `FILE*`; `wf_aligner` a valid aligner.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_print_type(
    stream: *mut libc::FILE,
    wf_aligner: *mut wavefront_aligner_t,
) {
    ffi_guard!((), {
        // SAFETY: null or a valid aligner per the contract.
        let Some(w) = (unsafe { wf_aligner.as_ref() }) else {
            return;
        };
        let text: Vec<u8> = if w.align_mode_tag.is_null() {
            match w.align_mode {
                1 => b"BiWFA".to_vec(),
                2 => b"BiWFA::Forward".to_vec(),
                3 => b"BiWFA::Reverse".to_vec(),
                4 => b"BiWFA::SubWFA".to_vec(),
                _ => b"WFA".to_vec(),
            }
        } else {
            // SAFETY: a set tag is a NUL-terminated string.
            unsafe { std::ffi::CStr::from_ptr(w.align_mode_tag) }
                .to_bytes()
                .to_vec()
        };
        Stream(stream).write(&text);
    })
}

/// Prints "(alignment,end2end)" or "(score,endsfree,P0,Pf,T0,Tf)".
///
/// # Safety
/// `stream` must be a valid `FILE*`; `wf_aligner` a valid aligner.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_print_scope(
    stream: *mut libc::FILE,
    wf_aligner: *mut wavefront_aligner_t,
) {
    ffi_guard!((), {
        // SAFETY: null or a valid aligner per the contract.
        let Some(w) = (unsafe { wf_aligner.as_ref() }) else {
            return;
        };
        let scope = if w.alignment_scope == COMPUTE_SCORE {
            "score"
        } else {
            "alignment"
        };
        let f = &w.alignment_form;
        let text = if f.span == ALIGNMENT_END2END {
            format!("({scope},end2end)")
        } else {
            format!(
                "({scope},endsfree,{},{},{},{})",
                f.pattern_begin_free, f.pattern_end_free, f.text_begin_free, f.text_end_free
            )
        };
        Stream(stream).write(text.as_bytes());
    })
}

fn mode_text(w: &wavefront_aligner_t) -> String {
    let scope = if w.alignment_scope == COMPUTE_SCORE {
        "Score"
    } else {
        "Alg"
    };
    let mode = match w.memory_mode {
        MEMORY_HIGH => "MHigh)",
        MEMORY_MED => "MMed)",
        MEMORY_LOW => "MLow)",
        MEMORY_ULTRALOW => "BiWFA)",
        _ => "",
    };
    format!("({scope},{mode}")
}

/// Prints "(Alg,MHigh)", "(Score,BiWFA)" and so on.
///
/// # Safety
/// `stream` must be a valid `FILE*`; `wf_aligner` a valid aligner.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_aligner_print_mode(
    stream: *mut libc::FILE,
    wf_aligner: *mut wavefront_aligner_t,
) {
    ffi_guard!((), {
        // SAFETY: null or a valid aligner per the contract.
        if let Some(w) = unsafe { wf_aligner.as_ref() } {
            Stream(stream).write(mode_text(w).as_bytes());
        }
    })
}

/// Prints the plot header (sequences and mode). Wavefront heatmaps are not
/// recorded by this implementation, so none follow.
///
/// # Safety
/// `stream` must be a valid `FILE*`; `wf_aligner` a valid aligner.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_plot_print(
    stream: *mut libc::FILE,
    wf_aligner: *mut wavefront_aligner_t,
) {
    ffi_guard!((), {
        if wf_aligner.is_null() {
            return;
        }
        // SAFETY: a valid aligner per the contract (not null, checked).
        let (w, s) = unsafe { (&*wf_aligner, state(wf_aligner)) };
        let mut out = Vec::new();
        if w.match_funct.is_some() {
            out.extend_from_slice(b"# PatternLength 0\n# TextLength 0\n# Pattern -\n# Text -\n");
        } else {
            out.extend_from_slice(
                format!("# PatternLength {}\n# Pattern ", s.pattern.len()).as_bytes(),
            );
            out.extend_from_slice(&s.pattern);
            out.extend_from_slice(format!("\n# TextLength {}\n# Text ", s.text.len()).as_bytes());
            out.extend_from_slice(&s.text);
            out.push(b'\n');
        }
        out.extend_from_slice(format!("# WFAMode {}\n", mode_text(w)).as_bytes());
        Stream(stream).write(&out);
    })
}

/// The message for a status code (a string of `wf_error_msg`). Positive
/// codes print 2.3.3's message and return NULL (2.3.3 exits); codes below
/// -3 return NULL (2.3.3 reads out of bounds).
///
/// # Safety
/// Always safe to call; the result must not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_align_strerror(error_code: c_int) -> *mut c_char {
    ffi_guard!(std::ptr::null_mut(), {
        if error_code > 0 {
            io::eprint(format!("[WFA] Internal alignment error code ({error_code})").as_bytes());
            return std::ptr::null_mut();
        }
        if error_code < -3 {
            return std::ptr::null_mut();
        }
        // SAFETY: the index is in 0..=3; the array is our exported global,
        // read the way upstream reads it.
        unsafe { (*wf_error_msg.get())[(error_code + 3) as usize] as *mut c_char }
    })
}

/// The client's match function, as the algorithm calls it.
fn match_function(w: &wavefront_aligner_t) -> Option<MatchFunction> {
    let f = w.match_funct?;
    let args = ClientArguments(w.match_funct_arguments);
    Some(std::sync::Arc::new(move |v, h| {
        // SAFETY: the client registered `f` together with these arguments for
        // exactly such calls, made during its own `wavefront_align`.
        unsafe { f(v, h, args.get()) != 0 }
    }))
}

/// `match_funct_arguments`, opaque to us.
struct ClientArguments(*mut c_void);

impl ClientArguments {
    fn get(&self) -> *mut c_void {
        self.0
    }
}

// SAFETY: the pointer is only handed back to the client's function, from
// inside the client's `wavefront_align` call on the client's thread.
unsafe impl Send for ClientArguments {}
// SAFETY: as above; we never dereference it.
unsafe impl Sync for ClientArguments {}

/// The checks 2.3.3 makes before aligning (`crate::wfa::checks`), with its
/// messages; `false` means refuse (2.3.3 exits).
fn checks(w: &wavefront_aligner_t, plen: c_int, tlen: c_int) -> bool {
    let f = &w.alignment_form;
    let form = f.with_span(if f.span == ALIGNMENT_ENDSFREE {
        AlignmentSpan::EndsFree
    } else {
        AlignmentSpan::EndToEnd
    });
    let unit = matches!(w.penalties.distance_metric, EDIT | INDEL);
    let checked = crate::wfa::checks::configuration(
        !w.bialigner.is_null(),
        &form,
        w.heuristic.strategy,
        unit,
    )
    .and_then(|()| crate::wfa::checks::ends_free(&form, plen.into(), tlen.into()));
    match checked {
        Ok(()) => return true,
        Err(WfaError::BiwfaEndsFree) => {
            io::eprint(b"[WFA] BiWFA and ends-free is not supported yet\n");
        }
        Err(WfaError::DropWithEditOrIndel) => io::eprint(
            b"[WFA] Heuristics drops are not compatible with 'edit'/'indel' distance metrics\n",
        ),
        Err(WfaError::EndsFreeTooLarge) => io::eprint(
            format!(
                "[WFA] Ends-free parameters must be not larger than the sequences \
                 (P0={},Pf={},T0={},Tf={}). Must be (P0<=|P|,Pf<=|P|,T0<=|T|,Tf<=|T|) \
                 where (|P|,|T|)=({plen},{tlen})\n",
                f.pattern_begin_free, f.pattern_end_free, f.text_begin_free, f.text_end_free
            )
            .as_bytes(),
        ),
        Err(e) => io::eprint(format!("[WFA] {e:?}\n").as_bytes()),
    }
    false
}

/// Runs the algorithm on `s.pattern`/`s.text` with the aligner's current
/// fields (or continues a paused run when `resume`) and writes status and
/// CIGAR back.
fn run(w: &mut wavefront_aligner_t, s: &mut State, resume: bool) -> c_int {
    let scope = scope_of(w.alignment_scope);
    let mode = mode_of(w.memory_mode);
    let mut rebuilt = false;
    if s.built != (scope, mode) {
        match build(s.penalties, scope, mode) {
            Ok(aligner) => {
                s.aligner = aligner;
                s.built = (scope, mode);
                rebuilt = true;
            }
            Err(e) => {
                crate::log_warn!("wavefront_align: {e:?}");
                return refuse(w);
            }
        }
    }
    // Concurrent callers' pairs are batched onto a GPU when one is in use
    // and their results come back sooner than this thread's.
    let _routing_timer = if resume {
        super::transparent::WfaHere::Untimed
    } else {
        match super::transparent::offload(w, s) {
            Ok(code) => return code,
            Err(timer) => timer,
        }
    };
    let f = w.alignment_form;
    let a = &mut s.aligner;
    a.set_max_alignment_score(w.system.max_alignment_score);
    a.set_match_function(match_function(w));
    a.set_max_memory(w.system.max_memory_abort, w.system.probe_interval_global);
    let result = if resume && !rebuilt {
        a.resume()
    } else {
        a.set_alignment_free_ends(
            f.pattern_begin_free,
            f.pattern_end_free,
            f.text_begin_free,
            f.text_end_free,
        );
        if f.span != ALIGNMENT_ENDSFREE {
            a.set_alignment_end_to_end();
        }
        *a.heuristic_mut() = heuristic_of(&w.heuristic);
        a.align(&s.pattern, &s.text)
    };
    let status = match result {
        Ok(status) => status,
        Err(WfaError::WavefrontsExhausted) => {
            io::eprint(b"[WFA::Compute] Maximum allocated wavefronts reached\n");
            return refuse(w);
        }
        Err(e) => {
            crate::log_warn!("wavefront_align: {e:?}");
            return refuse(w);
        }
    };
    w.heuristic = heuristic_to_c(a.heuristic_mut());
    let rc = a.cigar();
    write_cigar(
        w,
        rc.max_operations,
        rc.begin_offset,
        rc.operations(),
        rc.score,
    );
    // SAFETY: the aligner's cigar is valid and ours.
    let c = unsafe { &mut *w.cigar };
    if !w.bialigner.is_null()
        && scope == AlignmentScope::ComputeAlignment
        && status == AlignStatus::Successful
        && (s.pattern.is_empty() || s.text.is_empty())
    {
        // 2.3.3's BiWFA fills in the CIGAR of a pair with an empty side but
        // leaves the score as cleared.
        c.score = i32::MIN;
    }
    w.align_status.status = status.code();
    w.align_status.num_null_steps = 0;
    w.align_status.memory_used =
        (c.max_operations.max(0) as usize + s.pattern.len() + s.text.len()) as u64;
    if status == AlignStatus::MaxScoreReached {
        w.align_status.score = w.system.max_alignment_score;
    }
    status.code()
}

/// Aligns `pattern` against `text` with the aligner's settings; returns and
/// stores the status and fills `wf_aligner->cigar`. Configurations 2.3.3
/// rejects with `exit(1)` print its message and return -1. A custom match
/// function (`wavefront_aligner_set_match_funct`) replaces the byte
/// comparison, as upstream.
///
/// # Safety
/// `wf_aligner` must be an aligner from [`wavefront_aligner_new`]; the
/// sequences must be readable for their lengths.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_align(
    wf_aligner: *mut wavefront_aligner_t,
    pattern: *const c_char,
    pattern_length: c_int,
    text: *const c_char,
    text_length: c_int,
) -> c_int {
    if wf_aligner.is_null() {
        return WF_STATUS_UNFEASIBLE;
    }
    ffi_guard!(WF_STATUS_UNFEASIBLE, {
        // SAFETY: non-null, and an aligner from `wavefront_aligner_new` per
        // the contract.
        let (w, s) = unsafe { (&mut *wf_aligner, state(wf_aligner)) };
        // Start from "refused": should anything below fail, even by a caught
        // panic, the client never reads the previous pair's result as this
        // one's.
        refuse(w);
        // Negative lengths, or lengths whose CIGAR capacity (2·(p+t)
        // operations, an int in cigar_t) would overflow, cannot be aligned.
        let total = i64::from(pattern_length) + i64::from(text_length);
        if pattern_length < 0 || text_length < 0 || 2 * total > i64::from(i32::MAX) {
            io::eprint(
                format!(
                    "[WFA] Invalid sequence lengths (pattern={pattern_length},text={text_length})\n"
                )
                .as_bytes(),
            );
            return refuse(w);
        }
        if !checks(w, pattern_length, text_length) {
            return refuse(w);
        }
        let (plen, tlen) = (pattern_length as usize, text_length as usize);
        if w.match_funct.is_some() {
            // 2.3.3 never reads the sequences then (they may be NULL): the
            // client's function compares positions. Only the lengths matter.
            s.pattern.clear();
            s.pattern.resize(plen, 0);
            s.text.clear();
            s.text.resize(tlen, 0);
            w.pattern = std::ptr::null_mut();
            w.pattern_length = plen as c_int;
            w.text = std::ptr::null_mut();
            w.text_length = tlen as c_int;
            return run(w, s, false);
        }
        // SAFETY: readable for their lengths per the contract.
        let (Some(p), Some(t)) = (unsafe {
            (
                crate::ffi::guard::bytes(pattern.cast(), plen),
                crate::ffi::guard::bytes(text.cast(), tlen),
            )
        }) else {
            return refuse(w);
        };
        s.pattern.clear();
        s.pattern.extend_from_slice(p);
        s.text.clear();
        s.text.extend_from_slice(t);
        w.pattern = s.pattern.as_mut_ptr().cast();
        w.pattern_length = plen as c_int;
        w.text = s.text.as_mut_ptr().cast();
        w.text_length = tlen as c_int;
        run(w, s, false)
    })
}

/// Continues an alignment stopped by the maximum score (after raising it).
/// Any other state prints 2.3.3's message and returns -1 (2.3.3 exits).
///
/// # Safety
/// `wf_aligner` must be an aligner from [`wavefront_aligner_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wavefront_align_resume(wf_aligner: *mut wavefront_aligner_t) -> c_int {
    if wf_aligner.is_null() {
        return WF_STATUS_UNFEASIBLE;
    }
    ffi_guard!(WF_STATUS_UNFEASIBLE, {
        // SAFETY: valid aligner per the contract.
        let (w, s) = unsafe { (&mut *wf_aligner, state(wf_aligner)) };
        if w.align_status.status != WF_STATUS_MAX_SCORE_REACHED || !w.bialigner.is_null() {
            io::eprint(b"[WFA] Alignment cannot be resumed\n");
            return WF_STATUS_UNFEASIBLE;
        }
        run(w, s, true)
    })
}
