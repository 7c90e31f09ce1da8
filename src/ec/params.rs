//! Correction parameters shared by both modes (spec §9.2 `seqshim_ec_params`).

use super::error::EcError;

/// Which algorithm family runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Byte-identical to CUDA-EC v1.0.x, quirks included (spec §4, §5).
    ExactV1,
    /// Exact canonical counting and the fixes of spec §9.3.
    Default,
}

/// Rounds after which an exact-v1 read is flagged `'D'` (v1 would spin forever).
pub const V1_WATCHDOG_ROUNDS: u32 = 65_536;
/// Largest k of default mode: a k-mer must fit 2-bit packed in a `u64`.
pub const DEFAULT_MAX_K: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    pub mode: Mode,
    /// Tuple (k-mer) size.
    pub k: usize,
    /// exact-v1: interleave stride of the counting filter (threshold stays 6);
    /// default: a k-mer is solid iff its canonical count is >= `min_mult`.
    pub min_mult: u32,
    /// A fix qualifies only with votes strictly greater than this.
    pub min_votes: i16,
    pub max_trim: u16,
    /// 1 (single substitutions) or 2 (adds the pairwise kernel).
    pub num_search: u8,
    pub do_trim: bool,
    /// Reads needing more rounds than this are discarded.
    pub max_mods: i16,
    /// exact-v1: the compile-time read length L; default mode: ignored (0).
    pub read_len: usize,
    /// 0 = mode default (exact-v1: 65,536-round watchdog; default: read length).
    pub max_rounds: u32,
}

impl Params {
    /// v1's command-line defaults with `-t 20 -r read_len`.
    pub fn exact_v1(read_len: usize) -> Params {
        Params {
            mode: Mode::ExactV1,
            k: 20,
            min_mult: 6,
            min_votes: 2,
            max_trim: 20,
            num_search: 1,
            do_trim: true,
            max_mods: 999,
            read_len,
            max_rounds: 0,
        }
    }

    /// Default mode with v1's effective threshold (6) and variable lengths.
    pub fn default_mode() -> Params {
        Params {
            mode: Mode::Default,
            read_len: 0,
            ..Params::exact_v1(0)
        }
    }

    /// Checks every field for the selected mode.
    pub fn validate(&self) -> Result<(), EcError> {
        if self.num_search != 1 && self.num_search != 2 {
            return Err(EcError::InvalidParam(format!(
                "num_search = {} (must be 1 or 2)",
                self.num_search
            )));
        }
        if self.min_mult == 0 {
            return Err(EcError::InvalidParam("min_mult must be at least 1".into()));
        }
        match self.mode {
            Mode::ExactV1 => {
                // v1 stores L in a `short` and uses a `char` length byte.
                if self.read_len == 0 || self.read_len > i16::MAX as usize {
                    return Err(EcError::InvalidParam(format!(
                        "read_len = {} (exact-v1 needs 1..={})",
                        self.read_len,
                        i16::MAX
                    )));
                }
                if self.k == 0 || self.k > self.read_len {
                    return Err(EcError::KOutOfRange {
                        k: self.k,
                        min: 1,
                        max: self.read_len,
                    });
                }
            }
            Mode::Default => {
                if self.k == 0 || self.k > DEFAULT_MAX_K {
                    return Err(EcError::KOutOfRange {
                        k: self.k,
                        min: 1,
                        max: DEFAULT_MAX_K,
                    });
                }
            }
        }
        Ok(())
    }

    /// Round limit per read and kernel after which correction gives up.
    pub(crate) fn round_limit(&self, read_len: usize) -> u32 {
        match (self.max_rounds, self.mode) {
            (0, Mode::ExactV1) => V1_WATCHDOG_ROUNDS,
            (0, Mode::Default) => read_len.max(1) as u32,
            (n, _) => n,
        }
    }
}
