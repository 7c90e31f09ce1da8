// POA v2 (BOA) windows on the GPU: one block per window builds the window's
// partial-order graph progressively, exactly as the CPU path (src/poa/align.rs,
// fuse.rs, build.rs) does, and writes the final graph (letter, ring id and
// the reads passing through each node) for the host to turn into MSA rows.
//
// Per read after the first:
//   1. the DP of the read (y, one thread per read position) against the
//      graph (x, nodes in index order, which is a topological order): an
//      anti-diagonal wavefront, step s computing cell (i, s - i) on thread
//      i, with every cell (score, gap-length states, move) kept in device
//      memory anti-diagonal-major because a node's predecessors may lie
//      anywhere above it;
//   2. the end cell (a per-thread best, then an ordered reduction, which
//      gives upstream's minimum-x-then-minimum-y choice among ties);
//   3. the traceback (one thread);
//   4. the fusion: new node numbering (one thread, upstream's walk), the
//      relocated graph (all threads), then the alignment rings (one thread).
//
// Every comparison, loop order and tie rule is the CPU path's: a match must
// strictly beat both gap moves, the y gap wins a tie with the x gap,
// predecessors are tried in list order with strict '>', the virtual start
// link comes first, gap-length states saturate at the truncation length.
// Link scores are zero on this path (nothing assigns them), so they are
// left out of the sums.
//
// Limits (the host checks them before a window is sent): at most 32 reads
// (a node's reads are one 32-bit mask), reads of at most 1,023 bases (one
// thread each, blocks of up to 1,024 threads),
// at most 32 symbols and 64 gap-length states; a graph that would outgrow
// the window's node budget stops with POA_OVERFLOW and the CPU redoes the
// window.
#include "common.cuh"

#define POA_MIN_SCORE (-999999)
#define POA_MAX_READS 32
#define POA_MAX_THREADS 1024
#define POA_MAX_SYMBOLS 32
#define POA_MAX_GAP 64
// Entries of each gap table: states 0..=POA_MAX_GAP + 1, padded.
#define POA_GAP_WORDS 68
// Words of one params table entry (host twin: PARAMS_WORDS in layout.rs):
// nsym, max_gap, global, spare, pen_x[68], pen_y[68], next[68], score[32*32].
#define POA_PARAMS_WORDS (4 + 3 * POA_GAP_WORDS + POA_MAX_SYMBOLS * POA_MAX_SYMBOLS)

#define POA_DONE 1
#define POA_OVERFLOW 2

#define POA_INITIAL 1u
#define POA_FINAL 2u

// Host twin: `PoaWindow` in src/poa/gpu/layout.rs (96 bytes). Offsets are
// bytes into the launch image.
struct PoaWindow {
    u64 graph0;     // PoaNode[max_nodes], two buffers: fusion writes the other
    u64 graph1;
    u64 links0;     // short[max_nodes * nreads]: left links of each node
    u64 links1;
    u64 dp;         // PoaCell[(max_nodes + maxlen + 1) * (maxlen + 1)]
    u64 misc;       // short new_x[max_nodes], x_to_y[max_nodes], new_y[maxlen], y_to_x[maxlen]
    u64 out_nodes;  // PoaOutNode[max_nodes]
    u32 codes;      // symbol codes of the reads, back to back
    u32 lens;       // u32 length of each read (each at least 1)
    u32 nreads;     // 1..=32
    u32 maxlen;     // longest read, below blockDim.x
    u32 max_nodes;  // node budget, at least maxlen
    u32 out;        // PoaOut
    u32 params;     // params table entry
    u32 spare;
    u64 spare1;
};
static_assert(sizeof(PoaWindow) == 96, "PoaWindow size");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, graph0) == 0, "graph0");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, graph1) == 8, "graph1");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, links0) == 16, "links0");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, links1) == 24, "links1");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, dp) == 32, "dp");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, misc) == 40, "misc");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, out_nodes) == 48, "out_nodes");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, codes) == 56, "codes");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, lens) == 60, "lens");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, nreads) == 64, "nreads");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, maxlen) == 68, "maxlen");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, max_nodes) == 72, "max_nodes");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, out) == 76, "out");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, params) == 80, "params");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, spare) == 84, "spare");
static_assert(SEQSHIM_OFFSETOF(PoaWindow, spare1) == 88, "spare1");

// Host twin: `PoaOut` (16 bytes).
struct PoaOut {
    i32 status;   // POA_DONE, or POA_OVERFLOW
    i32 n_nodes;  // nodes of the final graph
    i32 spare0;
    i32 spare1;
};
static_assert(sizeof(PoaOut) == 16, "PoaOut size");
static_assert(SEQSHIM_OFFSETOF(PoaOut, status) == 0, "status");
static_assert(SEQSHIM_OFFSETOF(PoaOut, n_nodes) == 4, "n_nodes");

// Host twin: `PoaOutNode` (8 bytes): one node of the final graph.
struct PoaOutNode {
    u32 reads;     // bit r: read r passes through the node
    short ring;    // ring id (equal ids in a row form one MSA column)
    u8 letter;     // symbol code
    u8 spare;
};
static_assert(sizeof(PoaOutNode) == 8, "PoaOutNode size");

// One graph node on the device (device only).
struct PoaNode {
    i32 ring_id;
    i32 align_ring;
    u32 reads;
    u8 letter;
    u8 flags;   // POA_INITIAL: some read starts here; POA_FINAL: some read ends here
    u8 nleft;
    u8 spare;
};

// One DP cell (device only): score, gap-length states, and the move
// (1-based predecessor indices, 0 = not moved along that side).
struct PoaCell {
    i32 score;
    u8 gap_x;
    u8 gap_y;
    u8 move_x;
    u8 move_y;
};

struct PoaParams {
    i32 nsym;
    i32 max_gap;
    i32 global;
    i32 spare;
    i32 pen_x[POA_GAP_WORDS];
    i32 pen_y[POA_GAP_WORDS];
    i32 next[POA_GAP_WORDS];
    i32 score[POA_MAX_SYMBOLS * POA_MAX_SYMBOLS];
};
static_assert(sizeof(PoaParams) == 4 * POA_PARAMS_WORDS, "PoaParams size");

// Cell (i, j), i = read position (-1 = the virtual row before the read),
// j = node (-1 = the virtual column before the graph): anti-diagonal-major,
// so that a step's threads touch consecutive cells.
__device__ __forceinline__ PoaCell* poa_cell(PoaCell* dp, int w, int i, int j) {
    return dp + (size_t)((i + 1) + (j + 1)) * w + (i + 1);
}

// Predecessor k (0-based) of node j as the DP lists them: the virtual start
// (-1) first when the node has no left link or some read starts there,
// then its left links in order.
__device__ __forceinline__ int poa_npreds(const PoaNode& n) {
    return n.nleft + ((n.nleft == 0 || (n.flags & POA_INITIAL)) ? 1 : 0);
}
__device__ __forceinline__ int poa_pred(const PoaNode& n, const short* links, int k) {
    const int lead = (n.nleft == 0 || (n.flags & POA_INITIAL)) ? 1 : 0;
    if (k < lead) return -1;
    return links[k - lead];
}

// The end-cell rule of the CPU path: keep the best score, ties to the
// smallest x, then the smallest y.
__device__ __forceinline__ bool poa_better(int score, int j, int i, int bs, int bx, int by) {
    return score >= bs && (score > bs || (j == bx && i < by) || j < bx);
}

// Joins the alignment rings of nodes a and b (the CPU's crosslink_rings).
__device__ void poa_crosslink(PoaNode* g, int a, int b) {
    if (g[a].ring_id == g[b].ring_id) return;
    int from, id;
    if (g[a].ring_id < g[b].ring_id) {
        from = b;
        id = g[a].ring_id;
    } else {
        from = a;
        id = g[b].ring_id;
    }
    int k = from;
    do {
        g[k].ring_id = id;
        k = g[k].align_ring;
    } while (k != from);
    const int t = g[a].align_ring;
    g[a].align_ring = g[b].align_ring;
    g[b].align_ring = t;
}

__device__ __forceinline__ void poa_blank(PoaNode& n, int k) {
    n.ring_id = k;
    n.align_ring = k;
    n.reads = 0;
    n.letter = 0;
    n.flags = 0;
    n.nleft = 0;
    n.spare = 0;
}

extern "C" __global__ void __launch_bounds__(POA_MAX_THREADS)
seqshim_poa_windows(u8* image, u32 desc_off, u32 n_windows) {
    __shared__ PoaParams p;
    __shared__ int best_score[POA_MAX_THREADS];
    __shared__ int best_j[POA_MAX_THREADS];
    __shared__ int shared_len;

    const int tid = threadIdx.x;
    const int nthreads = blockDim.x;
    const u32 wi = blockIdx.x;
    if (wi >= n_windows) return;
    const PoaWindow d = ((const PoaWindow*)(image + desc_off))[wi];
    {
        const i32* src = (const i32*)(image + d.params);
        i32* dst = (i32*)&p;
        for (int k = tid; k < POA_PARAMS_WORDS; k += nthreads) dst[k] = src[k];
    }
    PoaNode* graphs[2] = {(PoaNode*)(image + d.graph0), (PoaNode*)(image + d.graph1)};
    short* links[2] = {(short*)(image + d.links0), (short*)(image + d.links1)};
    PoaCell* dp = (PoaCell*)(image + d.dp);
    short* new_x = (short*)(image + d.misc);
    short* x_to_y = new_x + d.max_nodes;
    short* new_y = x_to_y + d.max_nodes;
    short* y_to_x = new_y + d.maxlen;
    const u8* codes = image + d.codes;
    const u32* lens = (const u32*)(image + d.lens);
    const int lcap = (int)d.nreads;  // left links a node can hold: one per read
    const int w = (int)d.maxlen + 1;
    PoaOut* out = (PoaOut*)(image + d.out);
    __syncthreads();
    const int mg = p.max_gap;

    // The first read as a linear graph.
    int cur = 0;
    int lx = (int)lens[0];
    {
        PoaNode* g = graphs[0];
        short* l = links[0];
        for (int k = tid; k < lx; k += nthreads) {
            PoaNode n;
            n.ring_id = k;
            n.align_ring = k;
            n.reads = 1u;
            n.letter = codes[k];
            n.flags = (k == 0 ? POA_INITIAL : 0u) | (k == lx - 1 ? POA_FINAL : 0u);
            n.nleft = k > 0 ? 1 : 0;
            n.spare = 0;
            g[k] = n;
            if (k > 0) l[(size_t)k * lcap] = (short)(k - 1);
        }
    }
    u32 y_at = (u32)lx;
    __syncthreads();

    for (int r = 1; r < (int)d.nreads; r++) {
        const int ly = (int)lens[r];
        const u8* y = codes + y_at;
        y_at += (u32)ly;
        const PoaNode* g = graphs[cur];
        const short* gl = links[cur];

        // ---- DP set-up: origin, the virtual row (along the graph, one
        // thread) and the virtual column (along the read, another).
        if (tid == 0) {
            PoaCell o;
            o.score = 0;
            o.gap_x = (u8)(mg + 1);
            o.gap_y = (u8)(mg + 1);
            o.move_x = 0;
            o.move_y = 0;
            *poa_cell(dp, w, -1, -1) = o;
            for (int j = 0; j < lx; j++) {
                const PoaNode n = g[j];
                const short* nl = gl + (size_t)j * lcap;
                int best = POA_MIN_SCORE;
                PoaCell c;
                c.gap_x = 0;
                c.gap_y = 0;
                c.move_x = 0;
                c.move_y = 0;
                const int np = poa_npreds(n);
                for (int k = 0; k < np; k++) {
                    const PoaCell prev = *poa_cell(dp, w, -1, poa_pred(n, nl, k));
                    const int t = prev.score - p.pen_x[prev.gap_x];
                    if (t > best) {
                        best = t;
                        c.gap_x = (u8)p.next[prev.gap_x];
                        c.gap_y = (u8)p.next[prev.gap_x];
                    }
                }
                c.score = best;
                *poa_cell(dp, w, -1, j) = c;
            }
        }
        if (tid == (nthreads > 1 ? 1 : 0)) {
            // Each read position's one predecessor is the one before it
            // (the origin for the first).
            PoaCell prev;
            prev.score = 0;
            prev.gap_x = (u8)(mg + 1);
            prev.gap_y = (u8)(mg + 1);
            for (int i = 0; i < ly; i++) {
                PoaCell c;
                c.gap_x = 0;
                c.gap_y = 0;
                c.move_x = 0;
                c.move_y = 0;
                int best = POA_MIN_SCORE;
                const int t = prev.score - p.pen_y[prev.gap_y];
                if (t > best) {
                    best = t;
                    c.gap_x = (u8)p.next[prev.gap_y];
                    c.gap_y = (u8)p.next[prev.gap_y];
                }
                c.score = best;
                *poa_cell(dp, w, i, -1) = c;
                prev = c;
            }
        }
        __syncthreads();

        // ---- The wavefront: thread i owns read position i.
        const int i = tid;
        const bool active = i < ly;
        const int yl = active ? y[i] : 0;
        const bool final_y = i == ly - 1;
        int bs = POA_MIN_SCORE, bx = -1;
        const int steps = lx + ly - 1;
        for (int s = 0; s < steps; s++) {
            const int j = s - i;
            if (active && j >= 0 && j < lx) {
                const PoaNode n = g[j];
                const short* nl = gl + (size_t)j * lcap;
                int match = p.global ? POA_MIN_SCORE : 0;
                int mx = 0, my = 0;
                int ins_x = POA_MIN_SCORE, ins_y = POA_MIN_SCORE;
                int ix = 0, iy = 0, ix_gap = 0, iy_gap = 0;
                const PoaCell up = *poa_cell(dp, w, i - 1, j);
                int t = up.score - p.pen_y[up.gap_y];
                if (t > ins_y) {
                    ins_y = t;
                    iy = 1;
                    iy_gap = up.gap_y;
                }
                const int np = poa_npreds(n);
                for (int k = 0; k < np; k++) {
                    t = poa_cell(dp, w, i - 1, poa_pred(n, nl, k))->score;
                    if (t > match) {
                        match = t;
                        mx = k + 1;
                        my = 1;
                    }
                }
                for (int k = 0; k < np; k++) {
                    const PoaCell left = *poa_cell(dp, w, i, poa_pred(n, nl, k));
                    t = left.score - p.pen_x[left.gap_x];
                    if (t > ins_x) {
                        ins_x = t;
                        ix = k + 1;
                        ix_gap = left.gap_x;
                    }
                }
                match += p.score[(int)n.letter * p.nsym + yl];
                PoaCell c;
                if (match > ins_y && match > ins_x) {
                    c.score = match;
                    c.gap_x = 0;
                    c.gap_y = 0;
                    c.move_x = (u8)mx;
                    c.move_y = (u8)my;
                } else if (ins_x > ins_y) {
                    c.score = ins_x;
                    c.gap_x = (u8)p.next[ix_gap];
                    c.gap_y = (u8)p.next[ix_gap];
                    c.move_x = (u8)ix;
                    c.move_y = 0;
                } else {
                    c.score = ins_y;
                    c.gap_x = (u8)p.next[iy_gap];
                    c.gap_y = (u8)p.next[iy_gap];
                    c.move_x = 0;
                    c.move_y = (u8)iy;
                }
                *poa_cell(dp, w, i, j) = c;
                if ((!p.global || (final_y && (n.flags & POA_FINAL))) &&
                    poa_better(c.score, j, i, bs, bx, bx < 0 ? -1 : i)) {
                    bs = c.score;
                    bx = j;
                }
            }
            __syncthreads();
        }
        best_score[tid] = bs;
        best_j[tid] = bx;
        for (int k = tid; k < lx; k += nthreads) x_to_y[k] = -1;
        for (int k = tid; k < ly; k += nthreads) y_to_x[k] = -1;
        __syncthreads();

        // ---- End cell and traceback (one thread).
        if (tid == 0) {
            int s_best = POA_MIN_SCORE, bxx = -1, byy = -1;
            for (int k = 0; k < ly && k < nthreads; k++) {
                if (best_j[k] >= 0 && poa_better(best_score[k], best_j[k], k, s_best, bxx, byy)) {
                    s_best = best_score[k];
                    bxx = best_j[k];
                    byy = k;
                }
            }
            while (bxx >= 0 && byy >= 0) {
                const PoaCell c = *poa_cell(dp, w, byy, bxx);
                if (c.move_x > 0 && c.move_y > 0) {
                    x_to_y[bxx] = (short)byy;
                    y_to_x[byy] = (short)bxx;
                }
                if (c.move_x == 0 && c.move_y == 0) {
                    x_to_y[bxx] = (short)byy;
                    y_to_x[byy] = (short)bxx;
                    break;
                }
                if (c.move_x > 0) {
                    bxx = poa_pred(g[bxx], gl + (size_t)bxx * lcap, c.move_x - 1);
                }
                if (c.move_y > 0) {
                    byy = byy - 1;
                }
            }

            // ---- New numbering (upstream's reindex walk). A read's nodes
            // each sit alone on their ring, so no read ring is walked.
            int new_len = 0, iy2 = 0;
            for (int ixx = 0; ixx < lx; ixx++) {
                const int ring = g[ixx].ring_id;
                for (int ir = ixx; ir < lx && g[ir].ring_id == ring; ir++) {
                    const int partner = x_to_y[ir];
                    if (partner >= 0) {
                        while (iy2 < partner) new_y[iy2++] = (short)(new_len++);
                        break;
                    }
                }
                if (x_to_y[ixx] >= 0 && iy2 < ly) {
                    const int px = y_to_x[iy2];
                    const bool fuse = px >= 0 && g[px].letter == y[iy2];
                    new_y[iy2] = (short)new_len;
                    if (!fuse) new_len++;
                    iy2++;
                }
                new_x[ixx] = (short)(new_len++);
            }
            while (iy2 < ly) new_y[iy2++] = (short)(new_len++);
            shared_len = new_len;
        }
        __syncthreads();
        const int new_len = shared_len;
        if (new_len > (int)d.max_nodes) {
            if (tid == 0) {
                out->status = POA_OVERFLOW;
                out->n_nodes = new_len;
            }
            return;
        }

        // ---- The fused graph, in the other buffer.
        PoaNode* h = graphs[cur ^ 1];
        short* hl = links[cur ^ 1];
        for (int k = tid; k < new_len; k += nthreads) poa_blank(h[k], k);
        __syncthreads();
        for (int k = tid; k < lx; k += nthreads) {
            PoaNode n = g[k];
            const int to = new_x[k];
            n.align_ring = new_x[n.align_ring];
            n.ring_id = new_x[n.ring_id];
            for (int e = 0; e < n.nleft; e++) {
                hl[(size_t)to * lcap + e] = new_x[gl[(size_t)k * lcap + e]];
            }
            h[to] = n;
        }
        __syncthreads();
        for (int k = tid; k < ly; k += nthreads) {
            const int px = y_to_x[k];
            if (!(px >= 0 && new_x[px] == new_y[k])) poa_blank(h[new_y[k]], new_y[k]);
        }
        __syncthreads();
        for (int k = tid; k < ly; k += nthreads) {
            PoaNode& n = h[new_y[k]];
            short* nl = hl + (size_t)new_y[k] * lcap;
            n.letter = y[k];
            n.reads |= 1u << r;
            n.flags |= (k == 0 ? POA_INITIAL : 0u) | (k == ly - 1 ? POA_FINAL : 0u);
            if (k > 0) {
                const short to = new_y[k - 1];
                bool present = false;
                for (int e = 0; e < n.nleft; e++) present = present || nl[e] == to;
                if (!present) nl[n.nleft++] = to;
            }
        }
        __syncthreads();
        if (tid == 0) {
            for (int k = 0; k < lx; k++) {
                if (x_to_y[k] >= 0) poa_crosslink(h, new_x[k], new_y[x_to_y[k]]);
            }
        }
        lx = new_len;
        cur ^= 1;
        __syncthreads();
    }

    const PoaNode* g = graphs[cur];
    PoaOutNode* on = (PoaOutNode*)(image + d.out_nodes);
    for (int k = tid; k < lx; k += nthreads) {
        PoaOutNode o;
        o.reads = g[k].reads;
        o.ring = (short)g[k].ring_id;
        o.letter = g[k].letter;
        o.spare = 0;
        on[k] = o;
    }
    if (tid == 0) {
        out->status = POA_DONE;
        out->n_nodes = lx;
    }
}
