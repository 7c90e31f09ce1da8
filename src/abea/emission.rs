//! Log-normal emission probability in f5c's float arithmetic (`CACHED_LOG`).
//!
//! Every step is an f32 operation in the same order as f5c's C code; the
//! caller-supplied `level_log_stdv` is used as is and never recomputed.

use super::{Model, Scalings};

/// f5c's truncated ln(1/sqrt(2π)); nanopolish uses a slightly different value,
/// so this exact literal matters for bit-exactness.
pub const LOG_INV_SQRT_2PI: f32 = -0.918938;

/// ln N(x; mean, stdv) given a precomputed ln(stdv).
#[inline]
pub fn log_normal_pdf(x: f32, gp_mean: f32, gp_stdv: f32, gp_log_stdv: f32) -> f32 {
    let a = (x - gp_mean) / gp_stdv;
    (LOG_INV_SQRT_2PI - gp_log_stdv) + (-0.5f32 * a) * a
}

/// Emission of an event level under a k-mer's scaled model state.
///
/// Only `scale` and `shift` are applied: f5c's ABEA fixes var = 1 and
/// log_var = 0, so `level_stdv` is used unscaled.
#[inline]
pub fn log_probability_match(event_mean: f32, model: &Model, scaling: &Scalings) -> f32 {
    let p = KmerEmission::new(model, scaling);
    p.log_probability(event_mean)
}

/// The event-independent part of the emission for one k-mer, hoisted out of
/// the DP inner loop. Splitting the computation this way keeps every
/// intermediate value (and therefore the result) bit-identical to
/// [`log_normal_pdf`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KmerEmission {
    pub gp_mean: f32,
    pub gp_stdv: f32,
    /// `LOG_INV_SQRT_2PI - level_log_stdv`, the first addition f5c performs.
    pub log_norm: f32,
}

impl KmerEmission {
    #[inline]
    pub fn new(model: &Model, scaling: &Scalings) -> Self {
        KmerEmission {
            gp_mean: scaling.scale * model.level_mean + scaling.shift,
            // f5c multiplies by an integer 1 here; that is exact, so skipped.
            gp_stdv: model.level_stdv,
            log_norm: LOG_INV_SQRT_2PI - model.level_log_stdv,
        }
    }

    #[inline]
    pub fn log_probability(&self, event_mean: f32) -> f32 {
        let a = (event_mean - self.gp_mean) / self.gp_stdv;
        self.log_norm + (-0.5f32 * a) * a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_is_f5c_literal() {
        assert_eq!(LOG_INV_SQRT_2PI.to_bits(), (-0.918938f64 as f32).to_bits());
        assert_ne!(LOG_INV_SQRT_2PI, (0.398_942_280_401_432_7f64).ln() as f32);
    }

    #[test]
    fn hoisted_equals_direct() {
        let s = Scalings {
            scale: 1.037,
            shift: -3.21,
            var: 1.0,
            log_var: 0.0,
        };
        let mut x = 61.0f32;
        for i in 0..2000 {
            let sd = 0.9 + (i % 17) as f32 * 0.31;
            let m = Model {
                level_mean: 70.0 + (i % 53) as f32 * 0.77,
                level_stdv: sd,
                level_log_stdv: sd.ln(),
            };
            let gp_mean = s.scale * m.level_mean + s.shift;
            let direct = log_normal_pdf(x, gp_mean, m.level_stdv, m.level_log_stdv);
            assert_eq!(direct.to_bits(), log_probability_match(x, &m, &s).to_bits());
            x += 0.173;
        }
    }
}
