//! The C side of the transparent GPU path of `wavefront_align`
//! (`wfa::transparent` decides and sends): the aligner's C fields as
//! [`AlignerAttributes`], and a device's result written into the aligner
//! exactly as the CPU path writes it.

use super::convert::{State, heuristic_of, heuristic_to_c, mode_of, refuse, scope_of, write_cigar};
use super::types::*;
use crate::wfa::job::{self, PairResult};
use crate::wfa::transparent::{self, Offer};

/// The routing's timer for a pair the caller's thread aligns.
pub(super) type WfaHere = crate::engine::family::Timing<crate::wfa::job::WfaJob>;
use crate::wfa::{AlignStatus, AlignerAttributes, AlignmentSpan, Heuristic};
use std::ffi::c_int;

/// The attributes an aligner with these fields aligns `s.pattern`/`s.text`
/// with, when they can be described by [`AlignerAttributes`] alone: no
/// BiWFA, no score or memory limit, no custom match function, no stale begin-free
/// lengths, and a heuristic a fresh aligner would rebuild identically.
fn plain_attributes(w: &wavefront_aligner_t, s: &State) -> Option<AlignerAttributes> {
    if !w.bialigner.is_null()
        || w.memory_mode == MEMORY_ULTRALOW
        || w.system.max_alignment_score != i32::MAX
        || w.system.max_memory_abort != u64::MAX
        || w.match_funct.is_some()
    {
        return None;
    }
    let f = w.alignment_form;
    let lengths = [
        f.pattern_begin_free,
        f.pattern_end_free,
        f.text_begin_free,
        f.text_end_free,
    ];
    if lengths.iter().any(|&l| l < 0) {
        return None;
    }
    let span = if f.span == ALIGNMENT_ENDSFREE {
        AlignmentSpan::EndsFree
    } else if f.pattern_begin_free == 0 && f.text_begin_free == 0 {
        AlignmentSpan::EndToEnd
    } else {
        return None;
    };
    let mut heuristic = heuristic_of(&w.heuristic);
    heuristic.clear_state();
    let mut rebuilt = Heuristic::from_attributes(&heuristic);
    rebuilt.clear_state();
    if rebuilt != heuristic {
        return None;
    }
    Some(AlignerAttributes {
        penalties: s.penalties,
        scope: scope_of(w.alignment_scope),
        form: f.with_span(span),
        memory_mode: mode_of(w.memory_mode),
        heuristic,
        max_alignment_score: i32::MAX,
    })
}

/// Aligns the aligner's current pair on a device when `wfa::transparent`
/// takes it: `Ok` with the status written. `Err` leaves it to the CPU path
/// (no device, a configuration or pair the device does not reproduce, a
/// pair the caller's thread aligns sooner, a refused outcome whose messages
/// the CPU path prints, or a device failure outside strict mode), with the
/// routing's timer to hold while that path runs.
pub(super) fn offload(w: &mut wavefront_aligner_t, s: &mut State) -> Result<c_int, WfaHere> {
    if !transparent::enabled() {
        return Err(WfaHere::Untimed);
    }
    let attributes = plain_attributes(w, s).ok_or(WfaHere::Untimed)?;
    #[cfg(test)]
    if tests::BYPASS.with(|b| b.get()) {
        return Err(WfaHere::Untimed);
    }
    let result = match transparent::align_on_device(&attributes, &s.pattern, &s.text) {
        Offer::Here(timer) => return Err(timer),
        Offer::Device(Ok(result)) => result,
        Offer::Device(Err(e)) if crate::engine::config::get().strict => {
            // SEQSHIM_STRICT: a GPU failure is reported, never hidden.
            crate::log_warn!("wavefront_align: {e}");
            return Ok(refuse(w));
        }
        Offer::Device(Err(e)) => {
            // Nothing was written to the aligner yet: the CPU path aligns
            // the pair as if it had never been offered.
            crate::log_warn!("wavefront_align: the GPU path failed ({e}); aligning on the CPU");
            return Err(WfaHere::Untimed);
        }
    };
    let status = result.outcome.clone().map_err(|_| WfaHere::Untimed)?;
    Ok(install(w, s, &attributes, &result, status))
}

/// Writes `result` into the aligner as `run` would have after aligning the
/// pair itself.
fn install(
    w: &mut wavefront_aligner_t,
    s: &mut State,
    attributes: &AlignerAttributes,
    result: &PairResult,
    status: AlignStatus,
) -> c_int {
    let (plen, tlen) = (s.pattern.len(), s.text.len());
    job::absorb_device_alignment(&mut s.aligner, plen, tlen, result);
    w.heuristic = heuristic_to_c(&attributes.heuristic);
    let rc = s.aligner.cigar();
    let (rc_max, rc_score) = (rc.max_operations, rc.score);
    let (rc_begin, _) = result.cigar_offsets(attributes, rc_max);
    write_cigar(w, rc_max, rc_begin, result.operations.letters(), rc_score);
    w.align_status.status = status.code();
    w.align_status.num_null_steps = 0;
    // SAFETY: the aligner's cigar is valid and ours.
    let max_operations = unsafe { (*w.cigar).max_operations };
    w.align_status.memory_used = (max_operations.max(0) as usize + plen + tlen) as u64;
    if status == AlignStatus::MaxScoreReached {
        w.align_status.score = w.system.max_alignment_score;
    }
    status.code()
}

#[cfg(test)]
pub(super) mod tests {
    use std::cell::Cell;
    use std::sync::atomic::Ordering;

    use super::super::aligner::{wavefront_align, wavefront_aligner_delete, wavefront_aligner_new};
    use super::super::types::*;
    use crate::wfa::job::emulated;

    thread_local! {
        /// Set by a test thread that wants the plain CPU path (the reference).
        pub static BYPASS: Cell<bool> = const { Cell::new(false) };
    }

    /// Everything a client can read after one call.
    type Snapshot = (i32, i32, i32, i32, i32, i32, Vec<u8>, String, u64);

    fn configurations() -> Vec<wavefront_aligner_attr_t> {
        let base = ATTR_DEFAULT;
        let mut out = vec![base];
        let mut none = base;
        none.heuristic.strategy = 0;
        out.push(none);
        let mut score = none;
        score.alignment_scope = COMPUTE_SCORE;
        out.push(score);
        let mut free = none;
        free.alignment_form = alignment_form_t {
            span: ALIGNMENT_ENDSFREE,
            pattern_begin_free: 0,
            pattern_end_free: 0,
            text_begin_free: 5,
            text_end_free: 5,
        };
        out.push(free);
        let mut med = base;
        med.memory_mode = MEMORY_MED;
        out.push(med);
        let mut edit = none;
        edit.distance_metric = EDIT;
        out.push(edit);
        let mut linear = base;
        linear.distance_metric = GAP_LINEAR;
        out.push(linear);
        out
    }

    fn pairs(seed: u64, n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as usize
        };
        (0..n)
            .map(|i| {
                // Mostly short pairs for the device, some long ones (left to
                // the CPU or rescued by the emulated device), a few empty.
                let len = match i % 10 {
                    0 => 1_600 + next() % 900,
                    1 => next() % 3,
                    _ => 20 + next() % 300,
                };
                let p: Vec<u8> = (0..len).map(|_| b"ACGT"[next() % 4]).collect();
                let mut t = Vec::with_capacity(len + 8);
                for &c in &p {
                    match next() % 16 {
                        0 => t.push(b"ACGT"[next() % 4]),
                        1 => {}
                        2 => t.extend_from_slice(&[c, b'A']),
                        _ => t.push(c),
                    }
                }
                if i % 7 == 0 {
                    t.extend_from_slice(b"GGGGGG");
                }
                (p, t)
            })
            .collect()
    }

    /// The heuristic as a client reads it. With a heuristic on, the
    /// per-alignment countdown `steps_wait` is left as the alignment ended
    /// on the CPU path but as cleared on the device path (documented; every
    /// alignment resets it before use, so no result depends on it).
    fn heuristic_fields(h: &wavefront_heuristic_t) -> String {
        let mut h = *h;
        if h.strategy != 0 {
            h.steps_wait = 0;
        }
        format!("{h:?}")
    }

    /// One aligner per configuration, every pair through `wavefront_align`.
    fn run_client(seed: u64, calls: usize) -> Vec<Snapshot> {
        let mut out = Vec::new();
        let work = pairs(seed, calls);
        for mut attr in configurations() {
            // SAFETY: a valid attribute struct; the aligner is deleted below.
            let wf = unsafe { wavefront_aligner_new(&mut attr) };
            assert!(!wf.is_null());
            for (p, t) in &work {
                // SAFETY: a live aligner and sequences of these lengths.
                let rc = unsafe {
                    wavefront_align(
                        wf,
                        p.as_ptr().cast(),
                        p.len() as i32,
                        t.as_ptr().cast(),
                        t.len() as i32,
                    )
                };
                // SAFETY: the aligner and its CIGAR are live.
                let (w, c) = unsafe { (&*wf, &*(*wf).cigar) };
                let ops = if c.end_offset > c.begin_offset {
                    // SAFETY: [begin, end) lies in the buffer.
                    unsafe {
                        std::slice::from_raw_parts(
                            c.operations.add(c.begin_offset as usize) as *const u8,
                            (c.end_offset - c.begin_offset) as usize,
                        )
                    }
                    .to_vec()
                } else {
                    Vec::new()
                };
                out.push((
                    rc,
                    w.align_status.status,
                    c.score,
                    c.begin_offset,
                    c.end_offset,
                    c.max_operations,
                    ops,
                    heuristic_fields(&w.heuristic),
                    w.align_status.memory_used,
                ));
            }
            // SAFETY: from wavefront_aligner_new, not used afterwards.
            unsafe { wavefront_aligner_delete(wf) };
        }
        out
    }

    /// A memory limit lives in the client's aligner only: such calls stay
    /// on it, so the limit stops them as on the plain path (status -3).
    #[test]
    fn a_memory_limit_keeps_the_call_on_the_cpu_path() {
        use super::super::aligner::wavefront_aligner_set_max_memory;
        let _turn = emulated::take_turn();
        let (p, t) = (vec![b'A'; 1400], vec![b'C'; 1400]);
        let run = |bypass: bool| {
            std::thread::scope(|sc| {
                sc.spawn(|| {
                    BYPASS.with(|b| b.set(bypass));
                    let mut attr = ATTR_DEFAULT;
                    attr.heuristic.strategy = 0;
                    // SAFETY: a fresh aligner and two live sequences.
                    unsafe {
                        let wf = wavefront_aligner_new(&mut attr);
                        wavefront_aligner_set_max_memory(wf, u64::MAX, 1);
                        let rc =
                            wavefront_align(wf, p.as_ptr().cast(), 1400, t.as_ptr().cast(), 1400);
                        let status = (*wf).align_status.status;
                        wavefront_aligner_delete(wf);
                        (rc, status)
                    }
                })
                .join()
                .unwrap()
            })
        };
        let plain = run(true);
        assert_eq!(plain, (-3, -3));
        assert_eq!(run(false), plain);
    }

    /// A lone caller: where its pairs run is the routing's choice (a lone
    /// caller's pairs go to an idle device when it returns them sooner;
    /// see the scheduler's tests); its results equal the plain path's.
    #[test]
    fn a_lone_callers_pairs_equal_the_plain_path() {
        let _turn = emulated::take_turn();
        let reference = std::thread::spawn(|| {
            BYPASS.with(|b| b.set(true));
            run_client(99, 30)
        })
        .join()
        .unwrap();
        assert_eq!(run_client(99, 30), reference);
    }

    #[test]
    fn concurrent_callers_are_batched_and_equal_the_plain_path() {
        let _turn = emulated::take_turn();
        const THREADS: u64 = 16;
        const CALLS: usize = 40;
        let reference: Vec<Vec<Snapshot>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    scope.spawn(move || {
                        BYPASS.with(|b| b.set(true));
                        run_client(t, CALLS)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let before = emulated::ONE_PAIR_JOBS.load(Ordering::Relaxed);
        let start = std::sync::Barrier::new(THREADS as usize);
        let offloaded: Vec<Vec<Snapshot>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let start = &start;
                    scope.spawn(move || {
                        start.wait();
                        run_client(t, CALLS)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let on_device = emulated::ONE_PAIR_JOBS.load(Ordering::Relaxed) - before;
        let calls = reference.iter().map(Vec::len).sum::<usize>();
        let mut differ = 0;
        for (t, (want, got)) in reference.iter().zip(&offloaded).enumerate() {
            for (i, (a, b)) in want.iter().zip(got).enumerate() {
                if a != b {
                    differ += 1;
                    if differ < 5 {
                        eprintln!("thread {t} call {i}:\n  plain    {a:?}\n  batched  {b:?}");
                    }
                }
            }
        }
        let largest = emulated::LARGEST_ONE_PAIR_BATCH.load(Ordering::Relaxed);
        eprintln!(
            "wfa transparent path: {THREADS} threads, {calls} calls, {differ} differ from the \
             plain path, {on_device} ran on the emulated device, largest batch {largest}"
        );
        assert_eq!(differ, 0);
        // With only the emulated device (no GPU: CI), whose launches are
        // cheap, routing sends concurrent calls to it. Beside a real GPU
        // it may rightly keep them all here.
        if crate::engine::device::gpus().is_empty() {
            assert!(on_device > 0, "no call reached the device");
            assert!(largest > 1, "concurrent calls were never batched together");
        }
    }
}
