//! The launch image of a batch of POA windows, shared with `kernels/poa.cu`:
//!
//! ```text
//! [params table][window descriptors][read codes + lengths]   uploaded
//! [window results][final graph nodes]                         downloaded
//! [graphs, links, numbering, DP cells]                        device only
//! ```
//!
//! Only symbol codes go up and only the final graph (letter, ring id, the
//! reads through each node) comes back; the host turns it into the MSA
//! rows exactly as `xlate_lpo_to_al` does and finishes the window with the
//! CPU path's own code.

use std::sync::Arc;

use crate::engine::device::{self, DeviceRepr};
use crate::poa::align::gap_tables;
use crate::poa::graph::{Letter, Lpo, index_symbols, limit_residues};
use crate::poa::replay::{self, FinalNode};
use crate::poa::{BatchConfig, CaseSwitch, Msa, WindowJob, WindowMsa, WindowResult};

device::device_struct! {
    /// One window: host twin of `struct PoaWindow` in kernels/poa.cu,
    /// whose `static_assert`s pin the same offsets. Offsets are bytes into
    /// the launch image.
    pub(super) struct PoaWindow (96 bytes) {
        pub graph0: u64 = 0,
        pub graph1: u64 = 8,
        pub links0: u64 = 16,
        pub links1: u64 = 24,
        pub dp: u64 = 32,
        pub misc: u64 = 40,
        pub out_nodes: u64 = 48,
        pub codes: u32 = 56,
        pub lens: u32 = 60,
        pub nreads: u32 = 64,
        pub maxlen: u32 = 68,
        pub max_nodes: u32 = 72,
        pub out: u32 = 76,
        pub params: u32 = 80,
        pub spare: u32 = 84,
        pub spare1: u64 = 88,
    }
}

device::device_struct! {
    /// One window's result: host twin of `struct PoaOut`.
    pub(super) struct PoaOut (16 bytes) {
        pub status: i32 = 0,
        pub n_nodes: i32 = 4,
        pub spare0: i32 = 8,
        pub spare1: i32 = 12,
    }
}

device::device_struct! {
    /// One node of a window's final graph: host twin of `struct PoaOutNode`.
    pub(super) struct PoaOutNode (8 bytes) {
        pub reads: u32 = 0,
        pub ring: i16 = 4,
        pub letter: u8 = 6,
        pub spare: u8 = 7,
    }
}

/// `POA_DONE` in the kernel: the final graph is complete.
const DONE: i32 = 1;
/// Most reads of a window (`POA_MAX_READS`: a node's reads are a 32-bit mask).
pub(crate) const MAX_READS: usize = 32;
/// Longest read (`POA_MAX_THREADS` - 1: one thread per read position).
pub(crate) const MAX_LEN: usize = 1023;
/// Most symbols of the score matrix (`POA_MAX_SYMBOLS`).
pub(crate) const MAX_SYMBOLS: usize = 32;
/// Most gap-length states (`POA_MAX_GAP`).
pub(crate) const MAX_GAP: i32 = 64;
const GAP_WORDS: usize = 68;
/// Words of one params table entry (`POA_PARAMS_WORDS`).
const PARAMS_WORDS: usize = 4 + 3 * GAP_WORDS + MAX_SYMBOLS * MAX_SYMBOLS;
const PARAMS_BYTES: usize = 4 * PARAMS_WORDS;
/// Bytes of the kernel's device-only node (`PoaNode`) and cell (`PoaCell`).
const NODE_BYTES: usize = 16;
const CELL_BYTES: usize = 8;

fn align128(n: usize) -> usize {
    n.next_multiple_of(128)
}

/// A window made ready for the kernel: the used reads (non-empty after
/// `create_seq`, at most `max_seqs`) as symbol codes, as
/// `initialize_seqs_as_lpo` codes them.
pub(super) struct Prepared {
    pub codes: Vec<u8>,
    pub lens: Vec<u32>,
    pub read_index: Vec<usize>,
    pub maxlen: usize,
    /// The graph's node budget: a graph that would grow past it goes back
    /// to the CPU.
    pub max_nodes: usize,
}

/// Node budget of a window: its graph cannot outgrow the sum of its read
/// lengths, and on CONSENT-like windows (10-15 % errors) the final graph
/// measured at most 2.5 times the longest read; more than three times it
/// (unrelated reads) goes back to the CPU.
fn node_budget(sum: usize, maxlen: usize) -> usize {
    sum.min(3 * maxlen + 64)
}

impl Prepared {
    /// `None` when no read is used (the CPU answers at once) or the used
    /// reads are beyond the kernel's limits.
    pub(super) fn of(job: &WindowJob) -> Option<Prepared> {
        let m = &job.config.matrix;
        let mut codes = Vec::new();
        let mut lens = Vec::new();
        let mut read_index = Vec::new();
        if job.config.want_graph {
            // Codes already, every read used (see `kernel_takes`).
            for (i, r) in job.reads.iter().enumerate() {
                if r.is_empty() || r.iter().any(|&c| c as usize >= m.nsymbol()) {
                    return None;
                }
                lens.push(r.len() as u32);
                codes.extend_from_slice(r);
                read_index.push(i);
            }
        }
        for (i, r) in job.reads.iter().enumerate() {
            if job.config.want_graph {
                break;
            }
            if read_index.len() >= job.config.max_seqs {
                break;
            }
            let mut l = Lpo::create_seq("", None, r, CaseSwitch::Keep);
            if l.sequence.is_empty() {
                continue;
            }
            limit_residues(&mut l.sequence, &m.symbols);
            index_symbols(&mut l.sequence, &m.symbols);
            lens.push(l.sequence.len() as u32);
            codes.extend_from_slice(&l.sequence);
            read_index.push(i);
        }
        let maxlen = lens.iter().copied().max().unwrap_or(0) as usize;
        if read_index.is_empty() || read_index.len() > MAX_READS || maxlen > MAX_LEN {
            return None;
        }
        Some(Prepared {
            max_nodes: node_budget(codes.len(), maxlen),
            codes,
            lens,
            read_index,
            maxlen,
        })
    }

    /// Threads of the window's block: one per read position, whole warps.
    pub(super) fn block(&self) -> u32 {
        (self.maxlen.next_multiple_of(32)).max(32) as u32
    }

    fn nreads(&self) -> usize {
        self.lens.len()
    }

    /// Bytes (crossing the bus, on the device in all).
    pub(super) fn bytes(&self) -> (usize, usize) {
        let io = PoaWindow::SIZE
            + self.codes.len()
            + 4 * self.nreads()
            + 8
            + PoaOut::SIZE
            + PoaOutNode::SIZE * self.max_nodes;
        let work = self.work_bytes();
        (io, io + work + 8 * 128)
    }

    fn work_bytes(&self) -> usize {
        let (n, l) = (self.max_nodes, self.maxlen);
        2 * align128(NODE_BYTES * n)
            + 2 * align128(2 * n * self.nreads())
            + align128(2 * (2 * n + 2 * l))
            + align128(CELL_BYTES * (n + l + 1) * (l + 1))
    }

    /// DP cells of the window (all reads after the first against a graph
    /// of the budget's size at most): for logs.
    fn cells(&self) -> u64 {
        self.lens[1..]
            .iter()
            .map(|&l| l as u64 * self.max_nodes as u64)
            .sum()
    }
}

/// The params of one configuration: gap tables and the score matrix.
fn params_words(c: &BatchConfig) -> Vec<i32> {
    let m = &c.matrix;
    let t = gap_tables(m, c.global);
    let mut w = vec![0i32; PARAMS_WORDS];
    w[0] = m.nsymbol() as i32;
    w[1] = m.max_gap_length;
    w[2] = i32::from(c.global);
    for (k, (&px, (&py, &nx))) in t.pen_x.iter().zip(t.pen_y.iter().zip(&t.next)).enumerate() {
        w[4 + k] = px;
        w[4 + GAP_WORDS + k] = py;
        w[4 + 2 * GAP_WORDS + k] = i32::from(nx);
    }
    let base = 4 + 3 * GAP_WORDS;
    w[base..base + m.score.len()].copy_from_slice(&m.score);
    w
}

/// Whether the kernel's tables hold this configuration.
pub(super) fn config_fits(c: &BatchConfig) -> bool {
    let m = &c.matrix;
    m.nsymbol() <= MAX_SYMBOLS
        && (0..=MAX_GAP).contains(&m.max_gap_length)
        && m.gap_penalty_x.len() == m.max_gap_length as usize + 2
        && m.gap_penalty_y.len() == m.max_gap_length as usize + 2
        && m.score.len() == m.nsymbol() * m.nsymbol()
}

/// Where one window sits in the image.
struct Placed {
    job: usize,
    params: u32,
    codes: usize,
    lens: usize,
    out_nodes: usize,
    work: usize,
}

/// The image of one launch (every window of it has the same block size).
pub(super) struct Layout {
    placed: Vec<Placed>,
    params: Vec<Arc<BatchConfig>>,
    pub block: u32,
    pub descs_at: usize,
    pub inputs_end: usize,
    pub outs_at: usize,
    pub results_end: usize,
    pub end: usize,
}

impl Layout {
    /// Places the windows `chunk` (indices into `jobs` and `prepared`).
    pub(super) fn new(
        jobs: &[WindowJob],
        prepared: &[Option<Prepared>],
        chunk: &[usize],
        block: u32,
    ) -> Layout {
        let mut params: Vec<Arc<BatchConfig>> = Vec::new();
        let mut placed: Vec<Placed> = chunk
            .iter()
            .map(|&job| {
                let c = &jobs[job].config;
                let at = match params.iter().rposition(|p| Arc::ptr_eq(p, c)) {
                    Some(at) => at,
                    None => {
                        params.push(c.clone());
                        params.len() - 1
                    }
                };
                Placed {
                    job,
                    params: at as u32,
                    codes: 0,
                    lens: 0,
                    out_nodes: 0,
                    work: 0,
                }
            })
            .collect();
        let prep = |p: &Placed| {
            prepared[p.job]
                .as_ref()
                .expect("placed windows are prepared")
        };
        let descs_at = align128(PARAMS_BYTES * params.len());
        let mut at = descs_at + PoaWindow::SIZE * placed.len();
        for p in &mut placed {
            let w = prep(p);
            p.lens = at.next_multiple_of(4);
            p.codes = p.lens + 4 * w.nreads();
            at = p.codes + w.codes.len();
        }
        let inputs_end = align128(at);
        let outs_at = inputs_end;
        at = outs_at + PoaOut::SIZE * placed.len();
        for p in &mut placed {
            p.out_nodes = at.next_multiple_of(8);
            at = p.out_nodes + PoaOutNode::SIZE * prep(p).max_nodes;
        }
        let results_end = align128(at);
        at = results_end;
        for p in &mut placed {
            p.work = at;
            at = align128(at + prep(p).work_bytes());
        }
        Layout {
            placed,
            params,
            block,
            descs_at,
            inputs_end,
            outs_at,
            results_end,
            end: at,
        }
    }

    pub(super) fn windows(&self) -> usize {
        self.placed.len()
    }

    /// DP cells of the launch at most (for logs).
    pub(super) fn cells(&self, prepared: &[Option<Prepared>]) -> u64 {
        self.placed
            .iter()
            .filter_map(|p| prepared[p.job].as_ref())
            .map(Prepared::cells)
            .sum()
    }

    /// Writes the params table, the descriptors, the codes and lengths.
    pub(super) fn pack(&self, staging: &mut [u8], prepared: &[Option<Prepared>]) {
        for (k, c) in self.params.iter().enumerate() {
            let entry = &mut staging[k * PARAMS_BYTES..][..PARAMS_BYTES];
            for (dst, v) in entry.chunks_exact_mut(4).zip(params_words(c)) {
                dst.copy_from_slice(&v.to_le_bytes());
            }
        }
        for (k, p) in self.placed.iter().enumerate() {
            let w = prepared[p.job]
                .as_ref()
                .expect("placed windows are prepared");
            let (n, l, r) = (w.max_nodes, w.maxlen, w.nreads());
            let graph = align128(NODE_BYTES * n);
            let links = align128(2 * n * r);
            let misc = align128(2 * (2 * n + 2 * l));
            let desc = PoaWindow {
                graph0: p.work as u64,
                graph1: (p.work + graph) as u64,
                links0: (p.work + 2 * graph) as u64,
                links1: (p.work + 2 * graph + links) as u64,
                misc: (p.work + 2 * graph + 2 * links) as u64,
                dp: (p.work + 2 * graph + 2 * links + misc) as u64,
                out_nodes: p.out_nodes as u64,
                codes: p.codes as u32,
                lens: p.lens as u32,
                nreads: r as u32,
                maxlen: l as u32,
                max_nodes: n as u32,
                out: (self.outs_at + k * PoaOut::SIZE) as u32,
                params: p.params * PARAMS_BYTES as u32,
                spare: 0,
                spare1: 0,
            };
            desc.write_to(&mut staging[self.descs_at + k * PoaWindow::SIZE..]);
            for (i, &len) in w.lens.iter().enumerate() {
                staging[p.lens + 4 * i..][..4].copy_from_slice(&len.to_le_bytes());
            }
            staging[p.codes..p.codes + w.codes.len()].copy_from_slice(&w.codes);
        }
    }

    /// Each window's result, `None` where the kernel did not finish it
    /// (its graph outgrew the budget): the CPU reruns those.
    pub(super) fn unpack(
        &self,
        staging: &[u8],
        jobs: &[WindowJob],
        prepared: &[Option<Prepared>],
        results: &mut [Option<WindowResult>],
    ) {
        let decoded: Vec<Option<WindowResult>> = crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            self.placed
                .par_iter()
                .enumerate()
                .with_min_len(64)
                .map(|(k, p)| {
                    let w = prepared[p.job].as_ref()?;
                    let out = PoaOut::read_from(&staging[self.outs_at + k * PoaOut::SIZE..]);
                    let n = usize::try_from(out.n_nodes).ok()?;
                    if out.status != DONE || n > w.max_nodes {
                        return None;
                    }
                    let nodes = &staging[p.out_nodes..p.out_nodes + n * PoaOutNode::SIZE];
                    let job = &jobs[p.job];
                    if job.config.want_graph {
                        // A graph it cannot rebuild without doubt goes
                        // back to the CPU.
                        let graph = rebuild_graph(nodes, job)?;
                        return Some(job.graph_result(Some(graph)));
                    }
                    let msa = graph_to_msa(nodes, w.nreads(), &job.config.matrix.symbols, b'-');
                    Some(job.finish(Some(WindowMsa {
                        msa,
                        names: Vec::new(),
                        read_index: w.read_index.clone(),
                        truncated: false,
                    })))
                })
                .collect()
        });
        for (p, r) in self.placed.iter().zip(decoded) {
            results[p.job] = r;
        }
    }
}

/// The whole graph of a graph window from its final nodes
/// ([`replay::rebuild`]).
fn rebuild_graph(nodes: &[u8], job: &WindowJob) -> Option<Vec<Letter>> {
    let nodes: Vec<FinalNode> = nodes
        .chunks_exact(PoaOutNode::SIZE)
        .map(|b| {
            let n = PoaOutNode::read_from(b);
            FinalNode {
                letter: n.letter,
                ring: n.ring as i32,
                reads: n.reads,
            }
        })
        .collect();
    let reads: Vec<&[u8]> = job.reads.iter().map(|r| r.as_slice()).collect();
    replay::rebuild(&reads, &nodes)
}

/// The MSA rows of a final graph, as `xlate_lpo_to_al` lays them out: a
/// column per run of nodes with the same ring id (counted from 0, as
/// upstream counts), each read's symbol in the columns of its nodes.
fn graph_to_msa(nodes: &[u8], nreads: usize, symbols: &[u8], gap: u8) -> Msa {
    let nodes: Vec<PoaOutNode> = nodes
        .chunks_exact(PoaOutNode::SIZE)
        .map(PoaOutNode::read_from)
        .collect();
    let mut current = 0i32;
    let mut ncols = 1;
    for n in &nodes {
        if n.ring as i32 != current {
            current = n.ring as i32;
            ncols += 1;
        }
    }
    let mut rows = vec![vec![gap; ncols]; nreads];
    let (mut current, mut col) = (0i32, 0usize);
    for n in &nodes {
        if n.ring as i32 != current {
            current = n.ring as i32;
            col += 1;
        }
        let c = symbols.get(n.letter as usize).copied().unwrap_or(n.letter);
        let mut reads = n.reads;
        while reads != 0 {
            let r = reads.trailing_zeros() as usize;
            reads &= reads - 1;
            if let Some(row) = rows.get_mut(r) {
                row[col] = c;
            }
        }
    }
    Msa { ncols, rows }
}
