//! The spectrum object of the native API (spec §9.2): new → add → finalize →
//! contains / export, for either mode.

use super::bloom_v1::{BloomTableV1, CountingFilterV1};
use super::error::EcError;
use super::kmer_counts::{KmerCounter, SolidKmers};
use super::params::{Mode, Params};

#[derive(Clone, Debug)]
enum State {
    V1Counting(CountingFilterV1),
    V1Ready {
        filter: CountingFilterV1,
        bloom: BloomTableV1,
    },
    ExactCounting(KmerCounter),
    ExactReady(SolidKmers),
    /// Transient while finalising.
    Empty,
}

/// A k-mer spectrum; immutable (and shareable across threads) once finalised.
#[derive(Clone, Debug)]
pub struct Spectrum {
    params: Params,
    state: State,
}

impl Spectrum {
    /// exact-v1: `n_reads` must be the exact number of reads (it sizes v1's
    /// counting filter); default mode: a hint, 0 allowed.
    pub fn new(params: &Params, n_reads: u64) -> Result<Spectrum, EcError> {
        params.validate()?;
        let state = match params.mode {
            Mode::ExactV1 => State::V1Counting(CountingFilterV1::new(
                params.read_len,
                params.k,
                params.min_mult,
                n_reads,
            )?),
            Mode::Default => State::ExactCounting(KmerCounter::new(params.k)),
        };
        Ok(Spectrum {
            params: params.clone(),
            state,
        })
    }

    pub fn params(&self) -> &Params {
        &self.params
    }

    /// Adds reads in order (exact-v1 counting is order dependent). exact-v1
    /// reads may not exceed `read_len`; bytes after a NUL are ignored.
    pub fn add(&mut self, reads: &[&[u8]]) -> Result<(), EcError> {
        match &mut self.state {
            State::V1Counting(filter) => {
                if let Some((index, r)) = reads
                    .iter()
                    .enumerate()
                    .find(|(_, r)| r.len() > self.params.read_len)
                {
                    return Err(EcError::BatchReadTooLong {
                        index,
                        len: r.len(),
                        read_len: self.params.read_len,
                    });
                }
                filter.add(reads)
            }
            State::ExactCounting(counter) => {
                counter.add(reads);
                Ok(())
            }
            _ => Err(EcError::State("add after finalize".into())),
        }
    }

    /// Ends counting: builds the Bloom table (exact-v1) or the solid set.
    pub fn finalize(&mut self) -> Result<(), EcError> {
        self.state = match std::mem::replace(&mut self.state, State::Empty) {
            State::V1Counting(filter) => match filter.build_bloom() {
                Ok(bloom) => State::V1Ready { filter, bloom },
                Err(e) => {
                    self.state = State::V1Counting(filter);
                    return Err(e);
                }
            },
            State::ExactCounting(counter) => {
                State::ExactReady(counter.into_solid(self.params.min_mult))
            }
            other => {
                self.state = other;
                return Err(EcError::State("finalize called twice".into()));
            }
        };
        Ok(())
    }

    pub fn is_finalized(&self) -> bool {
        matches!(self.state, State::V1Ready { .. } | State::ExactReady(_))
    }

    /// Solid strings (exact-v1: list entries, both strands) or solid canonical
    /// k-mers (default).
    pub fn num_solid(&self) -> Result<u64, EcError> {
        match &self.state {
            State::V1Ready { filter, .. } | State::V1Counting(filter) => {
                Ok(filter.num_solid() as u64)
            }
            State::ExactReady(s) => Ok(s.len() as u64),
            _ => Err(EcError::State("num_solid before finalize".into())),
        }
    }

    /// Whether the k-mer (exactly k bytes) is solid. exact-v1 answers from the
    /// Bloom bits, false positives included.
    pub fn contains(&self, kmer: &[u8]) -> Result<bool, EcError> {
        if kmer.len() != self.params.k {
            return Err(EcError::InvalidParam(format!(
                "k-mer of {} bytes, k = {}",
                kmer.len(),
                self.params.k
            )));
        }
        match &self.state {
            State::V1Ready { bloom, .. } => Ok(bloom.num_tuples() > 0 && bloom.contains(kmer)),
            State::ExactReady(s) => Ok(s.contains(kmer)),
            _ => Err(EcError::State("contains before finalize".into())),
        }
    }

    /// exact-v1: the GPU Bloom table bytes (`table_size = 8 * num_tuples`).
    pub fn export_v1(&self) -> Result<&BloomTableV1, EcError> {
        match &self.state {
            State::V1Ready { bloom, .. } => Ok(bloom),
            State::V1Counting(_) => Err(EcError::State("export_v1 before finalize".into())),
            _ => Err(EcError::State(
                "export_v1 needs an exact-v1 spectrum".into(),
            )),
        }
    }

    /// exact-v1: the solid list in list order (C strings).
    pub fn solid_list_v1(&self) -> Result<Vec<Vec<u8>>, EcError> {
        match &self.state {
            State::V1Ready { filter, .. } => Ok(filter.entries().map(|e| e.to_vec()).collect()),
            _ => Err(EcError::State(
                "solid_list_v1 needs a finalised exact-v1 spectrum".into(),
            )),
        }
    }

    pub(crate) fn solid_kmers(&self) -> Result<&SolidKmers, EcError> {
        match &self.state {
            State::ExactReady(s) => Ok(s),
            State::ExactCounting(_) => Err(EcError::State("correct before finalize".into())),
            _ => Err(EcError::State(
                "spectrum mode does not match the parameters".into(),
            )),
        }
    }
}
