//! Client penalties, their conversion to the internal wavefront penalties, and the
//! conversion of the internal score back to the client's sign convention.

use super::WfaError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DistanceMetric {
    Indel = 0,
    Edit = 1,
    GapLinear = 2,
    GapAffine = 3,
    GapAffine2p = 4,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearPenalties {
    pub match_score: i32,
    pub mismatch: i32,
    pub indel: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AffinePenalties {
    pub match_score: i32,
    pub mismatch: i32,
    pub gap_opening: i32,
    pub gap_extension: i32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Affine2pPenalties {
    pub match_score: i32,
    pub mismatch: i32,
    pub gap_opening1: i32,
    pub gap_extension1: i32,
    pub gap_opening2: i32,
    pub gap_extension2: i32,
}

/// Metric together with the penalties that metric reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Penalties {
    Indel,
    Edit,
    GapLinear(LinearPenalties),
    GapAffine(AffinePenalties),
    GapAffine2p(Affine2pPenalties),
}

/// Largest penalty magnitude accepted (4,096). An alignment steps through
/// every score up to its own, one at a time as in 2.3.3, and keeps its
/// wavefronts per score, so time and memory grow with the penalties: at
/// 2^24 a 20-base pair took seconds and gigabytes (2.3.3 as long, or it
/// crashed), at 2^16 a 200-base pair took seconds and 3-5 GB with a full
/// CIGAR; at 4,096 that pair takes a fraction of a second and a few hundred
/// MB, as in 2.3.3. Real scoring schemes use penalties in the tens.
pub const MAX_PENALTY: u32 = 1 << 12;

/// Internal penalties (`wavefront_penalties_t`). With a negative match score upstream
/// rescales everything (Eizenga's transform) so that wavefront scores stay non-negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WfPenalties {
    pub metric: DistanceMetric,
    pub match_score: i32,
    pub mismatch: i32,
    pub gap_opening1: i32,
    pub gap_extension1: i32,
    pub gap_opening2: i32,
    pub gap_extension2: i32,
}

impl WfPenalties {
    pub fn from_client(p: &Penalties) -> Result<WfPenalties, WfaError> {
        let base = |metric| WfPenalties {
            metric,
            match_score: 0,
            mismatch: -1,
            gap_opening1: -1,
            gap_extension1: -1,
            gap_opening2: -1,
            gap_extension2: -1,
        };
        let match_check = |m: i32| {
            if m > 0 {
                Err(WfaError::InvalidPenalties(format!(
                    "Match score must be negative or zero (M={m})"
                )))
            } else {
                Ok(())
            }
        };
        // 2.3.3 rescales with `2*x - 2*m` and sums penalties into its score
        // scope in `int`, which overflows (undefined behaviour there) for
        // huge values; refuse them instead.
        let values: &[i32] = match p {
            Penalties::Indel | Penalties::Edit => &[],
            Penalties::GapLinear(l) => &[l.match_score, l.mismatch, l.indel],
            Penalties::GapAffine(a) => &[a.match_score, a.mismatch, a.gap_opening, a.gap_extension],
            Penalties::GapAffine2p(a) => &[
                a.match_score,
                a.mismatch,
                a.gap_opening1,
                a.gap_extension1,
                a.gap_opening2,
                a.gap_extension2,
            ],
        };
        if let Some(v) = values.iter().find(|v| v.unsigned_abs() > MAX_PENALTY) {
            return Err(WfaError::InvalidPenalties(format!(
                "Penalty {v} is too large (at most {MAX_PENALTY} in magnitude)"
            )));
        }
        Ok(match *p {
            Penalties::Indel => WfPenalties {
                gap_opening1: 1,
                ..base(DistanceMetric::Indel)
            },
            Penalties::Edit => WfPenalties {
                mismatch: 1,
                gap_opening1: 1,
                ..base(DistanceMetric::Edit)
            },
            Penalties::GapLinear(l) => {
                match_check(l.match_score)?;
                if l.mismatch <= 0 || l.indel <= 0 {
                    return Err(WfaError::InvalidPenalties(format!(
                        "Penalties (X={},D={},I={}) must be (X>0,D>0,I>0)",
                        l.mismatch, l.indel, l.indel
                    )));
                }
                let m = l.match_score;
                if m < 0 {
                    WfPenalties {
                        match_score: m,
                        mismatch: 2 * l.mismatch - 2 * m,
                        gap_opening1: 2 * l.indel - m,
                        ..base(DistanceMetric::GapLinear)
                    }
                } else {
                    WfPenalties {
                        mismatch: l.mismatch,
                        gap_opening1: l.indel,
                        ..base(DistanceMetric::GapLinear)
                    }
                }
            }
            Penalties::GapAffine(a) => {
                match_check(a.match_score)?;
                if a.mismatch <= 0 || a.gap_opening < 0 || a.gap_extension <= 0 {
                    return Err(WfaError::InvalidPenalties(format!(
                        "Penalties (X={},O={},E={}) must be (X>0,O>=0,E>0)",
                        a.mismatch, a.gap_opening, a.gap_extension
                    )));
                }
                let m = a.match_score;
                if m < 0 {
                    WfPenalties {
                        match_score: m,
                        mismatch: 2 * a.mismatch - 2 * m,
                        gap_opening1: 2 * a.gap_opening,
                        gap_extension1: 2 * a.gap_extension - m,
                        ..base(DistanceMetric::GapAffine)
                    }
                } else {
                    WfPenalties {
                        mismatch: a.mismatch,
                        gap_opening1: a.gap_opening,
                        gap_extension1: a.gap_extension,
                        ..base(DistanceMetric::GapAffine)
                    }
                }
            }
            Penalties::GapAffine2p(a) => {
                match_check(a.match_score)?;
                if a.mismatch <= 0
                    || a.gap_opening1 <= 0
                    || a.gap_extension1 <= 0
                    || a.gap_opening2 <= 0
                    || a.gap_extension2 <= 0
                {
                    return Err(WfaError::InvalidPenalties(format!(
                        "Penalties (X={},O1={},E1={},O2={},E2={}) must be (X>0,O1>=0,E1>0,O1>=0,E1>0)",
                        a.mismatch,
                        a.gap_opening1,
                        a.gap_extension1,
                        a.gap_opening2,
                        a.gap_extension2
                    )));
                }
                let m = a.match_score;
                if m < 0 {
                    WfPenalties {
                        metric: DistanceMetric::GapAffine2p,
                        match_score: m,
                        mismatch: 2 * a.mismatch - 2 * m,
                        gap_opening1: 2 * a.gap_opening1,
                        gap_extension1: 2 * a.gap_extension1 - m,
                        gap_opening2: 2 * a.gap_opening2,
                        gap_extension2: 2 * a.gap_extension2 - m,
                    }
                } else {
                    WfPenalties {
                        metric: DistanceMetric::GapAffine2p,
                        match_score: 0,
                        mismatch: a.mismatch,
                        gap_opening1: a.gap_opening1,
                        gap_extension1: a.gap_extension1,
                        gap_opening2: a.gap_opening2,
                        gap_extension2: a.gap_extension2,
                    }
                }
            }
        })
    }

    /// `wavefront_compute_classic_score`: the value stored in `cigar->score`.
    pub fn classic_score(&self, pattern_length: i32, text_length: i32, wf_score: i32) -> i32 {
        if matches!(self.metric, DistanceMetric::Indel | DistanceMetric::Edit) {
            return wf_score;
        }
        let swg_match = -self.match_score;
        if swg_match == 0 {
            return -wf_score;
        }
        swg_minus_wf(
            swg_match,
            pattern_length.wrapping_add(text_length),
            wf_score,
        ) / 2
    }

    /// Size of upstream's high-memory wavefront table for these lengths
    /// (`wavefront_components_dimensions_*`, non-modular case).
    pub fn num_wavefronts(&self, plen: i32, tlen: i32) -> i64 {
        let (plen, tlen) = (plen as i64, tlen as i64);
        let diff = (plen - tlen).abs();
        let misms = plen.min(tlen) * self.mismatch as i64;
        let (o1, e1) = (self.gap_opening1 as i64, self.gap_extension1 as i64);
        match self.metric {
            DistanceMetric::Indel | DistanceMetric::Edit => plen.max(tlen) + 1,
            DistanceMetric::GapLinear => misms + o1 * diff + 1,
            DistanceMetric::GapAffine => misms + o1 + diff * e1 + 1,
            DistanceMetric::GapAffine2p => {
                let (o2, e2) = (self.gap_opening2 as i64, self.gap_extension2 as i64);
                misms + (o1 + diff * e1).min(o2 + diff * e2) + 1
            }
        }
    }

    /// Scores a wavefront can look back (`max_score_scope`); also the unfeasibility bound.
    pub fn max_score_scope(&self) -> i32 {
        match self.metric {
            DistanceMetric::Indel | DistanceMetric::Edit => 2,
            DistanceMetric::GapLinear => self.mismatch.max(self.gap_opening1) + 1,
            DistanceMetric::GapAffine => {
                (self.gap_opening1 + self.gap_extension1).max(self.mismatch) + 1
            }
            DistanceMetric::GapAffine2p => {
                (self.gap_opening1 + self.gap_extension1)
                    .max(self.gap_opening2 + self.gap_extension2)
                    .max(self.mismatch)
                    + 1
            }
        }
    }
}

/// `swg_match · bases − wf_score`, the gap-affine score of a wavefront
/// score, in upstream's `int` arithmetic: with a large match score and long
/// sequences the product leaves its range (`MAX_PENALTY` bounds the
/// penalties, not this product). Wrapping gives what upstream's builds give
/// and never panics.
pub fn swg_minus_wf(swg_match: i32, bases: i32, wf_score: i32) -> i32 {
    swg_match.wrapping_mul(bases).wrapping_sub(wf_score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_penalties_are_refused_instead_of_overflowing() {
        let affine = |x: i32, m: i32| {
            Penalties::GapAffine(AffinePenalties {
                match_score: m,
                mismatch: x,
                gap_opening: 6,
                gap_extension: 2,
            })
        };
        assert!(WfPenalties::from_client(&affine(4, 0)).is_ok());
        assert!(
            WfPenalties::from_client(&affine(MAX_PENALTY as i32, -(MAX_PENALTY as i32))).is_ok()
        );
        assert!(matches!(
            WfPenalties::from_client(&affine(MAX_PENALTY as i32 + 1, 0)),
            Err(WfaError::InvalidPenalties(_))
        ));
        assert!(matches!(
            WfPenalties::from_client(&affine(i32::MAX, -5)),
            Err(WfaError::InvalidPenalties(_))
        ));
        assert!(matches!(
            WfPenalties::from_client(&affine(4, i32::MIN)),
            Err(WfaError::InvalidPenalties(_))
        ));
    }

    /// The largest accepted match score on two 64-base sequences: the score
    /// conversion is upstream's `int` arithmetic, without a panic.
    #[test]
    fn classic_score_wraps_as_int_does() {
        let pen = WfPenalties::from_client(&Penalties::GapAffine(AffinePenalties {
            match_score: -(MAX_PENALTY as i32),
            mismatch: 4,
            gap_opening: 6,
            gap_extension: 2,
        }))
        .unwrap();
        let wrapped = ((i64::from(MAX_PENALTY) * 128) as i32) / 2;
        assert_eq!(pen.classic_score(64, 64, 0), wrapped);
        assert_eq!(pen.classic_score(3, 5, 0), (MAX_PENALTY as i32) * 4);
    }
}
