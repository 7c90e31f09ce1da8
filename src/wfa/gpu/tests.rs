//! The kernel's algorithm (model.rs) plus the host replay against the CPU
//! aligner, over random pairs and every configuration the GPU takes.

use super::model::{self, Bounds, Outcome};
use super::plan::{self, Params};
use super::replay;
use crate::wfa::job::{PairResult, align_on_cpu};
use crate::wfa::penalties::WfPenalties;
use crate::wfa::{
    AffinePenalties, AlignStatus, AlignerAttributes, AlignmentForm, AlignmentScope, AlignmentSpan,
    Heuristic, LinearPenalties, MemoryMode, Operations, Penalties,
};

pub(crate) struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

pub(crate) fn random_seq(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| b"ACGT"[rng.below(4) as usize]).collect()
}

/// `text` derived from `pattern` with about `percent` edits.
pub(crate) fn mutate(rng: &mut Rng, pattern: &[u8], percent: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(pattern.len() + 8);
    for &b in pattern {
        if rng.below(100) < percent {
            match rng.below(3) {
                0 => out.push(b"ACGT"[rng.below(4) as usize]),
                1 => {}
                _ => {
                    out.push(b"ACGT"[rng.below(4) as usize]);
                    out.push(b);
                }
            }
        } else {
            out.push(b);
        }
    }
    out
}

/// The result the GPU path produces for one pair through the model.
fn model_result(attributes: &AlignerAttributes, pattern: &[u8], text: &[u8]) -> Option<PairResult> {
    let p = Params::new(attributes).ok()?;
    if !p.takes_lengths(pattern.len(), text.len())
        || !plan::packable(pattern)
        || !plan::packable(text)
    {
        return None;
    }
    let (mut pw, mut tw) = (Vec::new(), Vec::new());
    plan::pack_into(pattern, &mut pw);
    plan::pack_into(text, &mut tw);
    let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
    let bounds = Bounds {
        max_score: Params::score_bound(
            &WfPenalties::from_client(&attributes.penalties).ok()?,
            pattern.len(),
            text.len(),
        ),
        code_budget: 1 << 24,
        max_scores: 1 << 16,
        path_cap: pattern.len() + text.len() + 16,
    };
    match model::align(&p, &pw, plen, &tw, tlen, &bounds) {
        Outcome::Rescue => None,
        Outcome::Done {
            score,
            k,
            offset,
            path,
        } => {
            let pen = WfPenalties::from_client(&attributes.penalties).unwrap();
            let operations = if p.full != 0 {
                let packed = |seq: &[u8]| {
                    let mut out = vec![0u8; 4 * plan::packed_words(seq.len())];
                    plan::pack_le(seq, &mut out);
                    out
                };
                let (pp, tp) = (packed(pattern), packed(text));
                let pair = replay::PackedPair {
                    pattern: &pp,
                    pattern_len: plen,
                    text: &tp,
                    text_len: tlen,
                };
                // The kernel reserves `max_runs` for a walk's runs.
                let (mut pre, mut runs) = (Vec::new(), Vec::new());
                replay::runs(&p, &pair, (score, k, offset), &path, &mut pre, &mut runs)
                    .expect("the walk replays");
                assert!(runs.len() <= replay::max_runs(path.len()));
                replay::operations(&p, &pair, score, k, offset, &path).expect("the walk replays")
            } else {
                Operations::default()
            };
            Some(PairResult {
                outcome: Ok(AlignStatus::Successful),
                score: pen.classic_score(plen, tlen, score),
                operations,
            })
        }
    }
}

fn configs() -> Vec<(String, AlignerAttributes)> {
    let metrics = [
        ("indel", Penalties::Indel),
        ("edit", Penalties::Edit),
        (
            "linear(0,4,2)",
            Penalties::GapLinear(LinearPenalties {
                match_score: 0,
                mismatch: 4,
                indel: 2,
            }),
        ),
        (
            "linear(-1,3,2)",
            Penalties::GapLinear(LinearPenalties {
                match_score: -1,
                mismatch: 3,
                indel: 2,
            }),
        ),
        (
            "affine(0,4,6,2)",
            Penalties::GapAffine(AffinePenalties {
                match_score: 0,
                mismatch: 4,
                gap_opening: 6,
                gap_extension: 2,
            }),
        ),
        (
            "affine(0,2,3,1)",
            Penalties::GapAffine(AffinePenalties {
                match_score: 0,
                mismatch: 2,
                gap_opening: 3,
                gap_extension: 1,
            }),
        ),
        (
            "affine(-2,4,0,1)",
            Penalties::GapAffine(AffinePenalties {
                match_score: -2,
                mismatch: 4,
                gap_opening: 0,
                gap_extension: 1,
            }),
        ),
    ];
    let forms = [
        ("e2e", AlignmentForm::END_TO_END),
        (
            "free(5,5,5,5)",
            AlignmentForm {
                span: AlignmentSpan::EndsFree,
                pattern_begin_free: 5,
                pattern_end_free: 5,
                text_begin_free: 5,
                text_end_free: 5,
            },
        ),
        (
            // Begin-free lengths left from an ends-free setting, which an
            // end-to-end span ignores (the plan's `wide_start`).
            "e2e stale(7,0,9,0)",
            AlignmentForm {
                span: AlignmentSpan::EndToEnd,
                pattern_begin_free: 7,
                pattern_end_free: 0,
                text_begin_free: 9,
                text_end_free: 0,
            },
        ),
        (
            "free(0,20,30,0)",
            AlignmentForm {
                span: AlignmentSpan::EndsFree,
                pattern_begin_free: 0,
                pattern_end_free: 20,
                text_begin_free: 30,
                text_end_free: 0,
            },
        ),
    ];
    let heuristics = [
        ("none", Heuristic::none()),
        ("wfa(10,50,1)", Heuristic::wfadaptive(10, 50, 1)),
        ("wfa(4,6,3)", Heuristic::wfadaptive(4, 6, 3)),
    ];
    let mut out = Vec::new();
    for (mn, pen) in metrics {
        for (fname, form) in forms {
            for (hn, h) in heuristics {
                for scope in [
                    AlignmentScope::ComputeScore,
                    AlignmentScope::ComputeAlignment,
                ] {
                    let attributes = AlignerAttributes {
                        penalties: pen,
                        scope,
                        form,
                        memory_mode: MemoryMode::High,
                        heuristic: h,
                        max_alignment_score: i32::MAX,
                    };
                    if Params::new(&attributes).is_err() {
                        continue;
                    }
                    out.push((format!("{mn} {fname} {hn} {scope:?}"), attributes));
                }
            }
        }
    }
    out
}

fn pairs(seed: u64, count: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    for i in 0..count {
        let len = match i % 10 {
            0 => rng.below(4) as usize,
            1..=6 => rng.below(160) as usize,
            7 | 8 => 100 + rng.below(300) as usize,
            _ => 20 + rng.below(60) as usize,
        };
        let p = random_seq(&mut rng, len);
        let t = match i % 7 {
            0 => {
                let n = rng.below(len as u64 + 30) as usize;
                random_seq(&mut rng, n)
            }
            1 => mutate(&mut rng, &p, 30),
            2 => {
                // One long indel.
                let mut t = p.clone();
                let at = rng.below(t.len() as u64 + 1) as usize;
                let n = rng.below(40) as usize;
                if rng.below(2) == 0 {
                    t.splice(at..at, random_seq(&mut rng, n));
                } else {
                    t.drain(at..(at + n).min(t.len()));
                }
                t
            }
            _ => {
                let rate = [1, 2, 5, 10][rng.below(4) as usize];
                mutate(&mut rng, &p, rate)
            }
        };
        if i % 2 == 0 {
            out.push((p, t))
        } else {
            out.push((t, p))
        }
    }
    out
}

#[test]
fn model_equals_the_cpu_aligner() {
    let pairs = pairs(0x5eed_0001, 400);
    let (mut compared, mut on_gpu, mut rescued) = (0, 0, 0);
    let mut failures = Vec::new();
    for (name, attributes) in configs() {
        for (i, (p, t)) in pairs.iter().enumerate() {
            let cpu = align_on_cpu(&attributes, p, t);
            compared += 1;
            if let Some(got) = model_result(&attributes, p, t) {
                on_gpu += 1;
                if got != cpu && failures.len() < 10 {
                    failures.push(format!(
                        "{name} pair {i} ({} vs {} bp): model {:?} {} / cpu {:?} {}\n  p={}\n  t={}",
                        p.len(),
                        t.len(),
                        got.score,
                        got.operations.sam(),
                        cpu.score,
                        cpu.operations.sam(),
                        String::from_utf8_lossy(p),
                        String::from_utf8_lossy(t),
                    ));
                }
            } else if Params::new(&attributes)
                .is_ok_and(|params| params.takes_lengths(p.len(), t.len()))
            {
                rescued += 1;
            }
        }
    }
    eprintln!("model: {compared} compared, {on_gpu} finished by the model, {rescued} rescued");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        rescued * 100 < on_gpu,
        "{rescued} rescued, {on_gpu} finished"
    );
}

/// Wide edit wavefronts (Heng Li's prune kicks in at 1000 diagonals) and
/// long pairs.
#[test]
fn model_equals_the_cpu_aligner_on_long_pairs() {
    let mut rng = Rng(0x5eed_0002);
    let configs: Vec<(String, AlignerAttributes)> = configs()
        .into_iter()
        .filter(|(n, _)| n.contains("e2e") || n.contains("free(5"))
        .collect();
    let mut long = Vec::new();
    for i in 0..6 {
        let n = 900 + rng.below(500) as usize;
        let p = random_seq(&mut rng, n);
        let t = if i % 3 == 0 {
            let m = n / 2 + rng.below(n as u64) as usize;
            random_seq(&mut rng, m)
        } else {
            mutate(&mut rng, &p, [2, 10][i % 2])
        };
        long.push((p, t));
    }
    let (mut failures, mut finished) = (0, 0);
    for (name, attributes) in &configs {
        for (i, (p, t)) in long.iter().enumerate() {
            let cpu = align_on_cpu(attributes, p, t);
            if let Some(got) = model_result(attributes, p, t) {
                finished += 1;
                if got != cpu {
                    failures += 1;
                    eprintln!(
                        "{name} long pair {i}: model {} / cpu {}",
                        got.score, cpu.score
                    );
                }
            }
        }
    }
    eprintln!("model, long pairs: {finished} finished by the model, {failures} differ");
    assert_eq!(failures, 0);
    assert!(finished > configs.len() * 5, "{finished}");
}

#[test]
fn packed_lcp_equals_byte_comparison() {
    let mut rng = Rng(7);
    for _ in 0..2000 {
        let n = rng.below(70) as usize;
        let a = random_seq(&mut rng, n);
        let mut b = a.clone();
        if !b.is_empty() && rng.below(3) > 0 {
            let at = rng.below(b.len() as u64) as usize;
            b[at] = b"ACGT"[(plan::base_code(b[at]) as usize + 1) % 4];
            b[at] = match b[at] {
                x if x == a[at] => b'A',
                x => x,
            };
        }
        let v = rng.below(a.len() as u64 + 1) as i32;
        let h = rng.below(b.len() as u64 + 1) as i32;
        let want = a[v as usize..]
            .iter()
            .zip(&b[h as usize..])
            .take_while(|(x, y)| x == y)
            .count() as i32;
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        plan::pack_into(&a, &mut pa);
        plan::pack_into(&b, &mut pb);
        assert_eq!(
            model::lcp(&pa, a.len() as i32, &pb, b.len() as i32, v, h),
            want
        );
    }
}

/// Gap-affine with wf-adaptive on a long sequence against a very short one
/// (the GPU parity grid's edge pairs). M is trimmed to the matrix on its
/// own, so early on its range is narrower than D's (or I's); upstream clamps
/// them to M's range on every cut-off call, not only when the wf-adaptive
/// cuts, and the dropped gap cells decide between equal-score alignments
/// (a 510-base deletion before or after a mismatch and a match).
#[test]
fn model_clamps_gaps_to_m_on_every_cutoff_call() {
    let affine = |x, o, e| {
        Penalties::GapAffine(AffinePenalties {
            match_score: 0,
            mismatch: x,
            gap_opening: o,
            gap_extension: e,
        })
    };
    let mut rng = Rng(0x5eed_0003);
    let mut pairs = Vec::new();
    for _ in 0..40 {
        let n = 300 + rng.below(600) as usize;
        let long = random_seq(&mut rng, n);
        let m = 1 + rng.below(40) as usize;
        let short = random_seq(&mut rng, m);
        pairs.push((long.clone(), short.clone()));
        pairs.push((short, long));
    }
    let (long, short) = grid_pair();
    pairs.push((long.clone(), short.clone()));
    pairs.push((short, long));
    let mut failures = Vec::new();
    let mut finished = 0;
    for (pn, pen) in [
        ("affine(0,4,6,2)", affine(4, 6, 2)),
        ("affine(0,2,3,1)", affine(2, 3, 1)),
    ] {
        for (hn, heuristic) in [
            ("wfa(10,50,1)", Heuristic::wfadaptive(10, 50, 1)),
            ("wfa(4,6,3)", Heuristic::wfadaptive(4, 6, 3)),
        ] {
            for (fname, form) in [
                ("e2e", AlignmentForm::END_TO_END),
                (
                    "free(10,10,10,10)",
                    AlignmentForm {
                        span: AlignmentSpan::EndsFree,
                        pattern_begin_free: 10,
                        pattern_end_free: 10,
                        text_begin_free: 10,
                        text_end_free: 10,
                    },
                ),
            ] {
                let attributes = AlignerAttributes {
                    penalties: pen,
                    scope: AlignmentScope::ComputeAlignment,
                    form,
                    memory_mode: MemoryMode::High,
                    heuristic,
                    max_alignment_score: i32::MAX,
                };
                for (i, (p, t)) in pairs.iter().enumerate() {
                    let Some(got) = model_result(&attributes, p, t) else {
                        continue;
                    };
                    finished += 1;
                    let cpu = align_on_cpu(&attributes, p, t);
                    if got != cpu {
                        failures.push(format!(
                            "{pn} {hn} {fname} pair {i} ({} vs {} bp): model {} {} / cpu {} {}",
                            p.len(),
                            t.len(),
                            got.score,
                            got.operations.sam(),
                            cpu.score,
                            cpu.operations.sam(),
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "model, long against short: {finished} finished by the model, {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(finished > 500, "{finished}");
}

/// The pair on which the GPU parity grid (tests/wfa_gpu.rs, scale 0.25)
/// found the GPU off the CPU path: 512 bases that begin and end with "TG"
/// against "AG", made as the grid's first edge pair of its gap-affine
/// (0,4,6,2) end-to-end wf-adaptive alignment cell (this is the generator's
/// state there).
fn grid_pair() -> (Vec<u8>, Vec<u8>) {
    let mut rng = Rng(0x6567_a8b0_75d0_c46f);
    let n = 300 + rng.below(600) as usize;
    let long = random_seq(&mut rng, n);
    for _ in 0..n {
        rng.next(); // the grid's edit draws, at 0 %
    }
    let m = 1 + rng.below(40) as usize;
    (long, random_seq(&mut rng, m))
}

/// The grid's pair: the deletion can go before or after the mismatch and
/// the match for the same score; the CPU path (as upstream) puts it first
/// under wf-adaptive and last without a heuristic, and the model (the
/// kernel) must follow.
#[test]
fn wfadaptive_moves_the_deletion_of_the_grid_pair() {
    let (long, short) = grid_pair();
    assert_eq!((long.len(), &short[..]), (512, &b"AG"[..]));
    let mut attributes = AlignerAttributes {
        penalties: Penalties::GapAffine(AffinePenalties {
            match_score: 0,
            mismatch: 4,
            gap_opening: 6,
            gap_extension: 2,
        }),
        scope: AlignmentScope::ComputeAlignment,
        form: AlignmentForm::END_TO_END,
        memory_mode: MemoryMode::High,
        heuristic: Heuristic::none(),
        max_alignment_score: i32::MAX,
    };
    let sam = |a: &AlignerAttributes, p: &[u8], t: &[u8]| {
        let r = align_on_cpu(a, p, t);
        (r.score, r.operations.sam())
    };
    assert_eq!(
        sam(&attributes, &long, &short),
        (-1030, "1X1M510D".to_string())
    );
    attributes.heuristic = Heuristic::wfadaptive(10, 50, 1);
    for (p, t, want) in [
        (&long[..], &short[..], "510D1X1M"),
        (&short[..], &long[..], "510I1X1M"),
    ] {
        assert_eq!(sam(&attributes, p, t), (-1030, want.to_string()));
        let model = model_result(&attributes, p, t).expect("the model finishes");
        assert_eq!(model.operations.sam(), want);
    }
}
