//! Med and low memory against high memory (itself checked against 2.3.3
//! elsewhere): same status, score and operations on random pairs under every
//! metric, span, heuristic and sign of the match score; and far less memory.

use crate::wfa::heuristic::Heuristic;
use crate::wfa::penalties::{Affine2pPenalties, AffinePenalties, LinearPenalties, Penalties};
use crate::wfa::{
    AlignStatus, Aligner, AlignerAttributes, AlignmentForm, AlignmentSpan, MemoryMode,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> i32 {
        (self.next() % n) as i32
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn random_seq(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| b"ACGT"[rng.below(4) as usize]).collect()
}

/// `pattern` with each base edited with probability `percent`.
fn mutate(rng: &mut Rng, pattern: &[u8], percent: u64) -> Vec<u8> {
    let mut text = Vec::with_capacity(pattern.len() + 16);
    for &b in pattern {
        if !rng.chance(percent) {
            text.push(b);
            continue;
        }
        match rng.below(4) {
            0 => text.push(b"ACGT"[rng.below(4) as usize]),
            1 => {}
            2 => {
                text.push(b);
                text.push(b"ACGT"[rng.below(4) as usize]);
            }
            _ => {
                // A longer indel, so that gap extension and the second piece matter.
                for _ in 0..rng.below(12) {
                    text.push(b"ACGT"[rng.below(4) as usize]);
                }
            }
        }
    }
    text
}

fn random_penalties(rng: &mut Rng) -> Penalties {
    let m = if rng.chance(30) { -rng.below(4) } else { 0 };
    match rng.below(5) {
        0 => Penalties::Indel,
        1 => Penalties::Edit,
        2 => Penalties::GapLinear(LinearPenalties {
            match_score: m,
            mismatch: 1 + rng.below(6),
            indel: 1 + rng.below(6),
        }),
        3 => Penalties::GapAffine(AffinePenalties {
            match_score: m,
            mismatch: 1 + rng.below(6),
            gap_opening: rng.below(8),
            gap_extension: 1 + rng.below(4),
        }),
        _ => Penalties::GapAffine2p(Affine2pPenalties {
            match_score: m,
            mismatch: 1 + rng.below(6),
            gap_opening1: 1 + rng.below(6),
            gap_extension1: 1 + rng.below(4),
            gap_opening2: 1 + rng.below(20),
            gap_extension2: 1 + rng.below(2),
        }),
    }
}

fn random_heuristic(rng: &mut Rng, unit_metric: bool) -> Heuristic {
    match rng.below(8) {
        0 | 1 => Heuristic::none(),
        2 => Heuristic::wfadaptive(1 + rng.below(12), 1 + rng.below(60), 1 + rng.below(4)),
        3 => Heuristic::wfmash(1 + rng.below(12), 1 + rng.below(60), 1 + rng.below(4)),
        4 if !unit_metric => Heuristic::xdrop(1 + rng.below(60), 1 + rng.below(4)),
        5 if !unit_metric => Heuristic::zdrop(1 + rng.below(60), 1 + rng.below(4)),
        6 => Heuristic::banded_static(-rng.below(30), rng.below(30)),
        _ => Heuristic::banded_adaptive(-1 - rng.below(30), 1 + rng.below(30), 1 + rng.below(4)),
    }
}

fn random_form(rng: &mut Rng, plen: i32, tlen: i32) -> AlignmentForm {
    if rng.chance(50) {
        return AlignmentForm::END_TO_END;
    }
    let mut free = |len: i32| {
        if rng.chance(30) {
            0
        } else {
            rng.below(len as u64 + 1)
        }
    };
    AlignmentForm {
        span: AlignmentSpan::EndsFree,
        pattern_begin_free: free(plen),
        pattern_end_free: free(plen),
        text_begin_free: free(tlen),
        text_end_free: free(tlen),
    }
}

/// Status, score and operations of `pattern`/`text` under `attr` in `mode`.
fn outcome(
    attr: &AlignerAttributes,
    mode: MemoryMode,
    pattern: &[u8],
    text: &[u8],
    custom_match: bool,
) -> (Option<AlignStatus>, i32, Vec<u8>) {
    let mut aligner = Aligner::new(&AlignerAttributes {
        memory_mode: mode,
        ..*attr
    })
    .expect("valid attributes");
    if custom_match {
        let (p, t) = (pattern.to_vec(), text.to_vec());
        aligner.set_match_function(Some(std::sync::Arc::new(move |v: i32, h: i32| {
            v >= 0
                && h >= 0
                && (v as usize) < p.len()
                && (h as usize) < t.len()
                && p[v as usize] == t[h as usize]
        })));
    }
    let status = aligner.align(pattern, text).ok();
    let cigar = aligner.cigar();
    (status, cigar.score, cigar.operations().to_vec())
}

fn check_case(rng: &mut Rng, max_len: usize) {
    let plen = rng.below(max_len as u64 + 1) as usize;
    let pattern = random_seq(rng, plen);
    let text = if rng.chance(10) {
        let len = rng.below(max_len as u64 + 1) as usize;
        random_seq(rng, len)
    } else {
        let percent = rng.below(30) as u64;
        mutate(rng, &pattern, percent)
    };
    let penalties = random_penalties(rng);
    let unit = matches!(penalties, Penalties::Indel | Penalties::Edit);
    let attr = AlignerAttributes {
        penalties,
        form: random_form(rng, pattern.len() as i32, text.len() as i32),
        heuristic: random_heuristic(rng, unit),
        max_alignment_score: if rng.chance(5) {
            rng.below(50)
        } else {
            i32::MAX
        },
        ..AlignerAttributes::default()
    };
    let custom_match = rng.chance(10);
    let high = outcome(&attr, MemoryMode::High, &pattern, &text, custom_match);
    if high.0.is_none() {
        // High memory ran out of its wavefront table, which med and low do not have.
        return;
    }
    for mode in [MemoryMode::Med, MemoryMode::Low] {
        let other = outcome(&attr, mode, &pattern, &text, custom_match);
        assert_eq!(
            high,
            other,
            "{mode:?} differs from high on {attr:?}, custom match {custom_match}\n\
             pattern {}\ntext {}",
            String::from_utf8_lossy(&pattern),
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn med_and_low_match_high_on_short_pairs() {
    let mut rng = Rng(0x5eed_0001);
    for _ in 0..20_000 {
        check_case(&mut rng, 60);
    }
}

#[test]
fn med_and_low_match_high_on_long_pairs() {
    let mut rng = Rng(0x5eed_0002);
    for _ in 0..300 {
        check_case(&mut rng, 1500);
    }
}

#[test]
fn med_and_low_match_high_on_pairs_of_kilobases() {
    let mut rng = Rng(0x5eed_0003);
    for len in [1000, 5000, 20_000] {
        let pattern = random_seq(&mut rng, len);
        let text = mutate(&mut rng, &pattern, 10);
        for penalties in [
            AlignerAttributes::default().penalties,
            Penalties::Edit,
            Penalties::GapAffine2p(Affine2pPenalties {
                match_score: 0,
                mismatch: 4,
                gap_opening1: 6,
                gap_extension1: 2,
                gap_opening2: 24,
                gap_extension2: 1,
            }),
        ] {
            let attr = AlignerAttributes {
                penalties,
                heuristic: Heuristic::wfadaptive(10, 50, 1),
                ..AlignerAttributes::default()
            };
            let high = outcome(&attr, MemoryMode::High, &pattern, &text, false);
            let low = outcome(&attr, MemoryMode::Low, &pattern, &text, false);
            assert_eq!(high, low, "{len} bp under {penalties:?}");
        }
    }
}

/// A 10 kbp pair at about 15 % divergence, exact gap-affine: the backtrace data
/// of med and low take a fraction of high memory's wavefronts, and an aligner
/// keeps no more than that afterwards.
#[test]
fn med_and_low_hold_far_less_memory_than_high() {
    let mut rng = Rng(0x5eed_0004);
    let pattern = random_seq(&mut rng, 10_000);
    let text = mutate(&mut rng, &pattern, 10);
    let attr = AlignerAttributes {
        heuristic: Heuristic::none(),
        ..AlignerAttributes::default()
    };
    let held = |mode: MemoryMode| {
        let mut aligner = Aligner::new(&AlignerAttributes {
            memory_mode: mode,
            ..attr
        })
        .expect("valid attributes");
        assert_eq!(aligner.align(&pattern, &text), Ok(AlignStatus::Successful));
        aligner.memory_used()
    };
    let high = held(MemoryMode::High);
    for mode in [MemoryMode::Med, MemoryMode::Low] {
        let used = held(mode);
        assert!(
            used * 6 < high,
            "{mode:?} holds {used} bytes against high memory's {high}"
        );
    }
}
