//! CUDA-EC: `seqshim_ec_correct_file` on temporary files of random bytes and
//! of well-formed FASTA/FASTQ with random parameters, and the spectrum API
//! (`new`/`add`/`finalize`/`contains`/`export_v1`/`correct_batch`) on the
//! same reads, whose corrected reads must equal the file's output; in
//! exact-v1 mode also v1's `runTest` on the exported Bloom table.

use crate::Ctx;
use crate::bytes::Input;
use seqshim::ffi::cudaec::*;
use std::ffi::{CString, c_char};

pub fn params(u: &mut Input, v1: bool, read_len: usize, hostile: bool) -> seqshim_ec_params {
    let mut p = std::mem::MaybeUninit::<seqshim_ec_params>::zeroed();
    // SAFETY: writable params.
    let mut p = unsafe {
        seqshim_ec_params_default(p.as_mut_ptr(), if v1 { 1 } else { 0 });
        p.assume_init()
    };
    if v1 {
        p.read_len = read_len as u16;
        p.k = u.range(8, read_len.clamp(8, 24) as i64) as u16;
    } else {
        p.k = u.range(8, 24) as u16;
    }
    p.min_mult = u.range(1, 8) as u16;
    p.num_search = u.range(1, 2) as u16;
    if hostile {
        if u.chance(64) {
            p.k = u.u16();
        }
        if u.chance(32) {
            p.min_votes = u.u16() as i16;
        }
        if u.chance(32) {
            p.max_trim = u.u16();
        }
        if u.chance(32) {
            p.num_search = u.u16();
        }
        if u.chance(32) {
            p.max_mods = u.u16() as i16;
        }
        if u.chance(32) {
            p.read_len = u.u16() % 300;
        }
        if u.chance(16) {
            p.reserved = u.u32();
        }
        if u.chance(16) {
            p.flags = u.u32();
        }
        if u.chance(16) {
            p.size = u.u32();
        }
        if u.chance(16) {
            p.max_rounds = u.u32() % 100_000;
        }
    }
    p
}

/// Reads from one genome with errors: fixed length for exact-v1.
pub fn reads(u: &mut Input, fixed: Option<usize>) -> Vec<Vec<u8>> {
    let glen = u.usize_in(50, 1500);
    let genome = u.dna(glen, false, true);
    let n = u.usize_in(0, 120);
    (0..n)
        .map(|_| {
            let len = fixed.unwrap_or_else(|| u.usize_in(1, 150)).min(glen);
            let start = u.usize_in(0, glen - len);
            let mut r = genome[start..start + len].to_vec();
            for b in r.iter_mut() {
                if u.chance(4) {
                    *b = b"ACGTN"[u.usize_in(0, 4)];
                }
            }
            r
        })
        .collect()
}

fn fasta(reads: &[Vec<u8>], fastq: bool) -> Vec<u8> {
    let mut t = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        if fastq {
            t.extend_from_slice(format!("@r{i}\n").as_bytes());
            t.extend_from_slice(r);
            t.extend_from_slice(b"\n+\n");
            t.extend(std::iter::repeat_n(b'I', r.len()));
            t.push(b'\n');
        } else {
            t.extend_from_slice(format!(">r{i}\n").as_bytes());
            t.extend_from_slice(r);
            t.push(b'\n');
        }
    }
    t
}

/// The sequence lines of a single-line FASTA or a FASTQ (a read trimmed to
/// nothing keeps its empty line).
fn sequences(text: &[u8], fastq: bool) -> Vec<Vec<u8>> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    if fastq {
        lines
            .chunks(4)
            .filter_map(|c| c.get(1).map(|l| l.to_vec()))
            .collect()
    } else {
        lines
            .windows(2)
            .filter(|w| w[0].first() == Some(&b'>'))
            .map(|w| w[1].to_vec())
            .collect()
    }
}

fn correct_file(
    ctx: &Ctx,
    input: &[u8],
    p: &seqshim_ec_params,
    with_discard: bool,
    ext: &str,
) -> (i32, Vec<u8>, seqshim_ec_stats) {
    let inp = ctx.tmp.join(format!("in.{ext}"));
    let fixed = ctx.tmp.join(format!("fixed.{ext}"));
    let discard = ctx.tmp.join(format!("discard.{ext}"));
    let _ = std::fs::remove_file(&fixed);
    std::fs::write(&inp, input).expect("write EC input");
    let c = |p: &std::path::Path| CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    let (ci, cf, cd) = (c(&inp), c(&fixed), c(&discard));
    let mut stats = seqshim_ec_stats {
        reads: 0,
        unchanged: 0,
        fixed: 0,
        trimmed: 0,
        discarded: 0,
        solid_kmers: 0,
        watchdog_hits: 0,
    };
    // SAFETY: NUL-terminated paths, readable params, writable stats.
    let st = unsafe {
        seqshim_ec_correct_file(
            ci.as_ptr(),
            cf.as_ptr(),
            if with_discard {
                cd.as_ptr()
            } else {
                std::ptr::null()
            },
            p,
            &mut stats,
        )
    } as i32;
    if st != 0 {
        // SAFETY: returns a NUL-terminated string or null.
        let _ = unsafe { seqshim_ec_last_error() };
    }
    (st, std::fs::read(&fixed).unwrap_or_default(), stats)
}

/// v1's `runTest` (`seqshim_cudaec_run_test`) on the exported Bloom table:
/// hostile parameters, a short table, null pointers and any status bytes
/// must leave the host running, and a refused null pointer the reads
/// unchanged; with one kernel, the records after the first do not depend on
/// their order.
fn run_test(
    u: &mut Input,
    p: &seqshim_ec_params,
    table: &[u8],
    num_tuples: i32,
    rs: &[Vec<u8>],
    read_len: usize,
    hostile: bool,
) -> Result<(), String> {
    let mut param = seqshim_cudaec_Param {
        doTrim: 1,
        doDeletion: 0,
        doInsertion: 0,
        maxMods: p.max_mods,
        minVotes: p.min_votes,
        maxTrim: p.max_trim as i16,
        numTuples: num_tuples,
        numSearch: p.num_search as i16,
        tupleSize: p.k as i16,
        NUM_OF_READS: 0,
        readLen: read_len as i16,
    };
    let mut records = Vec::new();
    for r in rs.iter().filter(|r| r.len() == read_len) {
        records.extend_from_slice(r);
        records.extend_from_slice(&[b'D', read_len as u8]);
    }
    let n = records.len() / (read_len + 2);
    param.NUM_OF_READS = n as i32;
    let mut table_size = table.len() as u32;
    let (mut null_param, mut null_table, mut null_reads) = (false, false, false);
    if hostile {
        match u.u8() % 8 {
            0 => param.minVotes = u.u16() as i16,
            1 => param.maxMods = u.u16() as i16 % 64,
            2 => param.numSearch = u.u16() as i16,
            3 => param.tupleSize = u.u16() as i16,
            4 => param.numTuples = u.i32(),
            5 => table_size = u.u32() % (table_size + 1),
            6 => param.maxTrim = u.u16() as i16,
            _ => param.doTrim = u.u16() as i16,
        }
        (null_param, null_table, null_reads) = (u.chance(16), u.chance(16), u.chance(16));
        // Cases that vote to max_mods on every read cost a round each.
        let keep = n.min(8);
        records.truncate(keep * (read_len + 2));
        param.NUM_OF_READS = keep as i32;
        for b in records.iter_mut().skip(read_len).step_by(read_len + 2) {
            *b = u.u8();
        }
    }
    if param.numSearch != 1 {
        // The pair kernel probes the table about (L-k+1)(k-1)k*9/2 times a
        // round (fuzz/README.md, "Slow but not open"): a few records show
        // what it does to the host.
        let keep = (param.NUM_OF_READS as usize).min(4);
        records.truncate(keep * (read_len + 2));
        param.NUM_OF_READS = keep as i32;
    }
    let before = records.clone();
    let call = |param: &mut seqshim_cudaec_Param, records: &mut [u8], nulls: (bool, bool, bool)| {
        // SAFETY: the param is readable, the table valid for `table_size`
        // (at most its length) bytes, the records for NUM_OF_READS records
        // of read_len + 2 bytes; null pointers where asked.
        unsafe {
            seqshim_cudaec_run_test(
                if nulls.1 {
                    std::ptr::null_mut()
                } else {
                    table.as_ptr().cast_mut()
                },
                if nulls.0 { std::ptr::null_mut() } else { param },
                if nulls.2 {
                    std::ptr::null_mut()
                } else {
                    records.as_mut_ptr().cast()
                },
                table_size,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                0,
                std::ptr::null_mut(),
            )
        }
    };
    let mut all = records.clone();
    call(&mut param, &mut all, (null_param, null_table, null_reads));
    // A null pointer with nothing to read through it is an empty view: a
    // table of no bytes reads as all zeros, and the call runs.
    if null_param || (null_table && table_size > 0) || (null_reads && !records.is_empty()) {
        return if all == before {
            Ok(())
        } else {
            Err("seqshim_cudaec_run_test changed the reads of a call with a null pointer".into())
        };
    }
    if hostile || param.numSearch != 1 || n < 2 {
        return Ok(());
    }
    // v1's launch runs idle threads' passes on record 0 (a pass count that
    // depends on the number of records), and its second kernel does the
    // same to the first unfixed record; with one kernel, every other record
    // is corrected on its own: the same records with all but the first in
    // reverse order give the same records.
    let stride = read_len + 2;
    let mut reordered = records[..stride].to_vec();
    for rec in records[stride..].chunks(stride).rev() {
        reordered.extend_from_slice(rec);
    }
    call(&mut param, &mut reordered, (false, false, false));
    let back = |i: usize| if i == 0 { 0 } else { n - i };
    if let Some(i) = (0..n).find(|&i| {
        all[i * stride..(i + 1) * stride] != reordered[back(i) * stride..(back(i) + 1) * stride]
    }) {
        let j = back(i);
        return Err(format!(
            "seqshim_cudaec_run_test on {n} records depends on their order at record {i}: {:?} vs {:?}",
            String::from_utf8_lossy(&all[i * stride..(i + 1) * stride]),
            String::from_utf8_lossy(&reordered[j * stride..(j + 1) * stride])
        ));
    }
    Ok(())
}

pub fn ec(u: &mut Input, ctx: &Ctx) -> Result<(), String> {
    let hostile = u.chance(64);
    let v1 = u.bool();
    let read_len = u.usize_in(20, 60);
    let p = params(u, v1, read_len, hostile);
    let debug = std::env::var_os("SEQSHIM_FUZZ_DEBUG").is_some();
    if debug {
        eprintln!("ec: hostile {hostile} v1 {v1} read_len {read_len} {p:?}");
    }
    if u.chance(48) {
        // Random or damaged file contents.
        let mut data = if u.bool() {
            u.rest(8192)
        } else {
            let r = reads(u, v1.then_some(read_len));
            let mut t = fasta(&r, !v1 && u.bool());
            for _ in 0..u.usize_in(1, 8) {
                if t.is_empty() {
                    break;
                }
                let i = u.usize_in(0, t.len() - 1);
                match u.u8() % 3 {
                    0 => t[i] = u.u8(),
                    1 => t.truncate(i),
                    _ => t.insert(i, u.u8()),
                }
            }
            t
        };
        if u.chance(16) {
            // gzip magic in front of garbage.
            data.splice(0..0, [0x1f, 0x8b, 8, 0]);
        }
        let _ = correct_file(
            ctx,
            &data,
            &p,
            u.bool() || v1,
            if u.bool() { "fa" } else { "fq" },
        );
        return Ok(());
    }
    let rs = reads(u, v1.then_some(read_len));
    let fastq = !v1 && u.bool();
    if debug {
        let bases: usize = rs.iter().map(Vec::len).sum();
        eprintln!("ec: {} reads, {bases} bases, fastq {fastq}", rs.len());
    }
    let t0 = std::time::Instant::now();
    let (st, out, stats) = correct_file(
        ctx,
        &fasta(&rs, fastq),
        &p,
        true,
        if fastq { "fq" } else { "fa" },
    );
    if debug {
        eprintln!("ec: correct_file {st} in {:?}: {stats:?}", t0.elapsed());
    }
    let t0 = std::time::Instant::now();
    // The spectrum API on the same reads, as one batch.
    let stride = rs.iter().map(|r| r.len()).max().unwrap_or(0).max(1);
    let mut buf = vec![0u8; stride * rs.len()];
    let mut lens: Vec<u32> = rs.iter().map(|r| r.len() as u32).collect();
    for (i, r) in rs.iter().enumerate() {
        buf[i * stride..i * stride + r.len()].copy_from_slice(r);
    }
    let mut s = std::ptr::null_mut();
    // SAFETY: readable params; a live spectrum until freed; reads valid for
    // lens[i] <= stride bytes; outputs for n reads.
    unsafe {
        let sn = seqshim_ec_spectrum_new(&p, rs.len() as u64, &mut s) as i32;
        if sn != 0 {
            if st == 0 && !hostile {
                return Err(format!(
                    "correct_file accepted parameters spectrum_new refuses ({sn})"
                ));
            }
            return Ok(());
        }
        let add = seqshim_ec_spectrum_add(
            s,
            buf.as_ptr() as *const c_char,
            stride,
            lens.as_ptr(),
            rs.len(),
        ) as i32;
        let fin = seqshim_ec_spectrum_finalize(s) as i32;
        let _ = seqshim_ec_spectrum_num_solid(s);
        if p.k as usize <= stride {
            let _ = seqshim_ec_spectrum_contains(s, buf.as_ptr() as *const c_char);
        }
        let (mut t, mut ts, mut nt) = (std::ptr::null::<u8>(), 0u32, 0i32);
        let exported = seqshim_ec_spectrum_export_v1(s, &mut t, &mut ts, &mut nt) as i32;
        if v1 && exported == 0 && !t.is_null() {
            // SAFETY: the exported table lives as long as the spectrum.
            let table = std::slice::from_raw_parts(t, ts as usize);
            run_test(u, &p, table, nt, &rs, read_len, hostile)?;
        }
        let mut status = vec![0u8; rs.len()];
        let mut trim = vec![0u32; rs.len()];
        let cb = seqshim_ec_correct_batch(
            s,
            &p,
            buf.as_mut_ptr() as *mut c_char,
            stride,
            lens.as_mut_ptr(),
            rs.len(),
            status.as_mut_ptr(),
            trim.as_mut_ptr(),
        ) as i32;
        seqshim_ec_spectrum_free(s);
        if debug {
            eprintln!("ec: spectrum API {cb} in {:?}", t0.elapsed());
        }
        if hostile || st != 0 {
            return Ok(());
        }
        if add != 0 || fin != 0 || cb != 0 {
            return Err(format!(
                "correct_file succeeded where the spectrum API failed: add {add} finalize {fin} correct {cb}"
            ));
        }
        let kept: Vec<Vec<u8>> = (0..rs.len())
            .filter(|&i| status[i] != 3)
            .map(|i| buf[i * stride..i * stride + lens[i] as usize].to_vec())
            .collect();
        let file_seqs = sequences(&out, fastq);
        if kept != file_seqs {
            let i = kept
                .iter()
                .zip(&file_seqs)
                .position(|(a, b)| a != b)
                .unwrap_or(kept.len().min(file_seqs.len()));
            return Err(format!(
                "{} mode, k {}: correct_file kept {} reads, correct_batch {}; first difference at {i}: file {:?} batch {:?}",
                if v1 { "exact-v1" } else { "default" },
                p.k,
                file_seqs.len(),
                kept.len(),
                file_seqs
                    .get(i)
                    .map(|x| String::from_utf8_lossy(x).into_owned()),
                kept.get(i).map(|x| String::from_utf8_lossy(x).into_owned())
            ));
        }
    }
    Ok(())
}
