//! Bit-exact comparison against f5c v1.1's own `align()` output and MOM
//! scalings on the R9.4 E. coli fixture.
//!
//! Run with `cargo test --test abea_fixture -- --nocapture`; `--ignored`
//! adds the single-thread throughput measurement.

mod abea_support;
use abea_support as common;

use seqshim::abea::{self, AlignedPair, Aligner, estimate_scalings_using_mom, out_capacity};

const KMER_SIZE: u32 = 6;
const SAMPLE_RATE: f32 = 4000.0;

#[test]
fn align_matches_f5c_on_every_record() {
    let Some(dir) = common::fixture_dir() else {
        return;
    };
    let fx = common::load(&dir);
    let mut aligner = Aligner::new();
    let mut mismatched = Vec::new();
    let mut out = Vec::new();
    for r in &fx.records {
        out.clear();
        out.resize(
            out_capacity(r.events.len(), r.sequence.len()),
            AlignedPair::default(),
        );
        let n = aligner.align_into(
            &mut out,
            &r.sequence,
            &r.events,
            &fx.models,
            KMER_SIZE,
            r.scaling,
            SAMPLE_RATE,
        );
        if out[..n] != r.expected[..] {
            let first_diff = out[..n]
                .iter()
                .zip(&r.expected)
                .position(|(a, b)| a != b)
                .unwrap_or(n.min(r.expected.len()));
            eprintln!(
                "MISMATCH record {} ({}): got {} pairs, expected {}; first difference at pair {}",
                r.index,
                r.read_id,
                n,
                r.expected.len(),
                first_diff
            );
            mismatched.push(r.index);
        }
    }
    eprintln!(
        "align: {} records compared, {} matched, {} mismatched",
        fx.records.len(),
        fx.records.len() - mismatched.len(),
        mismatched.len()
    );
    assert!(!fx.records.is_empty());
    assert!(mismatched.is_empty(), "mismatched records: {mismatched:?}");
}

#[test]
fn free_function_matches_too() {
    let Some(dir) = common::fixture_dir() else {
        return;
    };
    let fx = common::load(&dir);
    // A few records through the thread-local entry point, including reuse of
    // a larger workspace by a smaller read.
    let mut idx: Vec<usize> = (0..fx.records.len()).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(fx.records[i].events.len()));
    for &i in idx.iter().take(2).chain(idx.iter().rev().take(2)) {
        let r = &fx.records[i];
        let got = abea::align(
            &r.sequence,
            &r.events,
            &fx.models,
            KMER_SIZE,
            r.scaling,
            SAMPLE_RATE,
        );
        assert_eq!(got, r.expected, "record {}", r.index);
    }
}

#[test]
fn mom_scalings_match_f5c_bits() {
    let Some(dir) = common::fixture_dir() else {
        return;
    };
    let fx = common::load(&dir);
    let mut bad = 0;
    for r in &fx.records {
        let s = estimate_scalings_using_mom(&r.sequence, &fx.models, KMER_SIZE, &r.events);
        if s.scale.to_bits() != r.scaling.scale.to_bits()
            || s.shift.to_bits() != r.scaling.shift.to_bits()
        {
            eprintln!(
                "MOM MISMATCH record {}: got scale {:e} shift {:e}, expected {:e} {:e}",
                r.index, s.scale, s.shift, r.scaling.scale, r.scaling.shift
            );
            bad += 1;
        }
    }
    eprintln!(
        "mom: {} records compared, {} matched",
        fx.records.len(),
        fx.records.len() - bad
    );
    assert_eq!(bad, 0);
}

/// Throughput in band cells (f5c's `n_bands × 100`) per CPU second.
#[test]
#[ignore]
fn throughput_cells_per_cpu_second() {
    let Some(dir) = common::fixture_dir() else {
        return;
    };
    let fx = common::load(&dir);
    let cells: usize = fx
        .records
        .iter()
        .map(|r| Aligner::band_cells(r.sequence.len(), r.events.len(), KMER_SIZE))
        .sum();
    let mut aligner = Aligner::new();
    let passes = std::env::var("ABEA_BENCH_PASSES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3usize);
    for pass in 0..passes {
        let cpu0 = common::thread_cpu_seconds();
        let t0 = std::time::Instant::now();
        let mut pairs = 0usize;
        for r in &fx.records {
            pairs += aligner
                .align(
                    &r.sequence,
                    &r.events,
                    &fx.models,
                    KMER_SIZE,
                    r.scaling,
                    SAMPLE_RATE,
                )
                .len();
        }
        let wall = t0.elapsed().as_secs_f64();
        let cpu = cpu0.zip(common::thread_cpu_seconds()).map(|(a, b)| b - a);
        eprintln!(
            "pass {pass}: {} records, {cells} band cells, {pairs} pairs; wall {wall:.3} s ({:.1} M cells/s); cpu {}",
            fx.records.len(),
            cells as f64 / wall / 1e6,
            cpu.map_or("n/a".to_string(), |c| format!(
                "{c:.2} s ({:.1} M cells/s)",
                cells as f64 / c / 1e6
            ))
        );
    }
}
