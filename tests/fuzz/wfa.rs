//! WFA2-lib ABI (`wavefront_*`, `cigar_*`) and the WFA batch API, against
//! Debian's `libwfa2.so.0` 2.3.3 loaded into the same process.
#![allow(clippy::missing_safety_doc)]

use crate::Ctx;
use crate::bytes::Input;
use seqshim::ffi::status::*;
use seqshim::ffi::wfa_batch::*;
use seqshim::ffi::wfa2::aligner as ours;
use seqshim::ffi::wfa2::cigar as oc;
use seqshim::ffi::wfa2::types::*;
use std::ffi::{c_char, c_int, c_void};
use std::sync::OnceLock;

const UPSTREAM_LIB: &str = "/usr/lib/x86_64-linux-gnu/libwfa2.so.0";

/// The oracle's path: `SEQSHIM_FUZZ_WFA2_LIB` where Debian's library is not
/// installed (a machine that runs a copied test binary).
fn upstream_lib() -> String {
    std::env::var("SEQSHIM_FUZZ_WFA2_LIB").unwrap_or_else(|_| UPSTREAM_LIB.to_string())
}

type NewFn = unsafe extern "C" fn(*mut wavefront_aligner_attr_t) -> *mut wavefront_aligner_t;
type DelFn = unsafe extern "C" fn(*mut wavefront_aligner_t);
type AlignFn = unsafe extern "C" fn(
    *mut wavefront_aligner_t,
    *const c_char,
    c_int,
    *const c_char,
    c_int,
) -> c_int;
type Set0 = unsafe extern "C" fn(*mut wavefront_aligner_t);
type Set1 = unsafe extern "C" fn(*mut wavefront_aligner_t, c_int);
type Set2 = unsafe extern "C" fn(*mut wavefront_aligner_t, c_int, c_int);
type Set3 = unsafe extern "C" fn(*mut wavefront_aligner_t, c_int, c_int, c_int);
type Set4 = unsafe extern "C" fn(*mut wavefront_aligner_t, c_int, c_int, c_int, c_int);
type CigarNew = unsafe extern "C" fn(c_int, *mut mm_allocator_t) -> *mut cigar_t;
type CigarFn = unsafe extern "C" fn(*mut cigar_t);
type CigarIntFn = unsafe extern "C" fn(*mut cigar_t) -> c_int;
type CigarSet1 = unsafe extern "C" fn(*mut cigar_t, c_int);
type CigarPair = unsafe extern "C" fn(*mut cigar_t, *mut cigar_t);
type CigarCmp = unsafe extern "C" fn(*mut cigar_t, *mut cigar_t) -> c_int;
type CigarScore<P> = unsafe extern "C" fn(*mut cigar_t, *mut P) -> c_int;
type CigarSprint = unsafe extern "C" fn(*mut c_char, *mut cigar_t, bool) -> c_int;
type MmNew = unsafe extern "C" fn(u64) -> *mut mm_allocator_t;
type MmDelete = unsafe extern "C" fn(*mut mm_allocator_t);
type CigarAddMm = unsafe extern "C" fn(*mut c_char, c_int, *mut c_char, c_int, *mut cigar_t);

/// Debian's WFA2-lib, opened with RTLD_DEEPBIND so that its internal calls
/// bind to its own symbols, not to seqshim's of the same names.
pub struct Upstream {
    new: NewFn,
    delete: DelFn,
    align: AlignFn,
    end_to_end: Set0,
    free_ends: Set4,
    h_none: Set0,
    h_wfadaptive: Set3,
    h_wfmash: Set3,
    h_xdrop: Set2,
    h_zdrop: Set2,
    h_band_static: Set2,
    max_score: Set1,
    cigar_new: CigarNew,
    cigar_free: CigarFn,
    cigar_clear: CigarFn,
    cigar_resize: CigarSet1,
    cigar_get_matches: CigarIntFn,
    cigar_score_edit: CigarIntFn,
    cigar_score_linear: CigarScore<linear_penalties_t>,
    cigar_score_affine: CigarScore<affine_penalties_t>,
    cigar_score_affine2p: CigarScore<affine2p_penalties_t>,
    cigar_cmp: CigarCmp,
    cigar_copy: CigarPair,
    cigar_append: CigarPair,
    cigar_append_deletion: CigarSet1,
    cigar_append_insertion: CigarSet1,
    cigar_sprint: CigarSprint,
    cigar_add_mismatches: CigarAddMm,
    mm_new: MmNew,
    mm_delete: MmDelete,
}

pub fn upstream() -> &'static Upstream {
    static LIB: OnceLock<Upstream> = OnceLock::new();
    LIB.get_or_init(|| {
        let lib = upstream_lib();
        let path = std::ffi::CString::new(lib.as_str()).unwrap();
        // SAFETY: dlopen of a system library by absolute path; flags are
        // plain constants.
        let h = unsafe {
            libc::dlopen(
                path.as_ptr(),
                libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
            )
        };
        assert!(
            !h.is_null(),
            "the WFA2-lib oracle {lib} is missing: run scripts/install-deps.sh (libwfa2-dev)"
        );
        let sym = |name: &str| -> *mut c_void {
            let c = std::ffi::CString::new(name).unwrap();
            // SAFETY: `h` is a live handle from dlopen.
            let p = unsafe { libc::dlsym(h, c.as_ptr()) };
            assert!(!p.is_null(), "{lib} lacks {name}");
            p
        };
        macro_rules! f {
            ($ty:ty, $name:expr) => {
                // SAFETY: the symbol has this C signature in WFA2-lib 2.3.3
                // (wavefront/wfa.h, alignment/cigar.h).
                unsafe { std::mem::transmute::<*mut c_void, $ty>(sym($name)) }
            };
        }
        Upstream {
            new: f!(NewFn, "wavefront_aligner_new"),
            delete: f!(DelFn, "wavefront_aligner_delete"),
            align: f!(AlignFn, "wavefront_align"),
            end_to_end: f!(Set0, "wavefront_aligner_set_alignment_end_to_end"),
            free_ends: f!(Set4, "wavefront_aligner_set_alignment_free_ends"),
            h_none: f!(Set0, "wavefront_aligner_set_heuristic_none"),
            h_wfadaptive: f!(Set3, "wavefront_aligner_set_heuristic_wfadaptive"),
            h_wfmash: f!(Set3, "wavefront_aligner_set_heuristic_wfmash"),
            h_xdrop: f!(Set2, "wavefront_aligner_set_heuristic_xdrop"),
            h_zdrop: f!(Set2, "wavefront_aligner_set_heuristic_zdrop"),
            h_band_static: f!(Set2, "wavefront_aligner_set_heuristic_banded_static"),
            max_score: f!(Set1, "wavefront_aligner_set_max_alignment_score"),
            cigar_new: f!(CigarNew, "cigar_new"),
            cigar_free: f!(CigarFn, "cigar_free"),
            cigar_clear: f!(CigarFn, "cigar_clear"),
            cigar_resize: f!(CigarSet1, "cigar_resize"),
            cigar_get_matches: f!(CigarIntFn, "cigar_get_matches"),
            cigar_score_edit: f!(CigarIntFn, "cigar_score_edit"),
            cigar_score_linear: f!(CigarScore<linear_penalties_t>, "cigar_score_gap_linear"),
            cigar_score_affine: f!(CigarScore<affine_penalties_t>, "cigar_score_gap_affine"),
            cigar_score_affine2p: f!(CigarScore<affine2p_penalties_t>, "cigar_score_gap_affine2p"),
            cigar_cmp: f!(CigarCmp, "cigar_cmp"),
            cigar_copy: f!(CigarPair, "cigar_copy"),
            cigar_append: f!(CigarPair, "cigar_append"),
            cigar_append_deletion: f!(CigarSet1, "cigar_append_deletion"),
            cigar_append_insertion: f!(CigarSet1, "cigar_append_insertion"),
            cigar_sprint: f!(CigarSprint, "cigar_sprint"),
            cigar_add_mismatches: f!(CigarAddMm, "cigar_add_mismatches"),
            mm_new: f!(MmNew, "mm_allocator_new"),
            mm_delete: f!(MmDelete, "mm_allocator_delete"),
        }
    })
}

/// A configuration both libraries accept and handle alike (2.3.3 exits,
/// crashes or corrupts its heap outside it; see ffi-tests/wfa2/parity.c).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    pub metric: c_int,
    pub scope: c_int,
    pub memory: c_int,
    pub match_: c_int,
    pub mismatch: c_int,
    pub open1: c_int,
    pub ext1: c_int,
    pub open2: c_int,
    pub ext2: c_int,
    pub heuristic: Heur,
    pub free: Option<[c_int; 4]>,
    pub max_score: Option<c_int>,
}

#[derive(Clone, Copy, Debug)]
pub enum Heur {
    None,
    WfAdaptive(c_int, c_int, c_int),
    WfMash(c_int, c_int, c_int),
    XDrop(c_int, c_int),
    ZDrop(c_int, c_int),
    BandStatic(c_int, c_int),
}

impl Config {
    pub fn decode(u: &mut Input, lens: &[(usize, usize)]) -> Config {
        let plen = lens.iter().map(|l| l.0).min().unwrap_or(0);
        let tlen = lens.iter().map(|l| l.1).min().unwrap_or(0);
        let metric = u.range(0, 4) as c_int;
        let memory = u.range(0, 3) as c_int;
        let endsfree = memory != MEMORY_ULTRALOW && u.chance(64);
        let match_ = if !endsfree && metric >= GAP_LINEAR && u.chance(64) {
            -(u.range(1, 3) as c_int)
        } else {
            0
        };
        let mut heuristic = match u.u8() % 6 {
            0 | 1 => Heur::None,
            2 => Heur::WfAdaptive(
                u.range(1, 20) as c_int,
                u.range(1, 100) as c_int,
                u.range(1, 5) as c_int,
            ),
            3 => Heur::WfMash(
                u.range(1, 20) as c_int,
                u.range(1, 100) as c_int,
                u.range(1, 5) as c_int,
            ),
            4 if metric > EDIT => {
                if u.bool() {
                    Heur::XDrop(u.range(1, 200) as c_int, u.range(1, 5) as c_int)
                } else {
                    Heur::ZDrop(u.range(1, 200) as c_int, u.range(1, 5) as c_int)
                }
            }
            _ => {
                // 2.3.3 never returns when the band misses a pair's final
                // diagonal: cover every pair's.
                let k_ends = lens.iter().map(|&(p, t)| t as i64 - p as i64);
                let lo = (-(u.range(1, 60))).min(k_ends.clone().min().unwrap_or(0) - 10);
                let hi = u.range(1, 60).max(k_ends.max().unwrap_or(0) + 10);
                Heur::BandStatic(lo as c_int, hi as c_int)
            }
        };
        // 2.3.3's BiWFA crashes with wf-mash, the drops and the bands on
        // pairs of unlike lengths.
        if memory == MEMORY_ULTRALOW && !matches!(heuristic, Heur::None | Heur::WfAdaptive(..)) {
            heuristic = Heur::None;
        }
        let free = endsfree.then(|| {
            [
                u.range(0, plen as i64) as c_int,
                u.range(0, plen as i64) as c_int,
                u.range(0, tlen as i64) as c_int,
                u.range(0, tlen as i64) as c_int,
            ]
        });
        // 2.3.3 exits unless the second gap piece is the long-gap one:
        // E2 < E1 and O1 + E1 < O2 + E2.
        let mismatch = u.range(1, 10) as c_int;
        // 2.3.3 refuses a zero gap opening for gap-affine-2p.
        let open1 = u.range((metric == GAP_AFFINE_2P) as i64, 12) as c_int;
        let ext1 = u.range(2, 6) as c_int;
        let ext2 = u.range(1, ext1 as i64 - 1) as c_int;
        let open2 = open1 + ext1 - ext2 + u.range(1, 20) as c_int;
        Config {
            metric,
            scope: u.range(0, 1) as c_int,
            memory,
            match_,
            mismatch,
            open1,
            ext1,
            open2,
            ext2,
            heuristic,
            free,
            max_score: u.chance(24).then(|| u.range(1, 200) as c_int),
        }
    }

    pub fn attr(&self) -> wavefront_aligner_attr_t {
        let mut a = ATTR_DEFAULT;
        a.distance_metric = self.metric;
        a.alignment_scope = self.scope;
        a.memory_mode = self.memory;
        a.linear_penalties = linear_penalties_t {
            match_: self.match_,
            mismatch: self.mismatch,
            indel: self.ext1,
        };
        a.affine_penalties = affine_penalties_t {
            match_: self.match_,
            mismatch: self.mismatch,
            gap_opening: self.open1,
            gap_extension: self.ext1,
        };
        a.affine2p_penalties = affine2p_penalties_t {
            match_: self.match_,
            mismatch: self.mismatch,
            gap_opening1: self.open1,
            gap_extension1: self.ext1,
            gap_opening2: self.open2,
            gap_extension2: self.ext2,
        };
        a.heuristic.strategy = 0;
        a
    }
}

/// Status, score and CIGAR of one alignment.
pub type Outcome = (c_int, c_int, Vec<u8>);

fn outcome(wf: *mut wavefront_aligner_t, status: c_int, scope: c_int) -> Outcome {
    // SAFETY: `wf` is a live aligner of either library; both keep a valid
    // `cigar` whose operations span [begin_offset, end_offset).
    unsafe {
        let c = &*(*wf).cigar;
        let ops = if status == 0 && scope == COMPUTE_ALIGNMENT && c.end_offset > c.begin_offset {
            std::slice::from_raw_parts(
                c.operations.add(c.begin_offset as usize) as *const u8,
                (c.end_offset - c.begin_offset) as usize,
            )
            .to_vec()
        } else {
            Vec::new()
        };
        (status, c.score, ops)
    }
}

/// Aligns `pairs` with one aligner configured by `cfg` and the setters,
/// through seqshim (`upstream == false`) or Debian's library.
pub fn run_config(cfg: &Config, pairs: &[(Vec<u8>, Vec<u8>)], use_upstream: bool) -> Vec<Outcome> {
    let up = upstream();
    let mut attr = cfg.attr();
    macro_rules! call {
        ($ours:path, $theirs:expr $(, $a:expr)*) => {
            if use_upstream { $theirs($($a),*) } else { $ours($($a),*) }
        };
    }
    // SAFETY: both libraries get a valid attribute block and a live
    // aligner; sequences are valid for their lengths.
    unsafe {
        let wf = call!(ours::wavefront_aligner_new, up.new, &mut attr);
        assert!(
            !wf.is_null(),
            "aligner_new refused a valid configuration {cfg:?}"
        );
        match cfg.heuristic {
            Heur::None => call!(ours::wavefront_aligner_set_heuristic_none, up.h_none, wf),
            Heur::WfAdaptive(a, b, c) => {
                call!(
                    ours::wavefront_aligner_set_heuristic_wfadaptive,
                    up.h_wfadaptive,
                    wf,
                    a,
                    b,
                    c
                )
            }
            Heur::WfMash(a, b, c) => {
                call!(
                    ours::wavefront_aligner_set_heuristic_wfmash,
                    up.h_wfmash,
                    wf,
                    a,
                    b,
                    c
                )
            }
            Heur::XDrop(a, b) => call!(
                ours::wavefront_aligner_set_heuristic_xdrop,
                up.h_xdrop,
                wf,
                a,
                b
            ),
            Heur::ZDrop(a, b) => call!(
                ours::wavefront_aligner_set_heuristic_zdrop,
                up.h_zdrop,
                wf,
                a,
                b
            ),
            Heur::BandStatic(a, b) => call!(
                ours::wavefront_aligner_set_heuristic_banded_static,
                up.h_band_static,
                wf,
                a,
                b
            ),
        }
        if let Some(m) = cfg.max_score {
            call!(
                ours::wavefront_aligner_set_max_alignment_score,
                up.max_score,
                wf,
                m
            );
        }
        let mut out = Vec::new();
        for (p, t) in pairs {
            match cfg.free {
                Some([a, b, c, d]) => {
                    let (a, b) = (a.min(p.len() as c_int), b.min(p.len() as c_int));
                    let (c, d) = (c.min(t.len() as c_int), d.min(t.len() as c_int));
                    call!(
                        ours::wavefront_aligner_set_alignment_free_ends,
                        up.free_ends,
                        wf,
                        a,
                        b,
                        c,
                        d
                    )
                }
                None => call!(
                    ours::wavefront_aligner_set_alignment_end_to_end,
                    up.end_to_end,
                    wf
                ),
            }
            let st = call!(
                ours::wavefront_align,
                up.align,
                wf,
                p.as_ptr() as *const c_char,
                p.len() as c_int,
                t.as_ptr() as *const c_char,
                t.len() as c_int
            );
            out.push(outcome(wf, st, cfg.scope));
        }
        call!(ours::wavefront_aligner_delete, up.delete, wf);
        out
    }
}

/// A pair for comparisons: A/C/G/T (and N), bounded so an exact
/// high-memory run stays small.
pub fn pair(u: &mut Input) -> (Vec<u8>, Vec<u8>) {
    let len = match u.u8() % 16 {
        0 => 0,
        1..=11 => u.usize_in(1, 200),
        12..=14 => u.usize_in(200, 1000),
        _ => u.usize_in(1000, 3000),
    };
    let p = u.dna(len, false, true);
    let rate = match u.u8() % 4 {
        0 => 0,
        1 => 20,
        2 => 80,
        _ => (200_000 / (len.max(1) as u32)).min(300),
    };
    let mut t = u.mutate_dna(&p, rate);
    if u.chance(16) {
        // Unlike lengths: a random prefix or suffix.
        let extra = u.usize_in(0, 50);
        let add = u.dna(extra, false, true);
        if u.bool() {
            t.extend_from_slice(&add);
        } else {
            t.splice(0..0, add);
        }
    }
    // Either side may be the longer one.
    if u.chance(16) {
        return (t, p);
    }
    (p, t)
}

fn describe(o: &Outcome) -> String {
    format!(
        "status={} score={} cigar={}",
        o.0,
        o.1,
        String::from_utf8_lossy(&o.2)
    )
}

/// Upstream's outcome of the last of `pairs`, aligned one after another by
/// one aligner in a forked child; `None` when upstream ended the child
/// with `exit(1)` (its answer to exhausted wavefronts).
fn upstream_in_child(
    cfg: &Config,
    pairs: &[(Vec<u8>, Vec<u8>)],
) -> Result<Option<Outcome>, String> {
    upstream(); // loaded before the fork, so the child does not dlopen
    let mut fds = [0 as c_int; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() writes.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err("pipe() failed".into());
    }
    // SAFETY: the child only aligns with upstream's library, writes to the
    // pipe and leaves with _exit (or upstream's own exit).
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err("fork() failed".into());
    }
    if pid == 0 {
        // Nothing may unwind out of the child: it would go on fuzzing as a
        // second copy of this process.
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let last = run_config(cfg, pairs, true)
                .pop()
                .expect("one outcome a pair");
            let mut bytes = Vec::new();
            bytes.extend_from_slice(&last.0.to_le_bytes());
            bytes.extend_from_slice(&last.1.to_le_bytes());
            bytes.extend_from_slice(&last.2);
            let mut at = 0;
            while at < bytes.len() {
                // SAFETY: writes initialised bytes from a live buffer to our pipe.
                let n =
                    unsafe { libc::write(fds[1], bytes[at..].as_ptr().cast(), bytes.len() - at) };
                if n <= 0 {
                    break;
                }
                at += n as usize;
            }
        }));
        // SAFETY: ends the child at once, without the parent's exit handlers.
        unsafe { libc::_exit(if answered.is_ok() { 0 } else { 2 }) };
    }
    // SAFETY: closes the parent's copy of the write end, which it owns.
    unsafe { libc::close(fds[1]) };
    let mut bytes = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        // SAFETY: reads into a live buffer of the given length.
        let n = unsafe { libc::read(fds[0], buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            break;
        }
        bytes.extend_from_slice(&buf[..n as usize]);
    }
    let mut status = 0;
    // SAFETY: closes the read end we own and reaps our own child.
    unsafe {
        libc::close(fds[0]);
        libc::waitpid(pid, &mut status, 0);
    }
    let exited = libc::WIFEXITED(status);
    match (exited, libc::WEXITSTATUS(status)) {
        (true, 0) if bytes.len() >= 8 => Ok(Some((
            c_int::from_le_bytes(bytes[0..4].try_into().unwrap()),
            c_int::from_le_bytes(bytes[4..8].try_into().unwrap()),
            bytes[8..].to_vec(),
        ))),
        (true, 1) if bytes.is_empty() => Ok(None),
        _ => Err(format!(
            "libwfa2 2.3.3 in a child process ended with wait status {status} under {cfg:?}"
        )),
    }
}

pub fn wfa2(u: &mut Input, ctx: &Ctx) -> Result<(), String> {
    if u.u8() % 4 == 0 {
        hostile_aligner(u, ctx);
        return Ok(());
    }
    let npairs = u.usize_in(1, 3);
    let pairs: Vec<_> = (0..npairs).map(|_| pair(u)).collect();
    let lens: Vec<_> = pairs.iter().map(|p| (p.0.len(), p.1.len())).collect();
    let cfg = Config::decode(u, &lens);
    let debug = std::env::var_os("SEQSHIM_FUZZ_DEBUG").is_some();
    if debug {
        // Before the calls: a reference that ends the process leaves this.
        eprintln!("wfa2: {cfg:?} {lens:?}");
    }
    let t0 = std::time::Instant::now();
    let ours = run_config(&cfg, &pairs, false);
    if debug {
        eprintln!(
            "wfa2: seqshim {:?}",
            ours.iter().map(describe).collect::<Vec<_>>()
        );
    }
    // A pair seqshim answers with -1 may be one whose high-memory
    // wavefronts ran out, where 2.3.3 prints "Maximum allocated wavefronts
    // reached" and ends the process (`exit(1)`). Each such pair is put to
    // upstream in a child process, after the same pairs the reference has
    // aligned so far: if upstream answers, its answer must be seqshim's; if
    // it ends the process, the pair is left out and the reference goes on
    // with the next pairs.
    let mut compared = Vec::new();
    for (i, o) in ours.iter().enumerate() {
        if o.0 == -1 {
            let history: Vec<_> = compared
                .iter()
                .chain([&i])
                .map(|&j: &usize| pairs[j].clone())
                .collect();
            match upstream_in_child(&cfg, &history)? {
                None => continue,
                Some(theirs) if theirs != *o => {
                    return Err(format!(
                        "wavefront_align gave -1 where libwfa2 2.3.3 answers, on pair {i} ({} x {} bp) under {cfg:?}\n  upstream: {}\n  seqshim:  {}",
                        pairs[i].0.len(),
                        pairs[i].1.len(),
                        describe(&theirs),
                        describe(o)
                    ));
                }
                Some(_) => {}
            }
        }
        compared.push(i);
    }
    let t1 = std::time::Instant::now();
    let kept: Vec<_> = compared.iter().map(|&i| pairs[i].clone()).collect();
    let theirs = run_config(&cfg, &kept, true);
    if debug {
        eprintln!("wfa2: seqshim {:?}, libwfa2 {:?}", t1 - t0, t1.elapsed());
    }
    for (&i, b) in compared.iter().zip(&theirs) {
        let a = &ours[i];
        if a != b {
            return Err(format!(
                "wavefront_align differs from libwfa2 2.3.3 on pair {i} ({} x {} bp) under {cfg:?}\n  upstream: {}\n  seqshim:  {}",
                pairs[i].0.len(),
                pairs[i].1.len(),
                describe(b),
                describe(a)
            ));
        }
    }
    Ok(())
}

/// A penalty or parameter from anywhere in `int` (penalties beyond
/// 4,096 in magnitude are refused).
fn hostile_int(u: &mut Input, _ctx: &Ctx) -> c_int {
    u.int_edgy(-50, 50)
}

/// Pairs aligned under penalties above 50 are kept short: the score, and
/// with it time and memory, grows with the penalties (one score at a time,
/// as in 2.3.3; a 200-base pair at the largest accepted penalty takes a
/// fraction of a second, a random 1.5 kbp pair with a full CIGAR gigabytes).
fn bounded_len(len: usize, largest_penalty: u32) -> usize {
    if largest_penalty > 50 {
        len.min(200)
    } else {
        len
    }
}

/// A client match function: as WFA2-lib requires, false past either
/// sequence's end (`args` points to the two lengths), which is what stops
/// an extension.
/// The memory limit hostile aligners get unless `SEQSHIM_FUZZ_KNOWN=1`.
const MEMORY_CAP: u64 = 1 << 30;

unsafe extern "C" fn match_every_other(v: c_int, h: c_int, args: *mut c_void) -> c_int {
    // SAFETY: `args` is the `[c_int; 2]` installed with this function.
    let lens = unsafe { *(args as *const [c_int; 2]) };
    (v >= 0 && h >= 0 && v < lens[0] && h < lens[1] && (v ^ h) & 1 == 0) as c_int
}

/// Attributes and setter arguments from anywhere (out-of-range enums,
/// negative and extreme penalties and limits); seqshim alone, which must
/// refuse or align without crashing, hanging or printing panic text.
fn hostile_aligner(u: &mut Input, ctx: &Ctx) {
    let mut a = ATTR_DEFAULT;
    a.distance_metric = if u.chance(200) {
        u.range(0, 4) as c_int
    } else {
        u.int_edgy(-2, 7)
    };
    a.alignment_scope = if u.chance(200) {
        u.range(0, 1) as c_int
    } else {
        u.int_edgy(-2, 3)
    };
    a.memory_mode = if u.chance(200) {
        u.range(0, 3) as c_int
    } else {
        u.int_edgy(-2, 6)
    };
    a.alignment_form.span = u.int_edgy(-1, 2);
    for v in [
        &mut a.linear_penalties.match_,
        &mut a.linear_penalties.mismatch,
        &mut a.linear_penalties.indel,
        &mut a.affine_penalties.match_,
        &mut a.affine_penalties.mismatch,
        &mut a.affine_penalties.gap_opening,
        &mut a.affine_penalties.gap_extension,
        &mut a.affine2p_penalties.match_,
        &mut a.affine2p_penalties.mismatch,
        &mut a.affine2p_penalties.gap_opening1,
        &mut a.affine2p_penalties.gap_extension1,
        &mut a.affine2p_penalties.gap_opening2,
        &mut a.affine2p_penalties.gap_extension2,
    ] {
        if u.chance(96) {
            *v = hostile_int(u, ctx);
        }
    }
    if u.chance(128) {
        a.heuristic.strategy = u.u32() & 0x1ff;
        a.heuristic.steps_between_cutoffs = hostile_int(u, ctx);
        a.heuristic.min_wavefront_length = hostile_int(u, ctx);
        a.heuristic.max_distance_threshold = hostile_int(u, ctx);
        a.heuristic.xdrop = hostile_int(u, ctx);
        a.heuristic.zdrop = hostile_int(u, ctx);
        a.heuristic.min_k = hostile_int(u, ctx);
        a.heuristic.max_k = hostile_int(u, ctx);
    }
    if u.chance(48) {
        a.system.max_alignment_score = hostile_int(u, ctx);
    }
    if u.chance(32) {
        a.system.max_memory_abort = u.u64() >> u.range(0, 63);
    }
    if !ctx.known {
        // A budget, not a known failure: wavefronts that outgrow memory end
        // with WF_STATUS_OOM either way; WFA2's own limit ends them at
        // 1 GiB, which keeps a case cheap.
        a.system.max_memory_abort = a.system.max_memory_abort.min(MEMORY_CAP);
    }
    // SAFETY: a valid attribute block (any values); the aligner, when
    // returned, is live until deleted; sequences are valid for their
    // lengths (a negative length is checked by the library).
    unsafe {
        let wf = ours::wavefront_aligner_new(&mut a);
        if wf.is_null() {
            return;
        }
        let largest = [
            a.linear_penalties.match_,
            a.linear_penalties.mismatch,
            a.linear_penalties.indel,
            a.affine_penalties.match_,
            a.affine_penalties.mismatch,
            a.affine_penalties.gap_opening,
            a.affine_penalties.gap_extension,
            a.affine2p_penalties.match_,
            a.affine2p_penalties.mismatch,
            a.affine2p_penalties.gap_opening1,
            a.affine2p_penalties.gap_extension1,
            a.affine2p_penalties.gap_opening2,
            a.affine2p_penalties.gap_extension2,
        ]
        .iter()
        .map(|v| v.unsigned_abs())
        .filter(|&v| v <= 1 << 12)
        .max()
        .unwrap_or(0);
        let plen = bounded_len(u.len(300, 1500), largest);
        let p = u.dna(plen, true, false);
        let t = if u.bool() {
            u.mutate_dna(&p, 100)
        } else {
            let n = bounded_len(u.len(300, 1500), largest);
            u.dna(n, true, false)
        };
        let mut match_lens: [c_int; 2] = [p.len() as c_int, t.len() as c_int];
        let debug = std::env::var_os("SEQSHIM_FUZZ_DEBUG").is_some();
        if debug {
            eprintln!(
                "hostile attr: metric {} scope {} memory {} span {} lin {:?} aff {:?} aff2p {:?} heur {:?} max_score {} max_mem {}",
                a.distance_metric,
                a.alignment_scope,
                a.memory_mode,
                a.alignment_form.span,
                a.linear_penalties,
                a.affine_penalties,
                a.affine2p_penalties,
                a.heuristic,
                a.system.max_alignment_score,
                a.system.max_memory_abort
            );
        }
        for _ in 0..u.usize_in(0, 4) {
            let (x, y, z, w) = (
                hostile_int(u, ctx),
                hostile_int(u, ctx),
                hostile_int(u, ctx),
                hostile_int(u, ctx),
            );
            let which = u.u8() % 12;
            if debug {
                eprintln!("setter {which} ({x}, {y}, {z}, {w})");
            }
            match which {
                0 => ours::wavefront_aligner_set_heuristic_none(wf),
                1 => ours::wavefront_aligner_set_heuristic_wfadaptive(wf, x, y, z),
                2 => ours::wavefront_aligner_set_heuristic_wfmash(wf, x, y, z),
                3 => ours::wavefront_aligner_set_heuristic_xdrop(wf, x, y),
                4 => ours::wavefront_aligner_set_heuristic_zdrop(wf, x, y),
                5 => ours::wavefront_aligner_set_heuristic_banded_static(wf, x, y),
                6 => ours::wavefront_aligner_set_heuristic_banded_adaptive(wf, x, y, z),
                7 => ours::wavefront_aligner_set_alignment_free_ends(wf, x, y, z, w),
                8 => ours::wavefront_aligner_set_max_alignment_score(wf, x),
                9 => {
                    let abort = u.u64() >> u.range(0, 63);
                    let abort = if ctx.known {
                        abort
                    } else {
                        abort.min(MEMORY_CAP)
                    };
                    ours::wavefront_aligner_set_max_memory(wf, u.u64(), abort)
                }
                10 => ours::wavefront_aligner_set_match_funct(
                    wf,
                    Some(match_every_other),
                    match_lens.as_mut_ptr() as *mut c_void,
                ),
                _ => ours::wavefront_aligner_set_alignment_end_to_end(wf),
            }
        }
        let bad_len = u.chance(16);
        let (pl, tl) = if bad_len {
            (
                u.int_edgy(-5, 0).min(p.len() as c_int),
                u.int_edgy(-5, 0).min(t.len() as c_int),
            )
        } else {
            (p.len() as c_int, t.len() as c_int)
        };
        if debug {
            eprintln!(
                "aligning {pl} x {tl}: {:?} / {:?}",
                String::from_utf8_lossy(&p),
                String::from_utf8_lossy(&t)
            );
        }
        let t0 = std::time::Instant::now();
        let st = ours::wavefront_align(
            wf,
            p.as_ptr() as *const c_char,
            pl,
            t.as_ptr() as *const c_char,
            tl,
        );
        if debug {
            eprintln!("align {pl} x {tl}: status {st} in {:?}", t0.elapsed());
        }
        if st == WF_STATUS_MAX_SCORE_REACHED && u.bool() {
            ours::wavefront_align_resume(wf);
        }
        let _ = ours::wavefront_aligner_get_size(wf);
        let _ = ours::wavefront_align_strerror(u.int_edgy(-5, 2));
        let cg = (*wf).cigar;
        if !cg.is_null() && st == 0 {
            let _ = oc::cigar_score_edit(cg);
            let _ = oc::cigar_score_gap_affine(cg, &mut a.affine_penalties);
            let _ = oc::cigar_get_matches(cg);
        }
        ours::wavefront_aligner_delete(wf);
    }
}

/// Creates a CIGAR in both libraries' shape from letters written in place,
/// as clients do.
unsafe fn fill(cg: *mut cigar_t, ops: &[u8]) {
    // SAFETY: callers size the CIGAR for `ops`.
    unsafe {
        std::ptr::copy_nonoverlapping(ops.as_ptr() as *const c_char, (*cg).operations, ops.len());
        (*cg).begin_offset = 0;
        (*cg).end_offset = ops.len() as c_int;
    }
}

fn cigar_state(cg: *mut cigar_t) -> (c_int, c_int, c_int, Vec<u8>) {
    // SAFETY: a live CIGAR of either library.
    unsafe {
        let c = &*cg;
        let ops = std::slice::from_raw_parts(
            c.operations.add(c.begin_offset as usize) as *const u8,
            (c.end_offset - c.begin_offset).max(0) as usize,
        );
        (c.begin_offset, c.end_offset, c.max_operations, ops.to_vec())
    }
}

/// The CIGAR functions on CIGARs built from random letters, the same
/// sequence of calls in seqshim and in Debian's library, every result and
/// the final CIGARs compared.
pub fn cigar(u: &mut Input, _ctx: &Ctx) -> Result<(), String> {
    let up = upstream();
    let n = u.len(60, 1500);
    let ops: Vec<u8> = (0..n).map(|_| b"MMMXID"[u.usize_in(0, 5)]).collect();
    let m = u.len(30, 400);
    let ops2: Vec<u8> = (0..m).map(|_| b"MXID"[u.usize_in(0, 3)]).collect();
    let cap = n + m + 2 * 64 + u.usize_in(0, 64);
    let mut log_ours = Vec::new();
    let mut log_theirs = Vec::new();
    let steps: Vec<u8> = (0..u.usize_in(1, 12)).map(|_| u.u8()).collect();
    let args: Vec<c_int> = (0..steps.len()).map(|_| u.range(0, 64) as c_int).collect();
    let pen = (
        u.range(-3, 0) as c_int,
        u.range(1, 9) as c_int,
        u.range(0, 12) as c_int,
        u.range(1, 5) as c_int,
        u.range(0, 30) as c_int,
        u.range(1, 4) as c_int,
    );
    for use_up in [false, true] {
        let log = if use_up {
            &mut log_theirs
        } else {
            &mut log_ours
        };
        macro_rules! call {
            ($ours:path, $theirs:expr $(, $a:expr)*) => {
                if use_up { ($theirs)($($a),*) } else { $ours($($a),*) }
            };
        }
        // SAFETY: every CIGAR is created with room for what is written or
        // appended to it (cap covers ops + ops2 + two appends of <= 64).
        unsafe {
            let mm = call!(
                seqshim::ffi::wfa2::mm_allocator::mm_allocator_new,
                up.mm_new,
                1 << 16
            );
            let a = call!(oc::cigar_new, up.cigar_new, cap as c_int, mm);
            let b = call!(oc::cigar_new, up.cigar_new, cap as c_int, mm);
            fill(a, &ops);
            fill(b, &ops2);
            for (s, &arg) in steps.iter().zip(&args) {
                if std::env::var_os("SEQSHIM_FUZZ_DEBUG").is_some() {
                    eprintln!(
                        "upstream {use_up} step {} arg {arg} a {:?}",
                        s % 13,
                        cigar_state(a)
                    );
                }
                let r: i64 = match s % 13 {
                    0 => call!(oc::cigar_score_edit, up.cigar_score_edit, a) as i64,
                    1 => {
                        let mut p = linear_penalties_t {
                            match_: pen.0,
                            mismatch: pen.1,
                            indel: pen.3,
                        };
                        call!(oc::cigar_score_gap_linear, up.cigar_score_linear, a, &mut p) as i64
                    }
                    2 => {
                        let mut p = affine_penalties_t {
                            match_: pen.0,
                            mismatch: pen.1,
                            gap_opening: pen.2,
                            gap_extension: pen.3,
                        };
                        call!(oc::cigar_score_gap_affine, up.cigar_score_affine, a, &mut p) as i64
                    }
                    // 2.3.3 exits on an empty CIGAR here ("Unknown operation").
                    3 if (*a).end_offset == (*a).begin_offset => 0,
                    3 => {
                        let mut p = affine2p_penalties_t {
                            match_: pen.0,
                            mismatch: pen.1,
                            gap_opening1: pen.2,
                            gap_extension1: pen.3,
                            gap_opening2: pen.4,
                            gap_extension2: pen.5,
                        };
                        call!(
                            oc::cigar_score_gap_affine2p,
                            up.cigar_score_affine2p,
                            a,
                            &mut p
                        ) as i64
                    }
                    4 => call!(oc::cigar_get_matches, up.cigar_get_matches, a) as i64,
                    5 => call!(oc::cigar_cmp, up.cigar_cmp, a, b).signum() as i64,
                    6 => {
                        if (*a).end_offset - (*a).begin_offset + arg < cap as c_int {
                            call!(oc::cigar_append_deletion, up.cigar_append_deletion, a, arg);
                        }
                        0
                    }
                    7 => {
                        if (*a).end_offset - (*a).begin_offset + arg < cap as c_int {
                            call!(
                                oc::cigar_append_insertion,
                                up.cigar_append_insertion,
                                a,
                                arg
                            );
                        }
                        0
                    }
                    8 => {
                        if (*a).end_offset - (*a).begin_offset + (*b).end_offset - (*b).begin_offset
                            < cap as c_int
                        {
                            call!(oc::cigar_append, up.cigar_append, a, b);
                        }
                        0
                    }
                    9 => {
                        call!(oc::cigar_copy, up.cigar_copy, b, a);
                        0
                    }
                    10 => {
                        let mut buf = vec![0 as c_char; cap * 12 + 16];
                        let k = call!(
                            oc::cigar_sprint,
                            up.cigar_sprint,
                            buf.as_mut_ptr(),
                            a,
                            arg & 1 == 1
                        );
                        let text: Vec<u8> = buf
                            .iter()
                            .take_while(|&&c| c != 0)
                            .map(|&c| c as u8)
                            .collect();
                        log.push(format!("sprint {k} {}", String::from_utf8_lossy(&text)));
                        0
                    }
                    11 => {
                        call!(oc::cigar_clear, up.cigar_clear, b);
                        0
                    }
                    _ => {
                        // Growing only (the appends above rely on `cap`); 2.3.3
                        // does not keep the letters, so the CIGAR is cleared.
                        call!(oc::cigar_resize, up.cigar_resize, b, cap as c_int + arg);
                        call!(oc::cigar_clear, up.cigar_clear, b);
                        0
                    }
                };
                log.push(format!(
                    "step {} -> {r}; a {:?}; b {:?}",
                    s % 13,
                    cigar_state(a),
                    cigar_state(b)
                ));
            }
            // cigar_add_mismatches on M/I/D letters that fit the sequences.
            let md: Vec<u8> = ops
                .iter()
                .map(|&c| if c == b'X' { b'M' } else { c })
                .collect();
            let mut pat: Vec<u8> = Vec::new();
            let mut txt: Vec<u8> = Vec::new();
            for (i, &c) in md.iter().enumerate() {
                let x = b"ACGT"[(i * 7 + args.len()) % 4];
                let y = b"ACGT"[(i * 5 + (i >> 2)) % 4];
                match c {
                    b'M' => {
                        pat.push(x);
                        txt.push(y);
                    }
                    b'I' => txt.push(y),
                    _ => pat.push(x),
                }
            }
            fill(a, &md);
            call!(
                oc::cigar_add_mismatches,
                up.cigar_add_mismatches,
                pat.as_mut_ptr() as *mut c_char,
                pat.len() as c_int,
                txt.as_mut_ptr() as *mut c_char,
                txt.len() as c_int,
                a
            );
            log.push(format!("add_mismatches {:?}", cigar_state(a)));
            call!(oc::cigar_free, up.cigar_free, a);
            call!(oc::cigar_free, up.cigar_free, b);
            call!(
                seqshim::ffi::wfa2::mm_allocator::mm_allocator_delete,
                up.mm_delete,
                mm
            );
        }
    }
    if log_ours != log_theirs {
        let i = log_ours
            .iter()
            .zip(&log_theirs)
            .position(|(x, y)| x != y)
            .unwrap_or(0);
        return Err(format!(
            "CIGAR functions differ from libwfa2 2.3.3 at step {i}\n  upstream: {}\n  seqshim:  {}",
            log_theirs.get(i).map(String::as_str).unwrap_or("-"),
            log_ours.get(i).map(String::as_str).unwrap_or("-")
        ));
    }
    Ok(())
}

/// Batch options from a configuration both sides accept.
pub fn options_of(cfg: &Config) -> seqshim_wfa_options_t {
    let mut o = default_options();
    o.metric = cfg.metric;
    o.match_score = cfg.match_;
    o.mismatch = cfg.mismatch;
    o.indel = cfg.ext1;
    o.gap_opening = cfg.open1;
    o.gap_extension = cfg.ext1;
    o.gap_opening2 = cfg.open2;
    o.gap_extension2 = cfg.ext2;
    o.scope = cfg.scope;
    o.memory_mode = cfg.memory;
    o.max_alignment_score = cfg.max_score.unwrap_or(i32::MAX);
    o.device = SEQSHIM_WFA_DEVICE_CPU;
    match cfg.heuristic {
        Heur::None => o.heuristic = SEQSHIM_WFA_HEURISTIC_NONE,
        Heur::WfAdaptive(a, b, c) | Heur::WfMash(a, b, c) => {
            o.heuristic = if matches!(cfg.heuristic, Heur::WfAdaptive(..)) {
                SEQSHIM_WFA_HEURISTIC_WFADAPTIVE
            } else {
                SEQSHIM_WFA_HEURISTIC_WFMASH
            };
            o.min_wavefront_length = a;
            o.max_distance_threshold = b;
            o.steps_between_cutoffs = c;
        }
        Heur::XDrop(d, s) | Heur::ZDrop(d, s) => {
            o.heuristic = if matches!(cfg.heuristic, Heur::XDrop(..)) {
                SEQSHIM_WFA_HEURISTIC_XDROP
            } else {
                SEQSHIM_WFA_HEURISTIC_ZDROP
            };
            o.drop = d;
            o.steps_between_cutoffs = s;
        }
        Heur::BandStatic(lo, hi) => {
            o.heuristic = SEQSHIM_WFA_HEURISTIC_BANDED_STATIC;
            o.band_min_k = lo;
            o.band_max_k = hi;
        }
    }
    o
}

pub fn default_options() -> seqshim_wfa_options_t {
    let mut o = std::mem::MaybeUninit::<seqshim_wfa_options_t>::zeroed();
    // SAFETY: a writable options struct.
    let st = unsafe { seqshim_wfa_options_default(o.as_mut_ptr()) };
    assert_eq!(st as i32, 0);
    // SAFETY: filled by the call above.
    unsafe { o.assume_init() }
}

/// A batch's view of one pair: its WFA2 status, score, CIGAR.
pub fn batch_outcome(
    b: *const seqshim_wfa_batch_t,
    i: usize,
    scope: c_int,
) -> Result<Outcome, i32> {
    let (mut st, mut score) = (0, 0);
    // SAFETY: a live batch; outputs are writable locals.
    unsafe {
        let r = seqshim_wfa_batch_result(b, i, &mut st, &mut score) as i32;
        if r != 0 && r != SEQSHIM_E_REFUSED as i32 {
            return Err(r);
        }
        let mut ops = Vec::new();
        if r == 0 && scope == COMPUTE_ALIGNMENT {
            let (mut p, mut n) = (std::ptr::null::<c_char>(), 0usize);
            let c = seqshim_wfa_batch_cigar(b, i, &mut p, &mut n) as i32;
            if c != 0 {
                return Err(c);
            }
            if n > 0 {
                ops = std::slice::from_raw_parts(p as *const u8, n).to_vec();
            }
        }
        Ok((st, score, ops))
    }
}

/// The WFA batch API: valid configurations compared pair by pair with
/// Debian's library, plus hostile options, pairs and lifecycle calls.
pub fn batch(u: &mut Input, ctx: &Ctx) -> Result<(), String> {
    let hostile = u.chance(64);
    let npairs = u.usize_in(0, 12);
    let pairs: Vec<_> = (0..npairs).map(|_| pair(u)).collect();
    let lens: Vec<_> = pairs.iter().map(|p| (p.0.len(), p.1.len())).collect();
    let mut cfg = Config::decode(u, &lens);
    if cfg.memory == MEMORY_ULTRALOW {
        cfg.memory = MEMORY_HIGH;
    }
    // Ends-free needs one set of lengths per batch: fit it to every pair.
    if let Some(f) = &mut cfg.free {
        let minp = pairs.iter().map(|p| p.0.len()).min().unwrap_or(0) as c_int;
        let mint = pairs.iter().map(|p| p.1.len()).min().unwrap_or(0) as c_int;
        *f = [
            f[0].min(minp),
            f[1].min(minp),
            f[2].min(mint),
            f[3].min(mint),
        ];
    }
    let mut o = options_of(&cfg);
    if let Some(f) = cfg.free {
        o.span = SEQSHIM_WFA_SPAN_ENDS_FREE;
        [
            o.pattern_begin_free,
            o.pattern_end_free,
            o.text_begin_free,
            o.text_end_free,
        ] = f;
    }
    if hostile {
        let fields: [&mut i32; 23] = [
            &mut o.metric,
            &mut o.match_score,
            &mut o.mismatch,
            &mut o.indel,
            &mut o.gap_opening,
            &mut o.gap_extension,
            &mut o.gap_opening2,
            &mut o.gap_extension2,
            &mut o.span,
            &mut o.pattern_begin_free,
            &mut o.pattern_end_free,
            &mut o.text_begin_free,
            &mut o.text_end_free,
            &mut o.scope,
            &mut o.heuristic,
            &mut o.min_wavefront_length,
            &mut o.max_distance_threshold,
            &mut o.steps_between_cutoffs,
            &mut o.drop,
            &mut o.band_min_k,
            &mut o.band_max_k,
            &mut o.memory_mode,
            &mut o.device,
        ];
        for f in fields {
            if u.chance(40) {
                *f = hostile_int(u, ctx);
            }
        }
    }
    if std::env::var_os("SEQSHIM_FUZZ_DEBUG").is_some() {
        let lens: Vec<_> = pairs.iter().map(|p| (p.0.len(), p.1.len())).collect();
        eprintln!("wfa_batch: hostile {hostile} {o:?} pairs {lens:?}");
    }
    let mut b: *mut seqshim_wfa_batch_t = std::ptr::null_mut();
    // SAFETY: valid options and out pointer.
    let st = unsafe { seqshim_wfa_batch_create(&o, u.usize_in(0, 64), &mut b) } as i32;
    if st != 0 {
        if !hostile {
            return Err(format!(
                "batch_create refused valid options ({st}): {cfg:?}"
            ));
        }
        return Ok(());
    }
    let mut added = Vec::new();
    // SAFETY: `b` is live until destroyed below; every pointer passed is
    // valid for its length or null with a zero or negative length, which
    // the API checks; borrowed pairs outlive the run.
    unsafe {
        for (i, (p, t)) in pairs.iter().enumerate() {
            let mut idx = usize::MAX;
            let borrowed = u.bool();
            let (pp, pl, tp, tl) = if hostile && u.chance(32) {
                match u.u8() % 4 {
                    0 => (std::ptr::null(), 0, std::ptr::null(), 0),
                    1 => (std::ptr::null(), 5, t.as_ptr(), t.len() as i32),
                    2 => (p.as_ptr(), -1, t.as_ptr(), t.len() as i32),
                    _ => (p.as_ptr(), p.len() as i32, t.as_ptr(), i32::MIN),
                }
            } else {
                (p.as_ptr(), p.len() as i32, t.as_ptr(), t.len() as i32)
            };
            let r = if borrowed {
                seqshim_wfa_batch_add_borrowed(
                    b,
                    pp as *const c_char,
                    pl,
                    tp as *const c_char,
                    tl,
                    &mut idx,
                )
            } else {
                seqshim_wfa_batch_add(
                    b,
                    pp as *const c_char,
                    pl,
                    tp as *const c_char,
                    tl,
                    &mut idx,
                )
            } as i32;
            if r == 0 {
                if idx != added.len() {
                    return Err(format!(
                        "add returned index {idx}, expected {}",
                        added.len()
                    ));
                }
                added.push(i);
            }
        }
        if hostile && u.chance(64) {
            let _ = seqshim_wfa_batch_result(b, 0, std::ptr::null_mut(), std::ptr::null_mut());
        }
        let r = seqshim_wfa_batch_run(b) as i32;
        let mut res = Ok(());
        if r != 0 {
            res = Err(format!("batch_run returned {r}"));
        } else if seqshim_wfa_batch_size(b) != added.len() {
            res = Err(format!(
                "batch size {} after adding {}",
                seqshim_wfa_batch_size(b),
                added.len()
            ));
        }
        let mut got = Vec::new();
        for i in 0..added.len() + 1 {
            got.push(batch_outcome(b, i, o.scope));
            let cap = u.usize_in(0, 64);
            let mut buf = vec![0 as c_char; cap];
            let mut need = 0usize;
            let _ = seqshim_wfa_batch_cigar_sam(
                b,
                i,
                if cap == 0 {
                    std::ptr::null_mut()
                } else {
                    buf.as_mut_ptr()
                },
                cap,
                &mut need,
            );
        }
        if !hostile && res.is_ok() {
            // A pair the batch refused may be one 2.3.3 ends the process on
            // ("Maximum allocated wavefronts reached", then `exit(1)`): it is
            // put to upstream in a child process after the pairs compared so
            // far; if upstream answers, the refusal is a mismatch, else the
            // pair is left out and the reference goes on with the next.
            let mut compared = Vec::new();
            for k in 0..added.len() {
                let (mut st, mut score) = (0, 0);
                if seqshim_wfa_batch_result(b, k, &mut st, &mut score) as i32
                    == SEQSHIM_E_REFUSED as i32
                {
                    let history: Vec<_> = compared
                        .iter()
                        .chain([&k])
                        .map(|&j: &usize| pairs[added[j]].clone())
                        .collect();
                    match upstream_in_child(&cfg, &history) {
                        Ok(None) => continue,
                        Ok(Some(theirs)) => {
                            res = Err(format!(
                                "the batch refused pair {k} ({} x {} bp), which libwfa2 2.3.3 aligns, under {cfg:?}\n  upstream: {}",
                                history[history.len() - 1].0.len(),
                                history[history.len() - 1].1.len(),
                                describe(&theirs)
                            ));
                            break;
                        }
                        Err(e) => {
                            res = Err(e);
                            break;
                        }
                    }
                }
                compared.push(k);
            }
            let sub: Vec<_> = compared.iter().map(|&k| pairs[added[k]].clone()).collect();
            let want = if res.is_ok() {
                run_config(&cfg, &sub, true)
            } else {
                Vec::new()
            };
            for (at, (w, &k)) in want.iter().zip(&compared).enumerate() {
                let g = &got[k];
                // The batch reports no score (INT_MIN) for an unfinished
                // score-only alignment, where 2.3.3's cigar->score is what
                // the aligner's previous alignment left.
                let same = match g {
                    Ok(o) if w.0 != 0 && cfg.scope == COMPUTE_SCORE => o.0 == w.0,
                    Ok(o) => o == w,
                    Err(_) => false,
                };
                if !same {
                    res = Err(format!(
                        "batch pair {k} ({} x {} bp) differs from libwfa2 2.3.3 under {cfg:?}\n  upstream: {}\n  batch:    {:?}",
                        sub[at].0.len(),
                        sub[at].1.len(),
                        describe(w),
                        g.as_ref().map(describe)
                    ));
                    break;
                }
            }
            if res.is_ok() && !matches!(got[added.len()], Err(e) if e == SEQSHIM_E_INDEX as i32) {
                res = Err(format!("result past the end: {:?}", got[added.len()]));
            }
        }
        if u.chance(64) {
            let _ = seqshim_wfa_batch_reset(b);
            let _ = seqshim_wfa_batch_add(
                b,
                c"ACGT".as_ptr(),
                4,
                c"AGT".as_ptr(),
                3,
                std::ptr::null_mut(),
            );
            let _ = seqshim_wfa_batch_run(b);
        }
        seqshim_wfa_batch_destroy(b);
        res
    }
}
