//! f5c ABEA: `seqshim_f5c_align` (one read) against `seqshim_abea_align_batch`
//! (CPU-forced and routed) and the batch lifecycle on the same reads, which
//! must agree pair for pair; events, models and scalings include NaN, ±inf,
//! zero and extreme values.

use crate::Ctx;
use crate::bytes::Input;
use seqshim::abea::{AlignedPair, Event, Model, Scalings};
use seqshim::ffi::f5c::*;
use std::ffi::c_char;

pub fn models(u: &mut Input, k: u32, hostile: bool) -> Vec<Model> {
    let n = 1usize << (2 * k);
    let base = u.range(0, 1000) as f32 / 10.0;
    (0..n)
        .map(|i| {
            let stdv = if hostile && u.chance(8) {
                u.f32_edgy(0.5, 4.0)
            } else {
                1.0 + (i % 7) as f32 * 0.3
            };
            Model {
                level_mean: if hostile && u.chance(8) {
                    u.f32_edgy(50.0, 130.0)
                } else {
                    60.0 + base * 0.1 + ((i * 37) % 70) as f32
                },
                level_stdv: stdv,
                level_log_stdv: (stdv as f64).ln() as f32,
            }
        })
        .collect()
}

pub struct Read {
    pub seq: Vec<u8>,
    pub events: Vec<Event>,
    pub scaling: Scalings,
}

pub fn read(u: &mut Input, k: u32, models: &[Model], hostile: bool) -> Read {
    let len = u.len(60, 600);
    let raw = hostile && u.chance(32);
    let seq = u.dna(len, raw, false);
    let n_ev = match u.u8() % 8 {
        0 => u.usize_in(0, 3),
        1 => u.usize_in(0, 4 * len + 10),
        _ => (len as f64 * (1.0 + u.range(0, 200) as f64 / 100.0)) as usize,
    };
    let mut events = Vec::with_capacity(n_ev);
    let nk = len.saturating_sub(k as usize - 1).max(1);
    let mask = (1usize << (2 * k)) - 1;
    for e in 0..n_ev {
        let pos = (e * nk / n_ev.max(1)).min(nk - 1);
        let rank = seq
            .get(pos..pos + k as usize)
            .map(|w| {
                w.iter().fold(0usize, |r, &c| {
                    (r << 2)
                        | match c {
                            b'C' => 1,
                            b'G' => 2,
                            b'T' => 3,
                            _ => 0,
                        }
                }) & mask
            })
            .unwrap_or(0);
        let mean = if hostile && u.chance(16) {
            u.f32_edgy(40.0, 140.0)
        } else {
            models[rank].level_mean + (u.u8() as f32 - 128.0) / 64.0
        };
        events.push(Event {
            start: e as u64 * 10,
            length: 10.0,
            mean,
            stdv: 1.0,
        });
    }
    let scaling = if hostile && u.chance(64) {
        Scalings {
            scale: u.f32_edgy(0.5, 2.0),
            shift: u.f32_edgy(-20.0, 20.0),
            var: u.f32_edgy(0.5, 2.0),
            log_var: 0.0,
        }
    } else {
        Scalings {
            scale: 1.0,
            shift: 0.0,
            var: 1.0,
            log_var: 0.0,
        }
    };
    Read {
        seq,
        events,
        scaling,
    }
}

pub fn table(r: &Read) -> EventTable {
    EventTable {
        n: r.events.len(),
        start: 0,
        end: r.events.len(),
        event: r.events.as_ptr() as *mut Event,
    }
}

fn key(p: &[AlignedPair]) -> Vec<(i32, i32)> {
    p.iter().map(|x| (x.ref_pos, x.read_pos)).collect()
}

pub fn abea(u: &mut Input, _ctx: &Ctx) -> Result<(), String> {
    let hostile = u.chance(96);
    let k = if u.chance(8) { 9 } else { u.range(1, 6) as u32 };
    let m = models(u, k, hostile);
    let nreads = u.usize_in(0, 6);
    let reads: Vec<Read> = (0..nreads).map(|_| read(u, k, &m, hostile)).collect();
    let k_arg = if hostile && u.chance(32) {
        u.u32() % 12
    } else {
        k
    };
    // One read at a time.
    let mut single = Vec::new();
    for r in &reads {
        let mut out = vec![AlignedPair::default(); r.events.len() + r.seq.len()];
        if k_arg > k && k_arg <= 9 {
            // A k larger than the models cover would read past them: a call
            // no client may make.
            single.push(Vec::new());
            continue;
        }
        // SAFETY: sequence, events and models valid for their lengths
        // (4^k models; k_arg is k, smaller, or outside 1..=9, which the
        // library refuses before reading); out has f5c's capacity.
        let n = unsafe {
            let _ = seqshim_f5c_estimate_scalings_using_mom(
                r.seq.as_ptr() as *mut c_char,
                r.seq.len() as i32,
                m.as_ptr() as *mut Model,
                k_arg,
                table(r),
            );
            seqshim_f5c_align(
                out.as_mut_ptr(),
                r.seq.as_ptr() as *mut c_char,
                r.seq.len() as i32,
                table(r),
                m.as_ptr() as *mut Model,
                k_arg,
                r.scaling,
                4000.0,
            )
        };
        if n < 0 || n as usize > out.len() {
            return Err(format!("f5c_align returned {n} for capacity {}", out.len()));
        }
        out.truncate(n as usize);
        single.push(out);
    }
    if k_arg != k {
        return Ok(());
    }
    // The whole batch, CPU-forced and routed.
    for flags in [SEQSHIM_ABEA_FORCE_CPU, 0] {
        let mut opt = std::mem::MaybeUninit::<AbeaBatchOpt>::zeroed();
        // SAFETY: writable options.
        let mut opt = unsafe {
            seqshim_abea_batch_opt_init(opt.as_mut_ptr());
            opt.assume_init()
        };
        opt.models = m.as_ptr();
        opt.kmer_size = k;
        opt.flags = flags;
        if hostile && u.chance(64) {
            opt.skip_epk = u.f32_edgy(1.0, 20.0);
            opt.max_lf = u.f32_edgy(0.5, 5.0);
        }
        let seqs: Vec<*mut c_char> = reads
            .iter()
            .map(|r| r.seq.as_ptr() as *mut c_char)
            .collect();
        let lens: Vec<i32> = reads.iter().map(|r| r.seq.len() as i32).collect();
        let tabs: Vec<EventTable> = reads.iter().map(table).collect();
        let scal: Vec<Scalings> = reads.iter().map(|r| r.scaling).collect();
        let mut outs: Vec<Vec<AlignedPair>> = reads
            .iter()
            .map(|r| vec![AlignedPair::default(); r.events.len() + r.seq.len() + 1])
            .collect();
        let outp: Vec<*mut AlignedPair> = outs.iter_mut().map(|o| o.as_mut_ptr()).collect();
        let mut counts = vec![-7i32; reads.len()];
        // SAFETY: every array holds n_reads elements, each valid as the
        // single call's.
        let st = unsafe {
            seqshim_abea_align_batch(
                &opt,
                reads.len() as i32,
                seqs.as_ptr(),
                lens.as_ptr(),
                tabs.as_ptr(),
                scal.as_ptr(),
                outp.as_ptr(),
                counts.as_mut_ptr(),
            )
        } as i32;
        let thresholds_default = opt.skip_epk == 15.0 && opt.max_lf == 3.0;
        if st != 0 {
            if thresholds_default {
                return Err(format!("align_batch (flags {flags}) returned {st}"));
            }
            continue;
        }
        if !thresholds_default {
            continue;
        }
        for (i, s) in single.iter().enumerate() {
            let got = &outs[i][..counts[i].max(0) as usize];
            if counts[i] as usize != s.len() || key(got) != key(s) {
                return Err(format!(
                    "read {i} ({} bases, {} events, k {k}): align_batch (flags {flags}) gave {} pairs, f5c_align {}",
                    reads[i].seq.len(),
                    reads[i].events.len(),
                    counts[i],
                    s.len()
                ));
            }
        }
    }
    // The lifecycle API.
    let mut opt = std::mem::MaybeUninit::<AbeaBatchOpt>::zeroed();
    // SAFETY: writable options, then a live batch until destroyed; inputs
    // valid for their lengths.
    unsafe {
        seqshim_abea_batch_opt_init(opt.as_mut_ptr());
        let mut opt = opt.assume_init();
        opt.models = m.as_ptr();
        opt.kmer_size = k;
        let mut b = std::ptr::null_mut();
        let st = seqshim_abea_batch_create(&opt, reads.len(), &mut b) as i32;
        if st != 0 {
            return Err(format!("abea_batch_create returned {st}"));
        }
        for r in &reads {
            let mut idx = 0usize;
            let st = seqshim_abea_batch_add(
                b,
                r.seq.as_ptr() as *const c_char,
                r.seq.len() as i32,
                r.events.as_ptr(),
                r.events.len(),
                r.scaling,
                &mut idx,
            ) as i32;
            if st != 0 {
                seqshim_abea_batch_destroy(b);
                return Err(format!("abea_batch_add returned {st}"));
            }
        }
        let st = seqshim_abea_batch_run(b) as i32;
        let mut res = if st != 0 {
            Err(format!("abea_batch_run returned {st}"))
        } else {
            Ok(())
        };
        for (i, s) in single.iter().enumerate() {
            if res.is_err() {
                break;
            }
            let (mut p, mut n) = (std::ptr::null::<AlignedPair>(), 0usize);
            let st = seqshim_abea_batch_result(b, i, &mut p, &mut n) as i32;
            let got = if st == 0 && n > 0 {
                std::slice::from_raw_parts(p, n).to_vec()
            } else {
                Vec::new()
            };
            if st != 0 || key(&got) != key(s) {
                res = Err(format!(
                    "lifecycle read {i}: status {st}, {n} pairs vs f5c_align {}",
                    s.len()
                ));
            }
        }
        let _ =
            seqshim_abea_batch_result(b, reads.len(), std::ptr::null_mut(), std::ptr::null_mut());
        let _ = seqshim_abea_batch_size(b);
        let _ = seqshim_abea_batch_reset(b);
        seqshim_abea_batch_destroy(b);
        res
    }
}
