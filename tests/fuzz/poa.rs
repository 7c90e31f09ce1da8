//! BOA's POA ABI (matrix files of random bytes, CONSENT's per-window call
//! sequence) and the POA batch API; the BOA MSA rows are compared with the
//! batch's for the same reads, and the batch with `seqshim_poa_consensus_many`.

use crate::Ctx;
use crate::bytes::Input;
use seqshim::ffi::boa::types::*;
use seqshim::ffi::boa::*;
use seqshim::ffi::poa_batch::*;
use std::ffi::{CString, c_char, c_int};

const DONT_SWITCH_CASE: c_int = 0;

pub fn window(u: &mut Input, hostile: bool) -> Vec<Vec<u8>> {
    let n = u.usize_in(0, 10);
    let len = u.len(80, 400);
    let base = u.dna(len, false, true);
    (0..n)
        .map(|_| match u.u8() % 10 {
            0 => Vec::new(),
            1 if hostile => {
                let l = u.len(40, 300);
                u.dna(l, true, true)
            }
            _ => {
                let rate = u.range(0, 150) as u32;
                u.mutate_dna(&base, rate)
            }
        })
        .collect()
}

pub fn matrix() -> Box<ResidueScoreMatrix> {
    // SAFETY: ResidueScoreMatrix is plain data (ints, chars, floats and
    // pointers); all-zero is a valid value for read_score_matrix to fill.
    unsafe { Box::new(std::mem::zeroed()) }
}

/// BMEAN's consensus_POA call sequence; the MSA rows, or None.
pub fn boa_rows(
    m: &mut ResidueScoreMatrix,
    reads: &[Vec<u8>],
    max_seqs: usize,
) -> Option<Vec<Vec<u8>>> {
    let mut seq: *mut LpoSequence = std::ptr::null_mut();
    let mut nseq: c_int = 0;
    let mut name = *b"\0";
    let mut title = *b"\0";
    // SAFETY: CONSENT's use of the ABI: each read a malloc'ed NUL-terminated
    // copy; the array grown by create_seq; every LPO freed, the rows with
    // libc free.
    unsafe {
        for r in reads {
            if r.is_empty() || nseq as usize >= max_seqs {
                continue;
            }
            let tmp = libc::malloc(r.len() + 1) as *mut u8;
            std::ptr::copy_nonoverlapping(r.as_ptr(), tmp, r.len());
            *tmp.add(r.len()) = 0;
            let ok = create_seq(
                nseq,
                &mut seq,
                name.as_mut_ptr() as *mut c_char,
                title.as_mut_ptr() as *mut c_char,
                tmp as *mut c_char,
                DONT_SWITCH_CASE,
            );
            let mut sp = StringPtr {
                p: tmp as *mut c_char,
                last_alloc: 0,
            };
            if ok == 1 {
                nseq += 1;
            }
            stringptr_free(&mut sp);
        }
        if nseq == 0 {
            libc::free(seq as *mut libc::c_void);
            return None;
        }
        let mut input: Vec<*mut LpoSequence> = (0..nseq as usize).map(|i| seq.add(i)).collect();
        for &s in &input {
            initialize_seqs_as_lpo(1, s, m);
        }
        let lpo = buildup_progressive_lpo(
            nseq,
            input.as_mut_ptr(),
            m,
            0,
            0,
            std::ptr::null_mut(),
            Some(matrix_scoring_function),
            1,
            0,
        );
        let mut rows: *mut *mut c_char = std::ptr::null_mut();
        let mut block: *mut c_char = std::ptr::null_mut();
        let mut include: *mut c_char = std::ptr::null_mut();
        let mut out = None;
        if !lpo.is_null() {
            let ncol = xlate_lpo_to_al(
                lpo,
                m.nsymbol,
                m.symbol.as_mut_ptr(),
                0,
                b'-' as c_char,
                &mut rows,
                &mut block,
                &mut include,
            );
            let n = (*lpo).nsource_seq as usize;
            let mut v = Vec::new();
            for i in 0..n {
                v.push(
                    std::slice::from_raw_parts(*rows.add(i) as *const u8, ncol.max(0) as usize)
                        .to_vec(),
                );
            }
            out = Some(v);
            generate_lpo_bundles(lpo, 0.5);
        }
        libc::free(block as *mut libc::c_void);
        libc::free(include as *mut libc::c_void);
        libc::free(rows as *mut libc::c_void);
        for &s in &input {
            free_lpo_sequence(s, 0);
        }
        libc::free(seq as *mut libc::c_void);
        out
    }
}

pub fn boa(u: &mut Input, ctx: &Ctx) -> Result<(), String> {
    let path = ctx.tmp.join("matrix");
    let cpath = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let valid = u.chance(160);
    let text = if valid {
        seqshim::poa::matrix::boa_dna_matrix_text().into_bytes()
    } else if u.bool() {
        // A valid file with a few bytes changed, cut or appended.
        let mut t = seqshim::poa::matrix::boa_dna_matrix_text().into_bytes();
        for _ in 0..u.usize_in(1, 6) {
            let i = u.usize_in(0, t.len().saturating_sub(1));
            match u.u8() % 3 {
                0 if i < t.len() => t[i] = u.u8(),
                1 => t.truncate(i),
                _ => t.insert(i, u.u8()),
            }
        }
        t
    } else {
        u.rest(4096)
    };
    std::fs::write(&path, &text).map_err(|e| e.to_string())?;
    let mut m = matrix();
    // SAFETY: a NUL-terminated path and a writable matrix.
    let n = unsafe { read_score_matrix(cpath.as_ptr() as *mut c_char, &mut *m) };
    if valid && n <= 0 {
        return Err(format!("read_score_matrix refused the BOA DNA matrix: {n}"));
    }
    if n <= 0 {
        return Ok(());
    }
    let reads = window(u, !valid);
    let rows = boa_rows(&mut m, &reads, 150);
    if !valid {
        return Ok(());
    }
    // The batch with CONSENT's options must give the same MSA rows.
    let mut p = params();
    p.want_msa = 1;
    p.device = -1;
    let ptrs: Vec<*const c_char> = reads.iter().map(|r| r.as_ptr() as *const c_char).collect();
    let lens: Vec<u32> = reads.iter().map(|r| r.len() as u32).collect();
    // SAFETY: valid params, a live batch until destroyed, reads valid for
    // their lengths.
    unsafe {
        let mut b = std::ptr::null_mut();
        if seqshim_poa_batch_create(&p, 1, &mut b) as i32 != 0 {
            return Err("poa_batch_create refused the defaults".into());
        }
        let mut id = 0u64;
        let st = seqshim_poa_batch_add_window(
            b,
            reads.len() as u32,
            ptrs.as_ptr(),
            lens.as_ptr(),
            &mut id,
        ) as i32;
        let run = seqshim_poa_batch_run(b) as i32;
        let (mut nr, mut nc, mut rp) = (0u32, 0u32, std::ptr::null::<c_char>());
        let g = seqshim_poa_batch_get_msa(b, id, &mut nr, &mut nc, &mut rp) as i32;
        let batch_rows: Option<Vec<Vec<u8>>> = (st == 0 && run == 0 && g == 0).then(|| {
            (0..nr as usize)
                .map(|i| {
                    std::slice::from_raw_parts(rp.add(i * nc as usize) as *const u8, nc as usize)
                        .to_vec()
                })
                .collect()
        });
        seqshim_poa_batch_destroy(b);
        if batch_rows != rows {
            return Err(format!(
                "BOA ABI rows differ from the POA batch's ({} reads; add {st}, run {run}, msa {g}):\n  boa:   {:?}\n  batch: {:?}",
                reads.len(),
                rows.as_ref().map(|r| r
                    .iter()
                    .map(|x| String::from_utf8_lossy(x).into_owned())
                    .collect::<Vec<_>>()),
                batch_rows.as_ref().map(|r| r
                    .iter()
                    .map(|x| String::from_utf8_lossy(x).into_owned())
                    .collect::<Vec<_>>())
            ));
        }
    }
    Ok(())
}

pub fn params() -> seqshim_poa_params_t {
    let mut p = std::mem::MaybeUninit::<seqshim_poa_params_t>::zeroed();
    // SAFETY: writable params.
    unsafe {
        seqshim_poa_params_default(p.as_mut_ptr());
        p.assume_init()
    }
}

/// The batch lifecycle with hostile parameters, windows and calls, and its
/// consensus against `seqshim_poa_consensus_many` for the same windows.
pub fn batch(u: &mut Input, _ctx: &Ctx) -> Result<(), String> {
    let hostile = u.chance(64);
    let mut p = params();
    p.device = -1;
    p.consensus_mode = u.range(0, 1) as i32;
    p.align_mode = u.range(0, 1) as i32;
    p.want_msa = u.range(0, 1) as i32;
    p.max_seqs_per_window = if u.chance(32) {
        u.range(1, 20) as i32
    } else {
        150
    };
    if u.chance(64) {
        p.match_score = u.range(1, 10) as i32;
        p.mismatch = -(u.range(1, 12) as i32);
        p.gap_open = -(u.range(0, 12) as i32);
        p.gap_extend = -(u.range(0, 6) as i32);
        p.gap_trunc_len = u.range(1, 20) as i32;
    }
    if hostile {
        for f in [
            &mut p.match_score,
            &mut p.mismatch,
            &mut p.gap_open,
            &mut p.gap_extend,
            &mut p.gap_trunc_len,
            &mut p.align_mode,
            &mut p.consensus_mode,
            &mut p.max_seqs_per_window,
            &mut p.want_msa,
            &mut p.cpu_threads,
        ] {
            if u.chance(40) {
                *f = u.int_edgy(-20, 20);
            }
        }
    }
    let nwin = u.usize_in(0, 5);
    let wins: Vec<Vec<Vec<u8>>> = (0..nwin).map(|_| window(u, hostile)).collect();
    let mut b = std::ptr::null_mut();
    // SAFETY: valid params and out pointer; then a live batch until
    // destroyed; windows valid for their lengths or null with the API's
    // checks; every output writable.
    unsafe {
        let st = seqshim_poa_batch_create(&p, u.usize_in(0, 8), &mut b) as i32;
        if st != 0 {
            if !hostile {
                return Err(format!("poa_batch_create refused {st}"));
            }
            return Ok(());
        }
        let mut ids = Vec::new();
        for w in &wins {
            let ptrs: Vec<*const c_char> = w.iter().map(|r| r.as_ptr() as *const c_char).collect();
            let mut lens: Vec<u32> = w.iter().map(|r| r.len() as u32).collect();
            let mut ptr_arg = ptrs.as_ptr();
            if hostile && u.chance(16) && !lens.is_empty() {
                match u.u8() % 3 {
                    0 => ptr_arg = std::ptr::null(),
                    // Past the documented limit: refused before it is read.
                    1 => lens[0] = (1 << 20) + 1,
                    _ => {}
                }
            }
            let mut id = u64::MAX;
            let r = seqshim_poa_batch_add_window(b, w.len() as u32, ptr_arg, lens.as_ptr(), &mut id)
                as i32;
            ids.push((r, id));
        }
        if hostile && u.chance(64) {
            let mut c = std::ptr::null();
            let mut l = 0u32;
            let _ = seqshim_poa_batch_get_consensus(b, 0, &mut c, &mut l);
        }
        let run = seqshim_poa_batch_run(b) as i32;
        let mut got = Vec::new();
        for &(r, id) in &ids {
            if r != 0 {
                got.push(None);
                continue;
            }
            let ws = seqshim_poa_batch_window_status(b, id) as i32;
            let (mut c, mut l) = (std::ptr::null::<c_char>(), 0u32);
            let g = seqshim_poa_batch_get_consensus(b, id, &mut c, &mut l) as i32;
            let cons = if g == 0 {
                std::slice::from_raw_parts(c as *const u8, l as usize).to_vec()
            } else {
                Vec::new()
            };
            let (mut nr, mut nc, mut rp) = (0u32, 0u32, std::ptr::null::<c_char>());
            let _ = seqshim_poa_batch_get_msa(b, id, &mut nr, &mut nc, &mut rp);
            got.push(Some((ws, g, cons)));
        }
        let _ = seqshim_poa_batch_window_status(b, u64::MAX);
        let _ = seqshim_poa_batch_size(b);
        let mut res = Ok(());
        if !hostile && run != 0 {
            res = Err(format!("poa_batch_run returned {run}"));
        }
        if !hostile && res.is_ok() && !wins.is_empty() {
            // The same windows through the one-call API.
            let nseq: Vec<u32> = wins.iter().map(|w| w.len() as u32).collect();
            let seqp: Vec<Vec<*const c_char>> = wins
                .iter()
                .map(|w| w.iter().map(|r| r.as_ptr() as *const c_char).collect())
                .collect();
            let lenp: Vec<Vec<u32>> = wins
                .iter()
                .map(|w| w.iter().map(|r| r.len() as u32).collect())
                .collect();
            let seqpp: Vec<*const *const c_char> = seqp.iter().map(|v| v.as_ptr()).collect();
            let lenpp: Vec<*const u32> = lenp.iter().map(|v| v.as_ptr()).collect();
            let mut cons = vec![std::ptr::null_mut::<c_char>(); wins.len()];
            let mut lens = vec![0u32; wins.len()];
            let mut sts = vec![seqshim::ffi::status::SEQSHIM_OK; wins.len()];
            let r = seqshim_poa_consensus_many(
                &p,
                wins.len(),
                nseq.as_ptr(),
                seqpp.as_ptr(),
                lenpp.as_ptr(),
                cons.as_mut_ptr(),
                lens.as_mut_ptr(),
                sts.as_mut_ptr(),
            ) as i32;
            for i in 0..wins.len() {
                let one = if !cons[i].is_null() {
                    std::slice::from_raw_parts(cons[i] as *const u8, lens[i] as usize).to_vec()
                } else {
                    Vec::new()
                };
                if r == 0 {
                    if let Some((ws, g, c)) = &got[i] {
                        if *g != sts[i] as i32 || *c != one {
                            res = Err(format!(
                                "window {i}: batch status {ws}/{g} consensus {:?}; consensus_many {} {:?}",
                                String::from_utf8_lossy(c),
                                sts[i] as i32,
                                String::from_utf8_lossy(&one)
                            ));
                        }
                    }
                }
                libc::free(cons[i] as *mut libc::c_void);
            }
            if r != 0 {
                res = Err(format!("consensus_many returned {r}"));
            }
        }
        if u.chance(64) {
            let _ = seqshim_poa_batch_reset(b);
            let _ = seqshim_poa_batch_run(b);
        }
        seqshim_poa_batch_destroy(b);
        res
    }
}
