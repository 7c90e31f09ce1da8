//! Darwin GACT: `seqshim_gact_align_tile` against the tile batch and the
//! crate's CPU reference, and `seqshim_gact_extend` against the extension
//! batch and the crate's `extend`, with hostile scores, positions, lengths
//! and buffer capacities.

use crate::Ctx;
use crate::bytes::Input;
use seqshim::ffi::darwin::*;
use seqshim::gact::{self, ExtendOptions, Params, TileOptions};
use std::ffi::c_char;

fn scoring(u: &mut Input, hostile: bool) -> ([i32; 25], i32, i32) {
    let (m, x, n) = (
        u.range(1, 5) as i32,
        -(u.range(1, 6) as i32),
        -(u.range(0, 2) as i32),
    );
    let mut sub = [0i32; 25];
    for (i, s) in sub.iter_mut().enumerate() {
        let (r, c) = (i / 5, i % 5);
        *s = if r == 4 || c == 4 {
            n
        } else if r == c {
            m
        } else {
            x
        };
        if hostile && u.chance(16) {
            *s = u.int_edgy(-20, 20);
        }
    }
    let mut go = -(u.range(0, 8) as i32);
    let mut ge = -(u.range(0, 3) as i32);
    if hostile && u.chance(64) {
        go = u.int_edgy(-20, 20);
        ge = u.int_edgy(-20, 20);
    }
    (sub, go, ge)
}

pub fn gact(u: &mut Input, _ctx: &Ctx) -> Result<(), String> {
    let hostile = u.chance(64);
    let (sub, go, ge) = scoring(u, hostile);
    if u.bool() {
        tiles(u, hostile, &sub, go, ge)
    } else {
        extensions(u, hostile, &sub, go, ge)
    }
}

fn tiles(u: &mut Input, hostile: bool, sub: &[i32; 25], go: i32, ge: i32) -> Result<(), String> {
    let n = u.usize_in(1, 6);
    let mut seqs = Vec::new();
    for _ in 0..n {
        let rl = if hostile && u.chance(16) {
            u.usize_in(500, 530)
        } else {
            u.len(120, 511)
        };
        let raw = u.chance(32);
        let r = u.dna(rl, raw, false);
        let q = if u.bool() {
            u.mutate_dna(&r, 150)
        } else {
            let ql = u.len(120, 511);
            u.dna(ql, raw, false)
        };
        let q = if q.len() > 511 && !hostile {
            q[..511].to_vec()
        } else {
            q
        };
        seqs.push((r, q));
    }
    let reqs: Vec<seqshim_gact_tile_req_t> = seqs
        .iter()
        .map(|(r, q)| seqshim_gact_tile_req_t {
            ref_seq: r.as_ptr() as *const c_char,
            query_seq: q.as_ptr() as *const c_char,
            ref_len: r.len() as i64,
            query_len: q.len() as i64,
            query_pos: if hostile && u.chance(32) {
                u.int_edgy(-2, 600)
            } else {
                u.range(0, q.len() as i64) as i32
            },
            ref_pos: if hostile && u.chance(32) {
                u.int_edgy(-2, 600)
            } else {
                u.range(0, r.len() as i64) as i32
            },
            reverse: u.bool(),
            first: u.bool(),
            early_terminate: if u.chance(64) {
                u.int_edgy(-2, 600)
            } else {
                2000
            },
        })
        .collect();
    let stride = 1100u32;
    let mut singles = Vec::new();
    for (k, req) in reqs.iter().enumerate() {
        let cap = if hostile && u.chance(32) {
            u.range(0, 64) as u32
        } else {
            stride
        };
        let mut ops = vec![0u8; cap as usize];
        let mut out = seqshim_gact_tile_result_t {
            score: 0,
            max_i: 0,
            max_j: 0,
            ref_steps: 0,
            query_steps: 0,
            n_ops: 0,
        };
        // SAFETY: sequences valid for their lengths, 25 scores, ops for cap.
        let st = unsafe {
            seqshim_gact_align_tile(
                req.ref_seq,
                req.ref_len,
                req.query_seq,
                req.query_len,
                sub.as_ptr(),
                go,
                ge,
                req.query_pos,
                req.ref_pos,
                req.reverse,
                req.first,
                req.early_terminate,
                if cap == 0 {
                    std::ptr::null_mut()
                } else {
                    ops.as_mut_ptr()
                },
                cap,
                &mut out,
            )
        };
        if st == 0 && out.n_ops > cap {
            return Err(format!(
                "tile {k}: {} states written into room for {cap}",
                out.n_ops
            ));
        }
        // The crate's reference, when the call was a valid one.
        let reference = gact::align_tile(
            &seqs[k].0,
            &seqs[k].1,
            &Params {
                sub_mat: *sub,
                gap_open: go,
                gap_extend: ge,
            },
            TileOptions {
                ref_pos: req.ref_pos,
                query_pos: req.query_pos,
                reverse: req.reverse,
                first: req.first,
                early_terminate: req.early_terminate,
            },
        );
        if st == 0 {
            match &reference {
                Ok(r) if cap == stride => {
                    let got = (
                        out.score,
                        out.max_i as usize,
                        out.max_j as usize,
                        out.ref_steps as usize,
                        out.query_steps as usize,
                        ops[..out.n_ops as usize].to_vec(),
                    );
                    let want = (
                        r.score,
                        r.max_i,
                        r.max_j,
                        r.ref_steps,
                        r.query_steps,
                        r.ops.clone(),
                    );
                    if got != want {
                        return Err(format!(
                            "tile {k} ({} x {}): align_tile {:?} vs gact::align_tile {:?}",
                            seqs[k].0.len(),
                            seqs[k].1.len(),
                            (got.0, got.1, got.2, got.3, got.4, got.5.len()),
                            (want.0, want.1, want.2, want.3, want.4, want.5.len())
                        ));
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(format!(
                        "tile {k}: the export accepted what the crate refuses ({e:?})"
                    ));
                }
            }
        }
        singles.push((st, out, ops));
    }
    let mut arena = vec![0u8; stride as usize * reqs.len()];
    let mut results = vec![
        seqshim_gact_tile_result_t {
            score: 0,
            max_i: 0,
            max_j: 0,
            ref_steps: 0,
            query_steps: 0,
            n_ops: 0
        };
        reqs.len()
    ];
    // SAFETY: n requests, an arena of n * stride, n results.
    let st = unsafe {
        seqshim_gact_align_tile_batch(
            reqs.as_ptr(),
            reqs.len() as u32,
            sub.as_ptr(),
            go,
            ge,
            arena.as_mut_ptr(),
            stride,
            results.as_mut_ptr(),
        )
    };
    for (k, (sst, sout, sops)) in singles.iter().enumerate() {
        if *sst != 0 || sops.len() != stride as usize {
            continue;
        }
        let b = &results[k];
        let bops = &arena[k * stride as usize..k * stride as usize + b.n_ops as usize];
        if (
            b.score,
            b.max_i,
            b.max_j,
            b.ref_steps,
            b.query_steps,
            b.n_ops,
        ) != (
            sout.score,
            sout.max_i,
            sout.max_j,
            sout.ref_steps,
            sout.query_steps,
            sout.n_ops,
        ) || bops != &sops[..sout.n_ops as usize]
        {
            return Err(format!(
                "tile {k}: batch (status {st}) differs from the single call"
            ));
        }
    }
    let _ = unsafe {
        // SAFETY: null outputs are allowed.
        seqshim_gact_tile_routing(std::ptr::null_mut(), std::ptr::null_mut())
    };
    Ok(())
}

fn extensions(
    u: &mut Input,
    hostile: bool,
    sub: &[i32; 25],
    go: i32,
    ge: i32,
) -> Result<(), String> {
    let tile = if hostile && u.chance(32) {
        u.int_edgy(0, 600)
    } else {
        u.range(1, 511) as i32
    };
    let overlap = if hostile && u.chance(32) {
        u.int_edgy(-1, 600)
    } else {
        u.range(0, (tile.max(1) - 1) as i64) as i32
    };
    let n = u.usize_in(1, 3);
    let mut cases = Vec::new();
    for _ in 0..n {
        let rl = u.len(300, 3000);
        let raw = u.chance(32);
        let r = u.dna(rl, raw, true);
        let q = if u.bool() {
            u.mutate_dna(&r, 120)
        } else {
            let ql = u.len(300, 3000);
            u.dna(ql, raw, true)
        };
        // A seed may lie past the length (Darwin's padded buffers): the
        // buffers always hold up to the seed.
        let (mut rbuf, mut qbuf) = (r.clone(), q.clone());
        let rp = u.range(0, r.len() as i64 + 20) as i32;
        let qp = u.range(0, q.len() as i64 + 20) as i32;
        rbuf.resize(rbuf.len().max(rp as usize), b'A');
        qbuf.resize(qbuf.len().max(qp as usize), b'C');
        cases.push((rbuf, qbuf, r.len() as u32, q.len() as u32, rp, qp));
    }
    let threshold = if hostile && u.chance(32) {
        u.int_edgy(-1, 5)
    } else {
        0
    };
    let mut singles = Vec::new();
    for (k, (rbuf, qbuf, rl, ql, rp, qp)) in cases.iter().enumerate() {
        let need = (*rl as usize).max(*rp as usize) + (*ql as usize).max(*qp as usize);
        let cap = if hostile && u.chance(32) {
            u.usize_in(0, need)
        } else {
            need
        };
        let mut ar = vec![0 as c_char; cap];
        let mut aq = vec![0 as c_char; cap];
        let mut out = seqshim_gact_aln_t {
            ref_start: 0,
            query_start: 0,
            aligned_ref_len: 0,
            aligned_query_len: 0,
            score: 0,
            n_cols: 0,
        };
        // SAFETY: the buffers hold max(len, pos) bytes; outputs hold cap.
        let st = unsafe {
            seqshim_gact_extend(
                rbuf.as_ptr() as *const c_char,
                qbuf.as_ptr() as *const c_char,
                sub.as_ptr(),
                go,
                ge,
                tile,
                overlap,
                *rp,
                *qp,
                *rl,
                *ql,
                threshold,
                ar.as_mut_ptr(),
                aq.as_mut_ptr(),
                cap as u32,
                &mut out,
            )
        };
        if st == 0 {
            if out.n_cols as usize > cap {
                return Err(format!(
                    "extension {k}: {} columns written into room for {cap}",
                    out.n_cols
                ));
            }
            let reference = gact::extend(
                rbuf,
                qbuf,
                &Params {
                    sub_mat: *sub,
                    gap_open: go,
                    gap_extend: ge,
                },
                ExtendOptions {
                    tile_size: tile,
                    tile_overlap: overlap,
                    ref_pos: *rp,
                    query_pos: *qp,
                    ref_len: Some(*rl as usize),
                    query_len: Some(*ql as usize),
                },
            );
            match reference {
                Ok(a) => {
                    let n = out.n_cols as usize;
                    let got_r: Vec<u8> = ar[..n].iter().map(|&c| c as u8).collect();
                    let got_q: Vec<u8> = aq[..n].iter().map(|&c| c as u8).collect();
                    if (
                        out.ref_start as usize,
                        out.query_start as usize,
                        out.aligned_ref_len as usize,
                        out.aligned_query_len as usize,
                        out.score,
                    ) != (
                        a.ref_start,
                        a.query_start,
                        a.aligned_ref_len,
                        a.aligned_query_len,
                        a.score,
                    ) || got_r != a.aligned_ref
                        || got_q != a.aligned_query
                    {
                        return Err(format!(
                            "extension {k} ({} x {}, tile {tile}/{overlap}): export differs from gact::extend",
                            rl, ql
                        ));
                    }
                }
                Err(e) => {
                    return Err(format!(
                        "extension {k}: the export accepted what the crate refuses ({e:?})"
                    ));
                }
            }
        }
        singles.push((st, out, ar, aq, cap == need));
    }
    let mut bufs: Vec<(Vec<c_char>, Vec<c_char>)> = cases
        .iter()
        .map(|c| {
            let need = (c.2 as usize).max(c.4 as usize) + (c.3 as usize).max(c.5 as usize);
            (vec![0; need], vec![0; need])
        })
        .collect();
    let reqs: Vec<seqshim_gact_extend_req_t> = cases
        .iter()
        .zip(bufs.iter_mut())
        .map(|(c, b)| seqshim_gact_extend_req_t {
            ref_str: c.0.as_ptr() as *const c_char,
            query_str: c.1.as_ptr() as *const c_char,
            ref_length: c.2,
            query_length: c.3,
            ref_pos: c.4,
            query_pos: c.5,
            aligned_ref: b.0.as_mut_ptr(),
            aligned_query: b.1.as_mut_ptr(),
            cap: b.0.len() as u32,
        })
        .collect();
    let mut outs = vec![
        seqshim_gact_aln_t {
            ref_start: 0,
            query_start: 0,
            aligned_ref_len: 0,
            aligned_query_len: 0,
            score: 0,
            n_cols: 0
        };
        reqs.len()
    ];
    let mut status = vec![0i32; reqs.len()];
    // SAFETY: n requests with buffers as for the single calls.
    let bst = unsafe {
        seqshim_gact_extend_batch(
            reqs.as_ptr(),
            reqs.len() as u32,
            sub.as_ptr(),
            go,
            ge,
            tile,
            overlap,
            threshold,
            outs.as_mut_ptr(),
            status.as_mut_ptr(),
        )
    };
    // A call-level error (the threshold, a null argument) leaves the
    // per-request statuses unwritten; every single call must have failed.
    if bst != 0 && singles.iter().all(|s| s.0 == bst) {
        return Ok(());
    }
    for (k, (st, out, ar, aq, full)) in singles.iter().enumerate() {
        if !*full {
            continue;
        }
        let n = out.n_cols as usize;
        let same = status[k] == *st
            && (*st != 0
                || ((
                    outs[k].ref_start,
                    outs[k].query_start,
                    outs[k].aligned_ref_len,
                    outs[k].aligned_query_len,
                    outs[k].score,
                    outs[k].n_cols,
                ) == (
                    out.ref_start,
                    out.query_start,
                    out.aligned_ref_len,
                    out.aligned_query_len,
                    out.score,
                    out.n_cols,
                ) && bufs[k].0[..n] == ar[..n]
                    && bufs[k].1[..n] == aq[..n]));
        if !same {
            return Err(format!(
                "extension {k}: batch status {} vs single {st}, or results differ",
                status[k]
            ));
        }
    }
    Ok(())
}
