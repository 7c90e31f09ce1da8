//! Concurrency stress: 64 threads (`SEQSHIM_STRESS_THREADS`) for
//! `SEQSHIM_STRESS_SECONDS` (default 15) mixing valid calls of every family,
//! each checked against the result the same call gave single-threaded, with
//! the fuzz targets' hostile and invalid calls. Each thread owns its
//! aligners, batches and spectra; the handles documented as shareable are
//! shared: one BOA score matrix read once (as CONSENT does), one finalised
//! EC spectrum (`correct_batch` and `contains` on a live, unchanged
//! spectrum), and one run WFA batch whose results and CIGARs every thread
//! reads (`seqshim_wfa_batch_cigar` is safe from several threads).
//!
//! A watchdog thread fails the run, naming the calls in flight and for how
//! long, when one call outlives `SEQSHIM_STRESS_STUCK` seconds (default 60)
//! or the run its time by as much; the parent process (as for the fuzz
//! targets) also fails on a crash, a hang or panic text on stderr.

#[path = "../fuzz/abea.rs"]
mod abea;
#[path = "../fuzz/bytes.rs"]
mod bytes;
#[path = "../fuzz/ec.rs"]
mod ec;
#[path = "../fuzz/gact.rs"]
mod gact;
#[path = "../fuzz/poa.rs"]
mod poa;
#[path = "../fuzz/supervise.rs"]
mod supervise;
#[path = "../fuzz/wfa.rs"]
mod wfa;

use bytes::{Input, Rng};
use seqshim::ffi::boa::types::ResidueScoreMatrix;
use seqshim::ffi::cudaec::*;
use seqshim::ffi::darwin::*;
use seqshim::ffi::f5c::*;
use seqshim::ffi::poa_batch::*;
use seqshim::ffi::wfa_batch::*;
use std::ffi::c_char;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
pub use supervise::Ctx;

type Target = fn(&mut Input, &Ctx) -> Result<(), String>;

/// The fuzz targets, for the hostile share of the calls.
const HOSTILE: &[(&str, Target)] = &[
    ("wfa2", wfa::wfa2),
    ("wfa2_cigar", wfa::cigar),
    ("wfa_batch", wfa::batch),
    ("boa", poa::boa),
    ("poa_batch", poa::batch),
    ("abea", abea::abea),
    ("gact", gact::gact),
    ("ec", ec::ec),
];

/// Valid calls with a deterministic result, by family.
const JOBS: &[&str] = &[
    "wavefront_align",
    "wfa_batch",
    "wfa_batch_shared",
    "boa_shared_matrix",
    "poa_batch",
    "f5c_align",
    "abea_align_batch",
    "gact_tile",
    "gact_extend",
    "ec_own_spectrum",
    "ec_shared_spectrum",
];

/// Handles shared by every thread.
struct Shared {
    matrix: *mut ResidueScoreMatrix,
    spectrum: *const seqshim_ec_spectrum,
    ec_params: seqshim_ec_params,
    ec_reads: Vec<Vec<u8>>,
    wfa_batch: *const seqshim_wfa_batch_t,
    wfa_batch_len: usize,
}

// SAFETY: the pointers are to handles that the documented contracts allow
// several threads to read at once (see the crate comment); nothing writes
// them after setup, and they outlive the threads.
unsafe impl Sync for Shared {}
// SAFETY: as above.
unsafe impl Send for Shared {}

fn job_input(job: usize, case: u64) -> Vec<u8> {
    Rng(0x5EED_0000 + (job as u64) * 1000 + case).case(&[], 1536)
}

/// One valid call; its result as text.
fn run_job(job: usize, case: u64, sh: &Shared) -> String {
    let data = job_input(job, case);
    let mut u = Input::new(&data);
    let u = &mut u;
    match JOBS[job] {
        "wavefront_align" => {
            let pairs: Vec<_> = (0..2).map(|_| wfa::pair(u)).collect();
            let lens: Vec<_> = pairs.iter().map(|p| (p.0.len(), p.1.len())).collect();
            let cfg = wfa::Config::decode(u, &lens);
            format!("{:?}", wfa::run_config(&cfg, &pairs, false))
        }
        "wfa_batch" => {
            let pairs: Vec<_> = (0..4).map(|_| wfa::pair(u)).collect();
            let lens: Vec<_> = pairs.iter().map(|p| (p.0.len(), p.1.len())).collect();
            let mut cfg = wfa::Config::decode(u, &lens);
            cfg.memory = cfg.memory.min(2);
            cfg.free = None;
            wfa_batch_digest(&wfa::options_of(&cfg), &pairs).0
        }
        "wfa_batch_shared" => {
            let i = (case as usize) % sh.wfa_batch_len.max(1);
            format!("{:?}", wfa::batch_outcome(sh.wfa_batch, i, 1))
        }
        "boa_shared_matrix" => {
            let reads = poa::window(u, false);
            // SAFETY: the shared matrix is only read by the BOA calls.
            format!(
                "{:?}",
                poa::boa_rows(unsafe { &mut *sh.matrix }, &reads, 150)
            )
        }
        "poa_batch" => {
            let wins: Vec<_> = (0..3).map(|_| poa::window(u, false)).collect();
            let mut p = poa::params();
            p.device = -1;
            p.consensus_mode = u.range(0, 1) as i32;
            poa_digest(&p, &wins)
        }
        "f5c_align" | "abea_align_batch" => {
            let k = u.range(1, 6) as u32;
            let m = abea::models(u, k, false);
            let reads: Vec<_> = (0..3).map(|_| abea::read(u, k, &m, false)).collect();
            abea_digest(JOBS[job] == "abea_align_batch", k, &m, &reads)
        }
        "gact_tile" => {
            let n = u.len(200, 511).min(511);
            let r = u.dna(n, false, true);
            let q = u.mutate_dna(&r, 100);
            let q = &q[..q.len().min(511)];
            let sub: Vec<i32> = (0..25)
                .map(|i| if i / 5 == i % 5 && i < 20 { 2 } else { -3 })
                .collect();
            let mut ops = vec![0u8; 1100];
            let mut out = seqshim_gact_tile_result_t {
                score: 0,
                max_i: 0,
                max_j: 0,
                ref_steps: 0,
                query_steps: 0,
                n_ops: 0,
            };
            // SAFETY: sequences valid for their lengths, 25 scores, room for
            // ref_len + query_len states.
            let st = unsafe {
                seqshim_gact_align_tile(
                    r.as_ptr() as *const c_char,
                    r.len() as i64,
                    q.as_ptr() as *const c_char,
                    q.len() as i64,
                    sub.as_ptr(),
                    -4,
                    -1,
                    0,
                    0,
                    u.bool(),
                    true,
                    2000,
                    ops.as_mut_ptr(),
                    ops.len() as u32,
                    &mut out,
                )
            };
            format!(
                "{st} {} {} {} {:?}",
                out.score,
                out.max_i,
                out.max_j,
                &ops[..out.n_ops as usize]
            )
        }
        "gact_extend" => {
            let n = u.len(800, 2000);
            let r = u.dna(n, false, true);
            let q = u.mutate_dna(&r, 100);
            let sub: Vec<i32> = (0..25)
                .map(|i| if i / 5 == i % 5 && i < 20 { 2 } else { -3 })
                .collect();
            let cap = r.len() + q.len() + 2;
            let (mut ar, mut aq) = (vec![0 as c_char; cap], vec![0 as c_char; cap]);
            let mut out = seqshim_gact_aln_t {
                ref_start: 0,
                query_start: 0,
                aligned_ref_len: 0,
                aligned_query_len: 0,
                score: 0,
                n_cols: 0,
            };
            let (rp, qp) = (r.len() as i32 / 2, q.len() as i32 / 2);
            // SAFETY: sequences readable for their lengths (the seeds lie
            // within), outputs of `cap` bytes.
            let st = unsafe {
                seqshim_gact_extend(
                    r.as_ptr() as *const c_char,
                    q.as_ptr() as *const c_char,
                    sub.as_ptr(),
                    -4,
                    -1,
                    320,
                    120,
                    rp,
                    qp,
                    r.len() as u32,
                    q.len() as u32,
                    0,
                    ar.as_mut_ptr(),
                    aq.as_mut_ptr(),
                    cap as u32,
                    &mut out,
                )
            };
            let n = out.n_cols as usize;
            format!(
                "{st} {} {} {} {:?} {:?}",
                out.score,
                out.ref_start,
                out.query_start,
                &ar[..n],
                &aq[..n]
            )
        }
        "ec_own_spectrum" => {
            let p = ec::params(u, false, 0, false);
            let reads = ec::reads(u, None);
            ec_digest(None, &p, &reads)
        }
        "ec_shared_spectrum" => {
            let i = (case as usize) % sh.ec_reads.len().max(1);
            let lo = i.min(sh.ec_reads.len());
            let hi = (lo + 10).min(sh.ec_reads.len());
            ec_digest(Some(sh.spectrum), &sh.ec_params, &sh.ec_reads[lo..hi])
        }
        other => unreachable!("job {other}"),
    }
}

/// A batch run: the digest, and the live batch when `keep`.
fn wfa_batch_digest(
    o: &seqshim_wfa_options_t,
    pairs: &[(Vec<u8>, Vec<u8>)],
) -> (String, *mut seqshim_wfa_batch_t) {
    let mut b = std::ptr::null_mut();
    // SAFETY: valid options; a live batch until destroyed by the caller or
    // here; pairs valid for their lengths.
    unsafe {
        let st = seqshim_wfa_batch_create(o, pairs.len(), &mut b) as i32;
        if st != 0 {
            return (format!("create {st}"), std::ptr::null_mut());
        }
        for (p, t) in pairs {
            seqshim_wfa_batch_add(
                b,
                p.as_ptr() as *const c_char,
                p.len() as i32,
                t.as_ptr() as *const c_char,
                t.len() as i32,
                std::ptr::null_mut(),
            );
        }
        let run = seqshim_wfa_batch_run(b) as i32;
        let res: Vec<_> = (0..pairs.len())
            .map(|i| wfa::batch_outcome(b, i, o.scope))
            .collect();
        let d = format!("{run} {res:?}");
        seqshim_wfa_batch_destroy(b);
        (d, std::ptr::null_mut())
    }
}

fn poa_digest(p: &seqshim_poa_params_t, wins: &[Vec<Vec<u8>>]) -> String {
    let mut b = std::ptr::null_mut();
    let mut out = String::new();
    // SAFETY: valid params; a live batch until destroyed; reads valid for
    // their lengths; outputs borrowed until destroy and copied before.
    unsafe {
        if seqshim_poa_batch_create(p, wins.len(), &mut b) as i32 != 0 {
            return "create failed".into();
        }
        let mut ids = Vec::new();
        for w in wins {
            let ptrs: Vec<*const c_char> = w.iter().map(|r| r.as_ptr() as *const c_char).collect();
            let lens: Vec<u32> = w.iter().map(|r| r.len() as u32).collect();
            let mut id = 0u64;
            let st = seqshim_poa_batch_add_window(
                b,
                w.len() as u32,
                ptrs.as_ptr(),
                lens.as_ptr(),
                &mut id,
            ) as i32;
            ids.push((st, id));
        }
        out += &format!("run {} ", seqshim_poa_batch_run(b) as i32);
        for (st, id) in ids {
            let (mut c, mut l) = (std::ptr::null::<c_char>(), 0u32);
            let g = if st == 0 {
                seqshim_poa_batch_get_consensus(b, id, &mut c, &mut l) as i32
            } else {
                st
            };
            let cons = if g == 0 {
                String::from_utf8_lossy(std::slice::from_raw_parts(c as *const u8, l as usize))
                    .into_owned()
            } else {
                String::new()
            };
            out += &format!("[{g} {cons}]");
        }
        seqshim_poa_batch_destroy(b);
    }
    out
}

fn abea_digest(batch: bool, k: u32, m: &[seqshim::abea::Model], reads: &[abea::Read]) -> String {
    use seqshim::abea::AlignedPair;
    let mut outs: Vec<Vec<AlignedPair>> = reads
        .iter()
        .map(|r| vec![AlignedPair::default(); r.events.len() + r.seq.len() + 1])
        .collect();
    if batch {
        let mut opt = std::mem::MaybeUninit::<AbeaBatchOpt>::zeroed();
        // SAFETY: writable options; then arrays of n_reads elements, each
        // read valid for its lengths and its output for f5c's capacity.
        unsafe {
            seqshim_abea_batch_opt_init(opt.as_mut_ptr());
            let mut opt = opt.assume_init();
            opt.models = m.as_ptr();
            opt.kmer_size = k;
            let seqs: Vec<*mut c_char> = reads
                .iter()
                .map(|r| r.seq.as_ptr() as *mut c_char)
                .collect();
            let lens: Vec<i32> = reads.iter().map(|r| r.seq.len() as i32).collect();
            let tabs: Vec<EventTable> = reads.iter().map(abea::table).collect();
            let scal: Vec<_> = reads.iter().map(|r| r.scaling).collect();
            let outp: Vec<*mut AlignedPair> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
            let mut counts = vec![0i32; reads.len()];
            let st = seqshim_abea_align_batch(
                &opt,
                reads.len() as i32,
                seqs.as_ptr(),
                lens.as_ptr(),
                tabs.as_ptr(),
                scal.as_ptr(),
                outp.as_ptr(),
                counts.as_mut_ptr(),
            ) as i32;
            let v: Vec<_> = outs
                .iter()
                .zip(&counts)
                .map(|(o, &n)| {
                    o[..n.max(0) as usize]
                        .iter()
                        .map(|p| (p.ref_pos, p.read_pos))
                        .collect::<Vec<_>>()
                })
                .collect();
            format!("{st} {v:?}")
        }
    } else {
        let v: Vec<_> = reads
            .iter()
            .zip(outs.iter_mut())
            .map(|(r, o)| {
                // SAFETY: as for the batch, one read.
                let n = unsafe {
                    seqshim_f5c_align(
                        o.as_mut_ptr(),
                        r.seq.as_ptr() as *mut c_char,
                        r.seq.len() as i32,
                        abea::table(r),
                        m.as_ptr() as *mut _,
                        k,
                        r.scaling,
                        4000.0,
                    )
                };
                o[..n.max(0) as usize]
                    .iter()
                    .map(|p| (p.ref_pos, p.read_pos))
                    .collect::<Vec<_>>()
            })
            .collect();
        format!("{v:?}")
    }
}

fn ec_digest(
    shared: Option<*const seqshim_ec_spectrum>,
    p: &seqshim_ec_params,
    reads: &[Vec<u8>],
) -> String {
    let stride = reads.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
    let mut buf = vec![0u8; stride * reads.len()];
    let mut lens: Vec<u32> = reads.iter().map(|r| r.len() as u32).collect();
    for (i, r) in reads.iter().enumerate() {
        buf[i * stride..i * stride + r.len()].copy_from_slice(r);
    }
    let mut status = vec![0u8; reads.len()];
    // SAFETY: a readable params block; a spectrum that is either this
    // thread's own or the shared, finalised one (only read); reads valid
    // for lens[i] <= stride bytes; outputs for n reads.
    unsafe {
        let mut own = std::ptr::null_mut();
        let s = match shared {
            Some(s) => s,
            None => {
                let st = seqshim_ec_spectrum_new(p, reads.len() as u64, &mut own) as i32;
                if st != 0 {
                    return format!("new {st}");
                }
                seqshim_ec_spectrum_add(
                    own,
                    buf.as_ptr() as *const c_char,
                    stride,
                    lens.as_ptr(),
                    reads.len(),
                );
                seqshim_ec_spectrum_finalize(own);
                own as *const _
            }
        };
        let contains = if p.k as usize <= stride && !reads.is_empty() {
            seqshim_ec_spectrum_contains(s, buf.as_ptr() as *const c_char)
        } else {
            -100
        };
        let st = seqshim_ec_correct_batch(
            s,
            p,
            buf.as_mut_ptr() as *mut c_char,
            stride,
            lens.as_mut_ptr(),
            reads.len(),
            status.as_mut_ptr(),
            std::ptr::null_mut(),
        ) as i32;
        seqshim_ec_spectrum_free(own);
        let v: Vec<_> = (0..reads.len())
            .map(|i| {
                (
                    status[i],
                    String::from_utf8_lossy(&buf[i * stride..i * stride + lens[i] as usize])
                        .into_owned(),
                )
            })
            .collect();
        format!("{contains} {st} {v:?}")
    }
}

/// The calls in flight: per thread, what and since when.
type Slots = Arc<Vec<Mutex<Option<(String, Instant)>>>>;

fn stress() {
    let env = supervise::ChildEnv::read();
    let threads: usize = std::env::var("SEQSHIM_STRESS_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let stuck = Duration::from_secs_f64(
        std::env::var("SEQSHIM_STRESS_STUCK")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60.0),
    );
    std::fs::create_dir_all(&env.scratch).expect("scratch");
    supervise::limit_memory();

    // Shared handles.
    let mpath = env.scratch.join("boa.mat");
    std::fs::write(&mpath, seqshim::poa::matrix::boa_dna_matrix_text()).unwrap();
    let matrix = Box::into_raw(poa::matrix());
    let cpath = std::ffi::CString::new(mpath.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path and a writable matrix.
    let n = unsafe { seqshim::ffi::boa::read_score_matrix(cpath.as_ptr() as *mut c_char, matrix) };
    assert!(n > 0, "the BOA matrix did not load: {n}");
    let seed_data = job_input(99, 0);
    let mut u = Input::new(&seed_data);
    let ec_params = ec::params(&mut u, false, 0, false);
    let ec_reads: Vec<Vec<u8>> = (0..4).flat_map(|_| ec::reads(&mut u, None)).collect();
    let stride = ec_reads.iter().map(|r| r.len()).max().unwrap_or(1).max(1);
    let mut flat = vec![0u8; stride * ec_reads.len()];
    for (i, r) in ec_reads.iter().enumerate() {
        flat[i * stride..i * stride + r.len()].copy_from_slice(r);
    }
    let lens: Vec<u32> = ec_reads.iter().map(|r| r.len() as u32).collect();
    let mut spectrum = std::ptr::null_mut();
    // SAFETY: readable params; the spectrum lives until the end of main.
    unsafe {
        assert_eq!(
            seqshim_ec_spectrum_new(&ec_params, ec_reads.len() as u64, &mut spectrum) as i32,
            0
        );
        assert_eq!(
            seqshim_ec_spectrum_add(
                spectrum,
                flat.as_ptr() as *const c_char,
                stride,
                lens.as_ptr(),
                ec_reads.len()
            ) as i32,
            0
        );
        assert_eq!(seqshim_ec_spectrum_finalize(spectrum) as i32, 0);
    }
    let shared_pairs: Vec<_> = (0..32).map(|_| wfa::pair(&mut u)).collect();
    let o = wfa::default_options();
    let mut wb = std::ptr::null_mut();
    // SAFETY: valid options; the batch lives until the end; pairs valid.
    unsafe {
        assert_eq!(seqshim_wfa_batch_create(&o, 32, &mut wb) as i32, 0);
        for (p, t) in &shared_pairs {
            seqshim_wfa_batch_add(
                wb,
                p.as_ptr() as *const c_char,
                p.len() as i32,
                t.as_ptr() as *const c_char,
                t.len() as i32,
                std::ptr::null_mut(),
            );
        }
        assert_eq!(seqshim_wfa_batch_run(wb) as i32, 0);
    }
    let shared = Arc::new(Shared {
        matrix,
        spectrum,
        ec_params,
        ec_reads,
        wfa_batch: wb,
        wfa_batch_len: shared_pairs.len(),
    });

    // Single-threaded expectations.
    const CASES: u64 = 6;
    let t0 = Instant::now();
    let expected: Vec<Vec<String>> = (0..JOBS.len())
        .map(|j| (0..CASES).map(|c| run_job(j, c, &shared)).collect())
        .collect();
    eprintln!(
        "stress: {} valid calls single-threaded in {:.1} s",
        JOBS.len() as u64 * CASES,
        t0.elapsed().as_secs_f64()
    );
    let expected = Arc::new(expected);

    let slots: Slots = Arc::new((0..threads).map(|_| Mutex::new(None)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let valid_calls = Arc::new(AtomicU64::new(0));
    let hostile_calls = Arc::new(AtomicU64::new(0));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let deadline = Instant::now() + Duration::from_secs_f64(env.seconds);

    // Watchdog.
    {
        let slots = slots.clone();
        let stop = stop.clone();
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(250));
                let now = Instant::now();
                let late = now > deadline + stuck;
                let mut stuck_calls = Vec::new();
                for (i, s) in slots.iter().enumerate() {
                    if let Some((what, since)) = &*s.lock().unwrap_or_else(|p| p.into_inner()) {
                        if now - *since > stuck || late {
                            stuck_calls.push(format!(
                                "thread {i}: {what} for {:.1} s",
                                (now - *since).as_secs_f64()
                            ));
                        }
                    }
                }
                if !stuck_calls.is_empty() || late {
                    println!(
                        "STUCK: calls in flight past {:.0} s:\n  {}",
                        stuck.as_secs_f64(),
                        stuck_calls.join("\n  ")
                    );
                    std::process::exit(supervise::EXIT_MISMATCH);
                }
            }
        });
    }

    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (shared, expected, slots, failures) = (shared.clone(), expected.clone(), slots.clone(), failures.clone());
            let (valid_calls, hostile_calls) = (valid_calls.clone(), hostile_calls.clone());
            let ctx = Ctx { known: false, tmp: env.scratch.join(format!("t{t}")) };
            std::fs::create_dir_all(&ctx.tmp).expect("thread scratch");
            let seed = env.seed ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            std::thread::spawn(move || {
                let mut rng = Rng(seed);
                while Instant::now() < deadline {
                    if rng.below(4) == 0 {
                        let (name, target) = HOSTILE[rng.below(HOSTILE.len() as u64) as usize];
                        let data = rng.case(&[], 2048);
                        *slots[t].lock().unwrap() = Some((format!("fuzz target {name} ({} bytes)", data.len()), Instant::now()));
                        // A panic in the harness itself must not leave the
                        // slot looking like a call in flight.
                        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            target(&mut Input::new(&data), &ctx)
                        }));
                        match outcome {
                            Ok(Ok(())) => {}
                            Ok(Err(e)) => failures.lock().unwrap().push(format!("thread {t}: {name}: {e}")),
                            Err(_) => failures.lock().unwrap().push(format!("thread {t}: {name}: panicked")),
                        }
                        hostile_calls.fetch_add(1, Ordering::Relaxed);
                    } else {
                        let j = rng.below(JOBS.len() as u64) as usize;
                        let c = rng.below(CASES);
                        *slots[t].lock().unwrap() = Some((format!("{} case {c}", JOBS[j]), Instant::now()));
                        let got = run_job(j, c, &shared);
                        if got != expected[j][c as usize] {
                            failures.lock().unwrap().push(format!(
                                "thread {t}: {} case {c} differs from the single-threaded result\n  single: {:.300}\n  thread: {:.300}",
                                JOBS[j], expected[j][c as usize], got
                            ));
                        }
                        valid_calls.fetch_add(1, Ordering::Relaxed);
                    }
                    *slots[t].lock().unwrap() = None;
                }
            })
        })
        .collect();
    for h in handles {
        if h.join().is_err() {
            failures
                .lock()
                .unwrap()
                .push("a stress thread panicked".into());
        }
    }
    stop.store(true, Ordering::Relaxed);
    println!(
        "executions {}",
        valid_calls.load(Ordering::Relaxed) + hostile_calls.load(Ordering::Relaxed)
    );
    println!(
        "stress: {threads} threads, {} valid calls checked, {} hostile calls",
        valid_calls.load(Ordering::Relaxed),
        hostile_calls.load(Ordering::Relaxed)
    );
    let f = failures.lock().unwrap();
    if !f.is_empty() {
        println!(
            "MISMATCH: {} failures; first:\n{}",
            f.len(),
            f.iter().take(5).cloned().collect::<Vec<_>>().join("\n")
        );
        std::process::exit(supervise::EXIT_MISMATCH);
    }
    // SAFETY: every thread has finished; the handles are freed once.
    unsafe {
        seqshim_wfa_batch_destroy(wb);
        seqshim_ec_spectrum_free(spectrum);
        drop(Box::from_raw(matrix));
    }
}

fn main() {
    if std::env::var(supervise::CHILD_ENV).is_ok() {
        stress();
        return;
    }
    // The stress takes SEQSHIM_STRESS_SECONDS, not the fuzz targets' time.
    let secs = std::env::var("SEQSHIM_STRESS_SECONDS").unwrap_or_else(|_| "15".into());
    // SAFETY: single-threaded at this point (before any child or thread).
    unsafe { std::env::set_var("SEQSHIM_FUZZ_SECONDS", &secs) };
    if !supervise::parent("stress", &["stress"], true) {
        std::process::exit(1);
    }
}
