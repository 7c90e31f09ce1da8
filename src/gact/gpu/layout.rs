//! The launch image of a batch of tiles, shared with `kernels/gact.cu`:
//!
//! ```text
//! [params table][tile descriptors][base codes]      uploaded
//! [tile results][states]                             downloaded
//! [direction words]                                  device only
//! ```
//!
//! Only codes go up and only the states come back; the direction codes
//! (4 bits a cell) never leave the device.

use std::collections::HashMap;

use crate::engine::device::{self, DeviceRepr};
use crate::gact::{Params, TileJob, TileResult};

device::device_struct! {
    /// One tile: host twin of `struct GactTile` in kernels/gact.cu, whose
    /// `static_assert`s pin the same offsets. Offsets are bytes into the
    /// launch image.
    pub(super) struct GactTile (56 bytes) {
        pub dir: u64 = 0,
        pub ref_codes: u32 = 8,
        pub query_codes: u32 = 12,
        pub ops: u32 = 16,
        pub ops_cap: u32 = 20,
        pub params: u32 = 24,
        pub m: i32 = 28,
        pub n: i32 = 32,
        pub ref_pos: i32 = 36,
        pub query_pos: i32 = 40,
        pub first: u32 = 44,
        pub early_terminate: i32 = 48,
        pub narrow: u32 = 52,
    }
}

device::device_struct! {
    /// One tile's result: host twin of `struct GactTileOut`.
    pub(super) struct GactTileOut (32 bytes) {
        pub score: i32 = 0,
        pub max_i: i32 = 4,
        pub max_j: i32 = 8,
        pub ref_steps: i32 = 12,
        pub query_steps: i32 = 16,
        pub n_ops: i32 = 20,
        pub status: i32 = 24,
        pub spare: i32 = 28,
    }
}

/// `GACT_DONE` in the kernel: the states are complete.
const DONE: i32 = 1;
/// Words of a params table entry (`GACT_PARAMS_WORDS`).
const PARAMS_WORDS: usize = 28;
const PARAMS_BYTES: usize = 4 * PARAMS_WORDS;

/// The fill's wavefront shape (`gact_geom` / `gact16_geom` in the kernel).
/// Wide tiles: each of `lanes` warp lanes owns `r` consecutive rows; a step
/// advances every lane by one column; a lane stores `planes` words of eight
/// 4-bit codes per step. Narrow tiles: each lane owns two strips of `r`
/// rows, the second one column behind the first, and stores `planes` words
/// of four codes of each strip per step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Geometry {
    pub r: usize,
    pub lanes: usize,
    pub steps: usize,
    pub planes: usize,
}

impl Geometry {
    /// For an `m` x `n` tile, both at least 1.
    pub(super) fn new(m: usize, n: usize, narrow: bool) -> Geometry {
        if narrow {
            let r = m.div_ceil(64);
            let lanes = m.div_ceil(2 * r);
            Geometry {
                r,
                lanes,
                steps: n + 2 * lanes - 1,
                planes: r.div_ceil(4),
            }
        } else {
            let r = m.div_ceil(32);
            let lanes = m.div_ceil(r);
            Geometry {
                r,
                lanes,
                steps: n + lanes - 1,
                planes: r.div_ceil(8),
            }
        }
    }

    /// Bytes of the tile's direction words.
    pub(super) fn dir_bytes(&self) -> usize {
        4 * self.planes * self.steps * self.lanes
    }
}

/// What decides whether a scoring's tiles run in the 16-bit kernel
/// (`seqshim_gact_fill16`): its largest positive substitution and the
/// lowest value an I, D or M can take (a substitution, a gap open and an
/// extension).
#[derive(Clone, Copy)]
struct NarrowBounds {
    s_max: i64,
    lowest: i64,
}

impl NarrowBounds {
    fn of(p: &Params) -> NarrowBounds {
        let s_max = p.sub_mat.iter().copied().max().unwrap_or(0).max(0) as i64;
        let s_min = p.sub_mat.iter().copied().min().unwrap_or(0).min(0) as i64;
        NarrowBounds {
            s_max,
            lowest: s_min + p.gap_open as i64 + p.gap_extend as i64,
        }
    }

    /// H and M stay within 2000 (at most min(m, n) + 1 positive
    /// substitutions) and every value at least -1000: the bounds under
    /// which the kernel's tagged 16-bit values cannot overflow and compare
    /// as the 32-bit ones do (see the kernel).
    fn narrow(&self, m: usize, n: usize) -> bool {
        (m.min(n) as i64 + 1) * self.s_max <= 2000 && self.lowest >= -1000
    }
}

/// Whether the tile runs in the 16-bit kernel.
#[cfg(test)]
fn narrow(job: &TileJob) -> bool {
    NarrowBounds::of(&job.params).narrow(job.ref_.len(), job.query.len())
}

fn align128(n: usize) -> usize {
    n.next_multiple_of(128)
}

/// Most states a tile can emit: each consumes a base, and the walk stops
/// once either sequence consumed `early_terminate`.
fn ops_cap(job: &TileJob) -> usize {
    let et = job.opts.early_terminate.max(0) as usize;
    (job.ref_.len() + job.query.len()).min(2 * et)
}

/// Bytes a tile takes: (crossing the bus, on the device in all).
pub(super) fn tile_bytes(job: &TileJob) -> (usize, usize) {
    let (m, n) = (job.ref_.len(), job.query.len());
    let io = GactTile::SIZE + m + n + GactTileOut::SIZE + ops_cap(job);
    // Planned without the scoring: the larger of the two kernels' layouts.
    let dir = Geometry::new(m, n, false)
        .dir_bytes()
        .max(Geometry::new(m, n, true).dir_bytes());
    (io, io + align128(dir) + 128)
}

/// The distinct scorings of a launch. A batch usually has one, so the last
/// one found is tried first; hashing 27 numbers per tile cost more than
/// the rest of the layout.
#[derive(Default)]
struct ParamsTable {
    list: Vec<Params>,
    index: HashMap<Params, (u32, NarrowBounds)>,
    last: Option<(Params, u32, NarrowBounds)>,
}

impl ParamsTable {
    /// The scoring's index in the table and its 16-bit bounds.
    fn index(&mut self, p: &Params) -> (u32, NarrowBounds) {
        if let Some((last, at, bounds)) = &self.last
            && last == p
        {
            return (*at, *bounds);
        }
        let list = &mut self.list;
        let (at, bounds) = *self.index.entry(*p).or_insert_with(|| {
            list.push(*p);
            ((list.len() - 1) as u32, NarrowBounds::of(p))
        });
        self.last = Some((*p, at, bounds));
        (at, bounds)
    }
}

/// Where one tile sits in the image.
struct Placed {
    job: usize,
    params: u32,
    /// Filled by `seqshim_gact_fill16`.
    narrow: bool,
    codes: usize,
    ops: usize,
    ops_cap: usize,
    dir: usize,
}

/// The image of one launch.
pub(super) struct Layout {
    placed: Vec<Placed>,
    /// Tiles for `seqshim_gact_fill16` (the others go to `seqshim_gact_fill`).
    pub narrow_tiles: usize,
    params: Vec<Params>,
    pub params_at: usize,
    pub descs_at: usize,
    pub inputs_end: usize,
    pub outs_at: usize,
    pub results_end: usize,
    pub end: usize,
}

impl Layout {
    /// Places the tiles `chunk` (indices into `jobs`) one after the other.
    pub(super) fn new(jobs: &[TileJob], chunk: &[usize]) -> Layout {
        let mut params = ParamsTable::default();
        let mut placed: Vec<Placed> = chunk
            .iter()
            .map(|&job| {
                let j = &jobs[job];
                let (index, bounds) = params.index(&j.params);
                Placed {
                    job,
                    params: index,
                    narrow: bounds.narrow(j.ref_.len(), j.query.len()),
                    codes: 0,
                    ops: 0,
                    ops_cap: ops_cap(j),
                    dir: 0,
                }
            })
            .collect();
        let params = params.list;
        let narrow_tiles = placed.iter().filter(|p| p.narrow).count();
        let params_at = 0;
        let descs_at = align128(params_at + PARAMS_BYTES * params.len());
        let mut at = descs_at + GactTile::SIZE * placed.len();
        for p in &mut placed {
            let j = &jobs[p.job];
            p.codes = at;
            at += j.ref_.len() + j.query.len();
        }
        let inputs_end = align128(at);
        let outs_at = inputs_end;
        at = outs_at + GactTileOut::SIZE * placed.len();
        for p in &mut placed {
            p.ops = at;
            at += p.ops_cap;
        }
        let results_end = align128(at);
        at = results_end;
        for p in &mut placed {
            let j = &jobs[p.job];
            p.dir = at;
            at = align128(at + Geometry::new(j.ref_.len(), j.query.len(), p.narrow).dir_bytes());
        }
        Layout {
            placed,
            narrow_tiles,
            params,
            params_at,
            descs_at,
            inputs_end,
            outs_at,
            results_end,
            end: at,
        }
    }

    pub(super) fn tiles(&self) -> usize {
        self.placed.len()
    }

    /// DP cells of the launch.
    pub(super) fn cells(&self, jobs: &[TileJob]) -> u64 {
        self.placed
            .iter()
            .map(|p| (jobs[p.job].ref_.len() * jobs[p.job].query.len()) as u64)
            .sum()
    }

    /// Writes the params table, descriptors and base codes (in DP order:
    /// `reverse` tiles read backwards, so the kernel always runs forward).
    /// The codes, the bulk of the bytes, are written by the device host pool.
    pub(super) fn pack(&self, staging: &mut [u8], jobs: &[TileJob]) {
        for (k, p) in self.params.iter().enumerate() {
            let entry = &mut staging[self.params_at + k * PARAMS_BYTES..][..PARAMS_BYTES];
            let tail = [p.gap_open, p.gap_extend, 0];
            let words = p.sub_mat.iter().chain(&tail);
            for (dst, v) in entry.chunks_exact_mut(4).zip(words) {
                dst.copy_from_slice(&v.to_le_bytes());
            }
        }
        // The descriptors and the codes (placed in order, back to back) are
        // split into one slice per tile and written in parallel.
        // The codes start right after the descriptors (see `new`).
        let (head, mut rest) =
            staging.split_at_mut(self.descs_at + GactTile::SIZE * self.placed.len());
        let descs = head[self.descs_at..].chunks_exact_mut(GactTile::SIZE);
        let mut parts = Vec::with_capacity(self.placed.len());
        for (p, desc) in self.placed.iter().zip(descs) {
            let j = &jobs[p.job];
            let (part, after) = rest.split_at_mut(j.ref_.len() + j.query.len());
            parts.push((p, desc, part));
            rest = after;
        }
        crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            parts
                .into_par_iter()
                .with_min_len(256)
                .for_each(|(p, desc, part)| {
                    let j = &jobs[p.job];
                    tile_desc(p, j).write_to(desc);
                    let (r, q) = part.split_at_mut(j.ref_.len());
                    encode(r, &j.ref_, j.opts.reverse);
                    encode(q, &j.query, j.opts.reverse);
                });
        });
    }

    /// Each tile's result, `None` where the kernel did not finish it, from
    /// the launch's results: `part` is the staging bytes from `outs_at` to
    /// `results_end`, so that the next launch's inputs can be packed into
    /// the bytes before it meanwhile.
    pub(super) fn decode(&self, part: &[u8]) -> Vec<Option<TileResult>> {
        crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            self.placed
                .par_iter()
                .enumerate()
                .with_min_len(256)
                .map(|(k, p)| {
                    let out = GactTileOut::read_from(&part[k * GactTileOut::SIZE..]);
                    let n_ops = usize::try_from(out.n_ops).ok()?;
                    if out.status != DONE || n_ops > p.ops_cap {
                        return None;
                    }
                    let ops = p.ops - self.outs_at;
                    Some(TileResult {
                        score: out.score,
                        max_i: usize::try_from(out.max_i).ok()?,
                        max_j: usize::try_from(out.max_j).ok()?,
                        ref_steps: usize::try_from(out.ref_steps).ok()?,
                        query_steps: usize::try_from(out.query_steps).ok()?,
                        ops: part[ops..ops + n_ops].to_vec(),
                    })
                })
                .collect()
        })
    }

    /// Puts `decode`'s results in their jobs' places.
    pub(super) fn place(
        &self,
        decoded: Vec<Option<TileResult>>,
        results: &mut [Option<Result<TileResult, crate::gact::GactError>>],
    ) {
        for (p, r) in self.placed.iter().zip(decoded) {
            results[p.job] = r.map(Ok);
        }
    }
}

fn tile_desc(p: &Placed, j: &TileJob) -> GactTile {
    GactTile {
        dir: p.dir as u64,
        ref_codes: p.codes as u32,
        query_codes: (p.codes + j.ref_.len()) as u32,
        ops: p.ops as u32,
        ops_cap: p.ops_cap as u32,
        params: p.params,
        m: j.ref_.len() as i32,
        n: j.query.len() as i32,
        ref_pos: j.opts.ref_pos,
        query_pos: j.opts.query_pos,
        first: u32::from(j.opts.first),
        early_terminate: j.opts.early_terminate,
        narrow: u32::from(p.narrow),
    }
}

/// Base codes in DP order.
fn encode(out: &mut [u8], seq: &[u8], reverse: bool) {
    if reverse {
        for (o, &b) in out.iter_mut().zip(seq.iter().rev()) {
            *o = code_of(b);
        }
    } else {
        for (o, &b) in out.iter_mut().zip(seq) {
            *o = code_of(b);
        }
    }
}

/// `base_code(b)` computed rather than looked up: with no table load per
/// byte the compiler vectorizes `encode`, which packing spent most of its
/// time in. A/C/G/T (either case, bit 5 cleared) carry their code in bits
/// 1-2 as 0, 1, 3, 2; every other byte is 4. A test checks all 256 bytes.
#[inline(always)]
fn code_of(b: u8) -> u8 {
    let upper = b & 0xDF;
    let bits = (upper >> 1) & 3;
    let code = bits ^ (bits >> 1);
    let acgt = (upper == b'A') | (upper == b'C') | (upper == b'G') | (upper == b'T');
    if acgt { code } else { 4 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gact::scoring::base_code;

    #[test]
    fn computed_codes_equal_base_code_for_every_byte() {
        for b in 0..=255u8 {
            assert_eq!(code_of(b), base_code(b), "byte {b}");
        }
        let seq: Vec<u8> = (0..=255u8).cycle().take(700).collect();
        let (mut fwd, mut rev) = (vec![9u8; 700], vec![9u8; 700]);
        encode(&mut fwd, &seq, false);
        encode(&mut rev, &seq, true);
        for (k, &b) in seq.iter().enumerate() {
            assert_eq!(fwd[k], base_code(b));
            assert_eq!(rev[699 - k], base_code(b));
        }
    }

    #[test]
    fn geometry_covers_every_row_with_at_most_32_lanes() {
        for m in 1..=511 {
            let g = Geometry::new(m, 7, false);
            assert!(g.lanes <= 32 && g.r <= 16 && g.lanes * g.r >= m);
            assert!((g.lanes - 1) * g.r < m, "every lane owns a row");
            assert_eq!(g.steps, 7 + g.lanes - 1);
            // Narrow: two strips of r rows a lane, r <= GACT16_MAX_RH.
            let g = Geometry::new(m, 7, true);
            assert!(g.lanes <= 32 && g.r <= 8 && 2 * g.lanes * g.r >= m);
            assert!((g.lanes - 1) * 2 * g.r < m, "every lane owns a row");
            assert_eq!(g.steps, 7 + 2 * g.lanes - 1);
            assert_eq!(g.planes, g.r.div_ceil(4));
        }
        assert_eq!(Geometry::new(320, 320, false).r, 10);
        assert_eq!(Geometry::new(320, 320, false).planes, 2);
        assert_eq!(Geometry::new(320, 320, true).r, 5);
        assert_eq!(Geometry::new(320, 320, true).lanes, 32);
    }

    #[test]
    fn narrow_tiles_are_the_ones_within_the_16_bit_bounds() {
        let job = |m: usize, params: Params| TileJob {
            ref_: vec![b'A'; m],
            query: vec![b'C'; 511],
            params,
            opts: crate::gact::TileOptions {
                ref_pos: 0,
                query_pos: 0,
                reverse: false,
                first: true,
                early_terminate: 10,
            },
        };
        assert!(narrow(&job(511, Params::darwin_default())));
        // (399 + 1) * 5 = 2000; one base more is over.
        let wide_match = Params::from_match_mismatch(5, -4, -2, -10, -1);
        assert!(narrow(&job(399, wide_match)));
        assert!(!narrow(&job(400, wide_match)));
        // -400 - 300 - 300 = -1000; one lower is over.
        let low = Params::from_match_mismatch(1, -400, -1, -300, -300);
        assert!(narrow(&job(10, low)));
        let lower = Params::from_match_mismatch(1, -400, -1, -301, -300);
        assert!(!narrow(&job(10, lower)));
    }
}
