// Adaptive banded event alignment on the GPU, in two kernels.
//   seqshim_abea_fill: one block per read, one thread per band offset; bands
//     are computed in order with one barrier each, the last three in shared
//     memory. Only what the backtrack reads goes to global memory: the trace
//     bytes of every band, each band's lower-left event index and the scores
//     of the last k-mer column.
//   seqshim_abea_backtrack: one thread per read: best end cell, backtrack,
//     QC. Pairs are written last-first; the host reverses them. Only pairs
//     and counts travel back to the host.
//
// The results must equal src/abea/cpu.rs bit for bit, so every floating-point
// operation is an explicitly rounded intrinsic in the CPU's order and types
// (f32 emission, f64 transition sums rounded once to f32), and the module is
// compiled with --fmad=false as a second guard against contraction.
//
// nvrtc-options: --fmad=false --ftz=false --prec-div=true --prec-sqrt=true
#include "common.cuh"

#define ABEA_BW 100
#define ABEA_HALF 50
#define ABEA_FROM_D 0
#define ABEA_FROM_U 1
#define ABEA_FROM_L 2

// Host twin: `AbeaRead` in src/abea/gpu.rs (96 bytes, little-endian), with
// the same offsets asserted below.
struct AbeaRead {
    u64 means;     // byte offset of float[n_events]
    u64 kmers;     // byte offset of float[3 * n_kmers]: gp_mean, gp_stdv, log_norm
    u64 trace;     // byte offset of u8[n_bands * ABEA_BW]
    u64 ll_event;  // byte offset of int[n_bands]
    u64 last_col;  // byte offset of float[n_events]
    u64 pairs;     // byte offset of int[2 * (n_events + n_kmers)], last pair first
    u64 status;    // byte offset of int[2]: pairs written, passed QC
    i32 n_events;
    i32 n_kmers;
    double lp_step;
    double lp_stay;
    double lp_skip;
    double lp_trim;
};
static_assert(sizeof(AbeaRead) == 96, "AbeaRead size");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, means) == 0, "AbeaRead::means");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, kmers) == 8, "AbeaRead::kmers");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, trace) == 16, "AbeaRead::trace");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, ll_event) == 24, "AbeaRead::ll_event");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, last_col) == 32, "AbeaRead::last_col");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, pairs) == 40, "AbeaRead::pairs");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, status) == 48, "AbeaRead::status");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, n_events) == 56, "AbeaRead::n_events");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, n_kmers) == 60, "AbeaRead::n_kmers");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, lp_step) == 64, "AbeaRead::lp_step");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, lp_stay) == 72, "AbeaRead::lp_stay");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, lp_skip) == 80, "AbeaRead::lp_skip");
static_assert(SEQSHIM_OFFSETOF(AbeaRead, lp_trim) == 88, "AbeaRead::lp_trim");

__device__ __forceinline__ float abea_neg_inf() { return __int_as_float(0xff800000); }

__device__ __forceinline__ float abea_at(const float* band, int offset) {
    return (offset >= 0 && offset < ABEA_BW) ? band[offset] : abea_neg_inf();
}

extern "C" __global__ void __launch_bounds__(128)
seqshim_abea_fill(unsigned char* __restrict__ base, u32 n_reads) {
    if (blockIdx.x >= n_reads) return;  // uniform for the whole block
    const AbeaRead* reads = (const AbeaRead*)base;
    const AbeaRead rd = reads[blockIdx.x];
    const float* __restrict__ means = (const float*)(base + rd.means);
    const float* __restrict__ kmers = (const float*)(base + rd.kmers);
    u8* __restrict__ trace = base + rd.trace;
    i32* __restrict__ ll_event = (i32*)(base + rd.ll_event);
    float* __restrict__ last_col = (float*)(base + rd.last_col);
    const i32 n_ev = rd.n_events;
    const i32 n_km = rd.n_kmers;
    const i32 n_bands = n_ev + 1 + n_km + 1;
    const float neg_inf = abea_neg_inf();

    __shared__ float band[3][ABEA_BW];
    const int o = threadIdx.x;
    const bool in_band = o < ABEA_BW;

    // Band 0 holds the start cell (-1, -1), band 1 the first trimmed event
    // (0, -1), both at offset 50.
    if (in_band) {
        band[0][o] = (o == ABEA_HALF) ? 0.0f : neg_inf;
        band[1][o] = (o == ABEA_HALF) ? __double2float_rn(rd.lp_trim) : neg_inf;
        trace[o] = 0;
        trace[ABEA_BW + o] = (o == ABEA_HALF) ? ABEA_FROM_U : 0;
    }
    if (o == 0) {
        ll_event[0] = ABEA_HALF - 1;
        ll_event[1] = ABEA_HALF;
    }
    // Every thread tracks the lower-left cells of the last two bands itself:
    // the placement depends only on shared values all threads see after the
    // barrier, so no thread has to broadcast it.
    int ll_e1 = ABEA_HALF, ll_k1 = -1 - ABEA_HALF;  // band b-1
    int ll_k2 = -1 - ABEA_HALF;                     // band b-2
    int slot2 = 0, slot1 = 1, slot = 2;
    __syncthreads();

    for (int b = 2; b < n_bands; ++b) {
        const float* prev2 = band[slot2];
        const float* prev = band[slot1];
        float* cur = band[slot];

        // Suzuki-Kasahara placement, with f5c's alternation when neither end
        // of the previous band is reachable.
        const float lower_left = prev[0];
        const float upper_right = prev[ABEA_BW - 1];
        const bool right = (lower_left == neg_inf && upper_right == neg_inf) ? (b % 2 == 1)
                                                                            : (lower_left < upper_right);
        const int ll_e = right ? ll_e1 : ll_e1 + 1;
        const int ll_k = right ? ll_k1 + 1 : ll_k1;

        if (in_band) {
            const int e = ll_e - o;
            const int k = ll_k + o;
            float score = neg_inf;
            u8 from = 0;
            if (k == -1) {
                if (e >= 0 && e < n_ev) {
                    score = __double2float_rn(__dmul_rn(rd.lp_trim, (double)(e + 1)));
                    from = ABEA_FROM_U;
                }
            } else if (e >= 0 && e < n_ev && k >= 0 && k < n_km) {
                const float gp_mean = kmers[3 * k];
                const float gp_stdv = kmers[3 * k + 1];
                const float log_norm = kmers[3 * k + 2];
                const float a = __fdiv_rn(__fsub_rn(means[e], gp_mean), gp_stdv);
                const float lp_emission = __fadd_rn(log_norm, __fmul_rn(__fmul_rn(-0.5f, a), a));

                const float up = abea_at(prev, ll_e1 - (e - 1));
                const float left = abea_at(prev, (k - 1) - ll_k1);
                const float diag = abea_at(prev2, (k - 1) - ll_k2);
                const double em = (double)lp_emission;
                const float score_d = __double2float_rn(__dadd_rn(__dadd_rn((double)diag, rd.lp_step), em));
                const float score_u = __double2float_rn(__dadd_rn(__dadd_rn((double)up, rd.lp_stay), em));
                const float score_l = __double2float_rn(__dadd_rn((double)left, rd.lp_skip));

                // f5c's order: later candidates win ties (L over U over D).
                score = score_d;
                from = ABEA_FROM_D;
                if (score_u > score) score = score_u;
                if (score == score_u) from = ABEA_FROM_U;
                if (score_l > score) score = score_l;
                if (score == score_l) from = ABEA_FROM_L;
                if (k == n_km - 1) last_col[e] = score;
            }
            cur[o] = score;
            trace[(u64)b * ABEA_BW + o] = from;
        }
        if (o == 0) ll_event[b] = ll_e;

        ll_k2 = ll_k1;
        ll_e1 = ll_e;
        ll_k1 = ll_k;
        const int freed = slot2;
        slot2 = slot1;
        slot1 = slot;
        slot = freed;
        __syncthreads();
    }
}

// f5c's end-cell search, backtrack and QC, as `backtrack` in src/abea/cpu.rs:
// same types, same order of operations, same out-of-band trace reads.
extern "C" __global__ void seqshim_abea_backtrack(unsigned char* __restrict__ base, u32 n_reads) {
    const u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n_reads) return;
    const AbeaRead* rd = (const AbeaRead*)base + r;
    const float* __restrict__ means = (const float*)(base + rd->means);
    const float* __restrict__ kmers = (const float*)(base + rd->kmers);
    const u8* __restrict__ trace = base + rd->trace;
    const i32* __restrict__ ll_event = (const i32*)(base + rd->ll_event);
    const float* __restrict__ last_col = (const float*)(base + rd->last_col);
    i32* __restrict__ pairs = (i32*)(base + rd->pairs);
    i32* __restrict__ status = (i32*)(base + rd->status);
    const long long n_ev = rd->n_events;
    const long long n_km = rd->n_kmers;
    const long long trace_len = (n_ev + 1 + n_km + 1) * ABEA_BW;
    const double lp_trim = rd->lp_trim;

    // Best cell of the last k-mer column after trimming the events past it;
    // strict > keeps the lowest event on ties.
    float max_score = abea_neg_inf();
    long long e_cur = 0;
    long long k_cur = n_km - 1;
    for (long long e = 0; e < n_ev; ++e) {
        const long long b = e + n_km + 1;
        const long long o = (long long)ll_event[b] - e;
        if (o >= 0 && o < ABEA_BW) {
            const double trim = __dmul_rn((double)(n_ev - e), lp_trim);
            const float s = __double2float_rn(__dadd_rn((double)last_col[e], trim));
            if (s > max_score) {
                max_score = s;
                e_cur = e;
            }
        }
    }

    double sum_emission = 0.0;
    double n_aligned = 0.0;
    int gap = 0, max_gap = 0;
    i32 n = 0;
    bool defined = true;
    while (k_cur >= 0 && e_cur >= 0) {
        pairs[2 * n] = (i32)k_cur;
        pairs[2 * n + 1] = (i32)e_cur;
        ++n;
        const float gp_mean = kmers[3 * k_cur];
        const float gp_stdv = kmers[3 * k_cur + 1];
        const float log_norm = kmers[3 * k_cur + 2];
        const float a = __fdiv_rn(__fsub_rn(means[e_cur], gp_mean), gp_stdv);
        const float lp_emission = __fadd_rn(log_norm, __fmul_rn(__fmul_rn(-0.5f, a), a));
        sum_emission = __dadd_rn(sum_emission, (double)lp_emission);
        n_aligned = __dadd_rn(n_aligned, 1.0);

        const long long b = e_cur + k_cur + 2;
        const long long o = (long long)ll_event[b] - e_cur;
        // Like f5c, the offset is not checked against the band: only a read
        // outside the whole trace array is refused.
        const long long flat = b * ABEA_BW + o;
        if (flat < 0 || flat >= trace_len) {
            defined = false;
            break;
        }
        const u8 from = trace[flat];
        if (from == ABEA_FROM_D) {
            --k_cur;
            --e_cur;
            gap = 0;
        } else if (from == ABEA_FROM_U) {
            --e_cur;
            gap = 0;
        } else {
            --k_cur;
            ++gap;
            max_gap = gap > max_gap ? gap : max_gap;
        }
    }

    bool passed = false;
    if (defined && n > 0) {
        // The list is last-first here: its first entry is the final pair.
        const bool spanned = pairs[2 * (n - 1)] == 0 && pairs[0] == (i32)(n_km - 1);
        const double avg = __ddiv_rn(sum_emission, n_aligned);
        passed = !(avg < -5.0 || !spanned || max_gap > 50);
    }
    status[0] = n;
    status[1] = passed ? 1 : 0;
}
