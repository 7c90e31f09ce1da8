//! Where a batch's time goes, for benchmarks (`TileRunner::run_timed`):
//! the host's share (laying out and packing launches, waiting for a lane,
//! decoding results) and the GPU's (copies, the fill and the traceback, from
//! events recorded around each on the lane's stream).
//!
//! The two lanes run on two streams, so their launches may overlap on the
//! GPU: the per-step sums can exceed the wall time, and the busy times are
//! the union of the launches' intervals.

use std::time::{Duration, Instant};

use crate::engine::device::{Arena, DeviceError, Mark};

/// Events of one launch, in stream order: upload start, fill start, trace
/// start, trace end, download end.
pub(super) struct LaunchMarks(Vec<Mark>);

impl LaunchMarks {
    pub(super) fn new() -> LaunchMarks {
        LaunchMarks(Vec::with_capacity(5))
    }

    /// Records the next event after the work queued so far on `arena`.
    pub(super) fn mark(&mut self, arena: &mut Arena) -> Result<(), DeviceError> {
        self.0.push(arena.mark()?);
        Ok(())
    }
}

/// What `run_timed` collects while a batch runs.
#[derive(Default)]
pub(super) struct Timeline {
    pub pack: Duration,
    pub wait: Duration,
    pub unpack: Duration,
    /// Per launch, the five events' times; a launch whose events the
    /// driver could not time is left out.
    launches: Vec<[Instant; 5]>,
}

impl Timeline {
    /// Adds a finished launch (its lane synchronized) from its marks.
    pub(super) fn add_launch(&mut self, arena: &Arena, marks: &LaunchMarks) {
        let times: Option<Vec<Instant>> = marks.0.iter().map(|m| arena.mark_time(m)).collect();
        if let Some(Ok(times)) = times.map(<[Instant; 5]>::try_from) {
            self.launches.push(times);
        }
    }

    pub(super) fn summary(&self, wall: Duration, cells: u64) -> BatchTiming {
        let step = |from: usize, to: usize| -> Duration {
            self.launches
                .iter()
                .map(|t| t[to].saturating_duration_since(t[from]))
                .sum()
        };
        BatchTiming {
            wall,
            cells,
            launches: self.launches.len(),
            pack: self.pack,
            wait: self.wait,
            unpack: self.unpack,
            upload: step(0, 1),
            fill: step(1, 2),
            trace: step(2, 3),
            download: step(3, 4),
            kernels_busy: union(self.launches.iter().map(|t| (t[1], t[3]))),
            gpu_busy: union(self.launches.iter().map(|t| (t[0], t[4]))),
        }
    }
}

/// Total length of the union of intervals.
fn union(intervals: impl Iterator<Item = (Instant, Instant)>) -> Duration {
    let mut all: Vec<(Instant, Instant)> = intervals.filter(|(a, b)| b > a).collect();
    all.sort();
    let mut total = Duration::ZERO;
    let mut current: Option<(Instant, Instant)> = None;
    for (start, end) in all {
        current = match current {
            Some((s, e)) if start <= e => Some((s, e.max(end))),
            Some((s, e)) => {
                total += e - s;
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((s, e)) = current {
        total += e - s;
    }
    total
}

/// Where one batch's time went.
#[derive(Clone, Debug)]
pub struct BatchTiming {
    /// The whole `run_timed` call.
    pub wall: Duration,
    /// DP cells of the tiles the GPU took.
    pub cells: u64,
    /// Launches whose events were timed.
    pub launches: usize,
    /// Host: laying out, packing and queuing launches.
    pub pack: Duration,
    /// Host: waiting for a lane's launch to finish.
    pub wait: Duration,
    /// Host: decoding results into `TileResult`s.
    pub unpack: Duration,
    /// GPU, summed over launches: copies up, fill, traceback, copies back.
    pub upload: Duration,
    pub fill: Duration,
    pub trace: Duration,
    pub download: Duration,
    /// GPU: time some launch's kernels ran (union over both lanes).
    pub kernels_busy: Duration,
    /// GPU: time some launch's copies or kernels ran.
    pub gpu_busy: Duration,
}

impl BatchTiming {
    /// GCUPS over `time`.
    pub fn gcups(&self, time: Duration) -> f64 {
        self.cells as f64 / time.as_secs_f64().max(1e-12) / 1e9
    }
}

impl std::fmt::Display for BatchTiming {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "end-to-end {:.2} ms ({:.1} GCUPS); kernels busy {:.2} ms ({:.1} GCUPS kernel-only: fill {:.2} + traceback {:.2} ms summed), \
             GPU busy with copies {:.2} ms (up {:.2}, down {:.2} summed); host packing {:.2} ms, waiting {:.2} ms, decoding {:.2} ms; {} launches",
            ms(self.wall),
            self.gcups(self.wall),
            ms(self.kernels_busy),
            self.gcups(self.kernels_busy),
            ms(self.fill),
            ms(self.trace),
            ms(self.gpu_busy),
            ms(self.upload),
            ms(self.download),
            ms(self.pack),
            ms(self.wait),
            ms(self.unpack),
            self.launches
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_merges_overlaps_and_keeps_gaps() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let spans = [
            (at(0), at(10)),
            (at(5), at(12)),
            (at(20), at(25)),
            (at(21), at(22)),
        ];
        assert_eq!(union(spans.into_iter()), Duration::from_millis(17));
        assert_eq!(union(std::iter::empty()), Duration::ZERO);
    }
}
