//! One BOA `buildup_progressive_lpo` call through the engine's cost-aware
//! routing: a window the POA kernel takes goes to a device only when its
//! graph is expected back sooner than the caller's own thread would build
//! it; everything else is built by the caller, as before.
//!
//! The window travels as a graph window ([`BatchConfig::want_graph`]): the
//! reads' symbol codes go up, and the device's final nodes come back as the
//! whole graph ([`super::replay`]), or, where that cannot be done without
//! doubt, the window is built on the CPU after all. Either way the letters
//! are those the CPU path's [`buildup_progressive`](super::buildup_progressive)
//! gives.

use std::cell::RefCell;
use std::sync::Arc;

use super::graph::Letter;
use super::{BatchConfig, ConsensusRule, Poa, ScoreMatrix, WindowJob};
use crate::engine::family::{self, Placement, Timing};
use crate::engine::scheduler::{Job, ScheduleError};

/// What [`build_on_device`] did with a window.
pub enum Offer {
    /// The letters of the fused graph, from a device (or from the CPU
    /// rescue of a window the device could not finish).
    Device(Vec<Letter>),
    /// Strict mode: the device failed and no CPU rescue was allowed.
    Failed(ScheduleError),
    /// The caller builds the window on its own thread, holding the timer
    /// meanwhile so that the routing learns what windows cost there.
    Here(Timing<WindowJob>),
}

/// The routing cost of a window of `nreads` reads whose longest has
/// `longest` symbols: [`WindowJob`]'s cost for the same window.
pub fn window_cost(nreads: usize, longest: usize) -> u64 {
    (nreads as u64) * (longest as u64) * (longest as u64)
}

/// Whether aligning two different symbols never scores above a gap on
/// each side under `matrix`. Then a read is (almost) never aligned to a
/// node of another letter, alignment rings stay small and a device's final
/// nodes give the whole graph without doubt; with cheaper mismatches rings
/// of three and more nodes are common, many windows would come back from
/// the device only to be built again here, and they stay here from the
/// start.
pub fn mismatches_cost_two_gaps(matrix: &ScoreMatrix) -> bool {
    let n = matrix.nsymbol();
    let (Some(&gx), Some(&gy)) = (matrix.gap_penalty_x.first(), matrix.gap_penalty_y.first())
    else {
        return false;
    };
    let two_gaps = -(i64::from(gx) + i64::from(gy));
    (0..n).all(|a| (0..n).all(|b| a == b || i64::from(matrix.score[a * n + b]) <= two_gaps))
}

/// The shared configuration of graph windows with this matrix and mode
/// (`None` when such windows stay on the CPU, see
/// [`mismatches_cost_two_gaps`]): the last one a thread used, while the
/// matrix stays the same (a tool reads its matrix once), so that windows
/// of one launch share one parameter table.
fn config_for(matrix: &ScoreMatrix, global: bool) -> Option<Arc<BatchConfig>> {
    type Last = Option<(Arc<BatchConfig>, bool)>;
    thread_local! {
        static LAST: RefCell<Last> = const { RefCell::new(None) };
    }
    LAST.with(|last| {
        let mut last = last.borrow_mut();
        if let Some((c, routed)) = &*last
            && c.global == global
            && c.matrix == *matrix
        {
            return routed.then(|| c.clone());
        }
        let c = Arc::new(BatchConfig {
            matrix: matrix.clone(),
            global,
            consensus: ConsensusRule::ColumnMajority,
            max_seqs: usize::MAX,
            want_msa: false,
            want_graph: true,
        });
        let routed = mismatches_cost_two_gaps(matrix);
        *last = Some((c.clone(), routed));
        routed.then_some(c)
    })
}

/// Whether BOA calls are offered to the devices at all:
/// `SEQSHIM_POA_TRANSPARENT=1` turns it on. Off by default: on a 16-core
/// H200 host the routed path measured 0.85–1.15× the CPU path (three of six
/// cells slower, BENCHMARKS.md), and offering calls starts the POA devices,
/// whose lanes are reserved up front. The batch API is not affected.
fn enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| {
        crate::engine::config::get().setting::<bool>("SEQSHIM_POA_TRANSPARENT") == Some(true)
    })
}

/// Offers one window to the devices. `cost` is [`window_cost`] of the
/// window; `reads` gives the reads' symbol codes, in the call's order, or
/// `None` when the call is not a plain window (its sequences are not
/// fresh linear graphs): it is called only when the routing sends the
/// window to a device. Windows the kernel does not take stay here.
pub fn build_on_device(
    cost: u64,
    matrix: &ScoreMatrix,
    global: bool,
    reads: impl FnOnce() -> Option<Vec<Vec<u8>>>,
) -> Offer {
    #[cfg(test)]
    if let Some(device) = tests::FORCE.with(std::cell::Cell::get) {
        return forced(device, cost, matrix, global, reads);
    }
    if !enabled() {
        return Offer::Here(Timing::Untimed);
    }
    let placed = family::place::<Poa>(cost, || {
        let config = config_for(matrix, global)?;
        let job = WindowJob {
            reads: reads()?,
            config,
        };
        (job.cost() == cost).then_some(job)
    });
    offer_of(placed)
}

fn offer_of(placed: Placement<WindowJob>) -> Offer {
    match placed {
        Placement::Here(timer) => Offer::Here(timer),
        Placement::Submitted(Ok(result)) => match result.graph {
            Some(letters) => Offer::Device(letters),
            // The memory bound stopped the fusion: the caller's own path
            // reports it as upstream does.
            None => Offer::Here(Timing::Untimed),
        },
        Placement::Submitted(Err(e)) => Offer::Failed(e),
    }
}

/// The symbol codes of `seq` when it is a fresh linear graph (what
/// `initialize_seqs_as_lpo` makes of a read: one source, letter `i` linked
/// to `i - 1` and `i + 1` only, passed by that source at `i`, alone on its
/// ring, score 0) with codes below `nsymbol`; `None` otherwise.
pub fn linear_codes(seq: &super::Lpo, nsymbol: usize) -> Option<Vec<u8>> {
    if seq.sources.len() != 1 || seq.letters.is_empty() {
        return None;
    }
    let codes: Vec<u8> = seq.letters.iter().map(|l| l.letter).collect();
    let plain = codes.iter().all(|&c| (c as usize) < nsymbol)
        && seq.letters.iter().all(|l| l.score.to_bits() == 0)
        && seq.letters == super::graph::linear_letters(&codes);
    plain.then_some(codes)
}

/// Unit tests: a window sent to the (emulated) device, or kept here,
/// whatever the routing would say.
#[cfg(test)]
fn forced(
    device: bool,
    cost: u64,
    matrix: &ScoreMatrix,
    global: bool,
    reads: impl FnOnce() -> Option<Vec<Vec<u8>>>,
) -> Offer {
    let job = device
        .then(|| config_for(matrix, global))
        .flatten()
        .and_then(|config| {
            Some(WindowJob {
                reads: reads()?,
                config,
            })
        })
        .filter(|j| j.gpu_eligible() && j.cost() == cost);
    let Some(job) = job else {
        return Offer::Here(Timing::Untimed);
    };
    let offer = offer_of(Placement::Submitted(
        family::scheduler::<Poa>().submit_routed(job, None),
    ));
    if matches!(offer, Offer::Device(_)) {
        tests::FROM_DEVICE.with(|n| n.set(n.get() + 1));
    }
    offer
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// `Some(true)`: send every window the kernel takes to the device;
        /// `Some(false)`: keep every window here; `None`: route.
        pub(crate) static FORCE: Cell<Option<bool>> = const { Cell::new(None) };
        /// Windows whose graph came back from the device while forced.
        pub(crate) static FROM_DEVICE: Cell<usize> = const { Cell::new(0) };
    }
}
