// CUDA-EC spectral correction on the GPU, one thread per read, in two
// kernels:
//   seqshim_ec_v1_fix: exact-v1 (fix_errors1 / fix_errors2 with v1's record
//     layout and quirks) against v1's Bloom table, as src/ec/kernel_v1.rs
//     `process_record` does for one record;
//   seqshim_ec_default_fix: default mode's voting and trim decision against
//     the exact solid set, as src/ec/correct_default.rs `judge` does.
// Every vote is an integer counted by the thread that owns the read, so the
// bytes cannot depend on the launch shape. The grid's extra passes over
// record 0 and the -search 2 pack/scatter of exact-v1, and default mode's
// final classification, stay on the host (they are sequential or cheap).
#include "common.cuh"

// Longest read either kernel takes (local arrays per thread); longer reads
// stay on the CPU (src/ec/gpu/mod.rs checks before packing).
#define EC_MAX_LEN 256
#define EC_FLAG_FIXED 'F'
#define EC_FLAG_DISCARD 'D'

// ---------------------------------------------------------------- shared

// v1 feeds bytes to its hashes as signed chars.
__device__ __forceinline__ u32 ec_signed(u8 c) { return (u32)(i32)(signed char)c; }

// v1's mutation cycle G -> A -> C -> T -> G and base order G, A, C, T.
__device__ __forceinline__ u8 ec_next_base(u8 b) {
    return b == 'G' ? 'A' : b == 'A' ? 'C' : b == 'C' ? 'T' : 'G';
}
__device__ __forceinline__ int ec_base_index(u8 b) {
    return b == 'G' ? 0 : b == 'A' ? 1 : b == 'C' ? 2 : 3;
}
__device__ __forceinline__ u8 ec_base_letter(int i) {
    return i == 0 ? 'G' : i == 1 ? 'A' : i == 2 ? 'C' : 'T';
}

// The fix the vote picks (src/ec/votes.rs `summary`): the maximum over
// positions below len (ascending) and bases G, A, C, T; whether any vote is
// strictly above min_votes; the first two cells holding the maximum and how
// many hold it.
struct EcVoteSummary {
    int above;
    int ties;
    int pos0, base0, pos1, base1;
};

__device__ EcVoteSummary ec_summarise(const u8* votes, int len, int min_votes) {
    EcVoteSummary s;
    s.above = 0;
    s.ties = 0;
    s.pos0 = s.base0 = s.pos1 = s.base1 = -1;
    int max = 0;
    for (int c = 0; c < 4 * len; c++) {
        int v = votes[c];
        if (v > min_votes) s.above = 1;
        if (v > max) max = v;
    }
    for (int c = 0; c < 4 * len; c++) {
        if (votes[c] == max) {
            if (s.ties == 0) {
                s.pos0 = c >> 2;
                s.base0 = c & 3;
            } else if (s.ties == 1) {
                s.pos1 = c >> 2;
                s.base1 = c & 3;
            }
            s.ties++;
        }
    }
    return s;
}

// fix_errors1's choice: a vote above the threshold and the leftmost maximum
// alone at its position.
__device__ __forceinline__ int ec_single_ok(const EcVoteSummary& s) {
    if (s.ties == 0) return 0;
    int unique_at_pos = s.ties == 1 || s.pos1 != s.pos0;
    return s.above && unique_at_pos;
}

// ---------------------------------------------------------------- exact-v1

// v1's Bloom probe: bit `bit` of the table; bytes past its end read as 0.
__device__ __forceinline__ int ec_bit(const u8* bloom, u32 bloom_len, u32 bit) {
    u32 byte = bit >> 3;
    return byte < bloom_len && ((bloom[byte] >> (bit & 7)) & 1);
}

// The seven probes after RS (JS, PJW, ELF, BKDR, SDBM, DJB, DEK), in v1's
// order; `key` holds k bytes with no NUL before a NUL-padded tail.
__device__ int ec_bloom_rest(const u8* bloom, u32 bloom_len, u32 modulus, const u8* key, int k) {
    u32 h = 1315423911u;
    for (int i = 0; i < k; i++) h ^= (h << 5) + ec_signed(key[i]) + (h >> 2);
    if (!ec_bit(bloom, bloom_len, h % modulus)) return 0;
    u32 pjw = 0;
    for (int i = 0; i < k; i++) {
        pjw = (pjw << 4) + ec_signed(key[i]);
        u32 high = pjw & 0xF0000000u;
        if (high != 0) pjw = (pjw ^ (high >> 24)) & 0x0FFFFFFFu;
    }
    // ELF computes the same function as PJW (v1 probes the bit twice).
    if (!ec_bit(bloom, bloom_len, pjw % modulus)) return 0;
    h = 0;
    for (int i = 0; i < k; i++) h = h * 131u + ec_signed(key[i]);
    if (!ec_bit(bloom, bloom_len, h % modulus)) return 0;
    h = 0;
    for (int i = 0; i < k; i++) h = ec_signed(key[i]) + (h << 6) + (h << 16) - h;
    if (!ec_bit(bloom, bloom_len, h % modulus)) return 0;
    h = 5381u;
    for (int i = 0; i < k; i++) h = h * 33u + ec_signed(key[i]);
    if (!ec_bit(bloom, bloom_len, h % modulus)) return 0;
    h = (u32)k;
    for (int i = 0; i < k; i++) h = ((h << 5) ^ (h >> 27)) ^ ec_signed(key[i]);
    return ec_bit(bloom, bloom_len, h % modulus);
}

__device__ __forceinline__ u32 ec_rs(const u8* key, int k) {
    u32 h = 0, a = 63689u;
    for (int i = 0; i < k; i++) {
        h = h * a + ec_signed(key[i]);
        a *= 378551u;
    }
    return h;
}

// `lstspct_FindTuple` on k bytes copied strncpy-style (bytes after a NUL
// count as NUL), as BloomTableV1::contains.
__device__ int ec_bloom_contains(const u8* bloom, u32 bloom_len, u32 modulus, const u8* at, int k) {
    u8 key[EC_MAX_LEN + 2];
    int ended = 0;
    for (int i = 0; i < k; i++) {
        u8 b = ended ? 0 : at[i];
        ended |= b == 0;
        key[i] = b;
    }
    return ec_bit(bloom, bloom_len, ec_rs(key, k) % modulus) &&
           ec_bloom_rest(bloom, bloom_len, modulus, key, k);
}

// The RS hash after replacing `old` by `now` at a position of weight `w`.
__device__ __forceinline__ u32 ec_rs_sub(u32 h, u32 w, u8 old, u8 now) {
    return h + (ec_signed(now) - ec_signed(old)) * w;
}

// One round of v1's voting over tuples start..=len-k (cast_votes).
__device__ void ec_v1_votes(u8* rec, int start, int len, int k, int pair, int read_len,
                            const u8* bloom, u32 bloom_len, u32 modulus, const u32* weights,
                            u8* votes, u8* solid) {
    for (int c = 0; c < 4 * read_len; c++) votes[c] = 0;
    for (int p = 0; p < read_len; p++) solid[p] = 0;
    for (int p = start; p < len - k + 1; p++) {
        u8* key = rec + p;
        u32 rs0 = ec_rs(key, k);
        if (ec_bit(bloom, bloom_len, rs0 % modulus) &&
            ec_bloom_rest(bloom, bloom_len, modulus, key, k)) {
            solid[p] = 1;
            continue;
        }
        int single_span = pair ? k - 1 : k;
        for (int vp = 0; vp < single_span; vp++) {
            u8 original = key[vp];
            u8 alt = ec_next_base(original);
            for (int a = 0; a < 3; a++) {
                key[vp] = alt;
                u32 rs1 = ec_rs_sub(rs0, weights[vp], original, alt);
                if (ec_bit(bloom, bloom_len, rs1 % modulus) &&
                    ec_bloom_rest(bloom, bloom_len, modulus, key, k)) {
                    u8* v = &votes[4 * (p + vp) + ec_base_index(alt)];
                    *v = (u8)(*v + 1);
                }
                if (pair) {
                    for (int m = vp + 1; m < k; m++) {
                        u8 original2 = key[m];
                        u8 alt2 = ec_next_base(original2);
                        for (int b = 0; b < 3; b++) {
                            key[m] = alt2;
                            u32 rs2 = ec_rs_sub(rs1, weights[m], original2, alt2);
                            if (ec_bit(bloom, bloom_len, rs2 % modulus) &&
                                ec_bloom_rest(bloom, bloom_len, modulus, key, k)) {
                                u8* v = &votes[4 * (p + vp) + ec_base_index(alt)];
                                *v = (u8)(*v + 1);
                                u8* w = &votes[4 * (p + m) + ec_base_index(alt2)];
                                *w = (u8)(*w + 1);
                            }
                            alt2 = ec_next_base(alt2);
                        }
                        key[m] = original2;
                    }
                }
                alt = ec_next_base(alt);
            }
            key[vp] = original;
        }
    }
}

// TrimSequence: returns the start offset (>= 0) when accepted, -1 when not;
// the length byte is rewritten either way.
__device__ int ec_v1_trim(u8* rec, int read_len, int k, int max_trim, const u8* bloom,
                          u32 bloom_len, u32 modulus) {
    int len = (int)(signed char)rec[read_len + 1];
    int last_tuple = len - k;
    int start = 0;
    while (start <= last_tuple && !ec_bloom_contains(bloom, bloom_len, modulus, rec + start, k))
        start++;
    int first_bad = start + 1;
    while (first_bad <= last_tuple &&
           ec_bloom_contains(bloom, bloom_len, modulus, rec + first_bad, k))
        first_bad++;
    int end = first_bad + k - 1;
    int accepted = start <= max_trim && len - end <= max_trim;
    for (int p = start; accepted && p < end - k + 1; p++)
        accepted = ec_bloom_contains(bloom, bloom_len, modulus, rec + p, k);
    int new_len = len;
    if (accepted) {
        // v1 moves one byte more than it keeps (forward copy: dst < src).
        int moved = end - start + 1;
        for (int i = 0; i < moved; i++) rec[i] = rec[start + i];
        new_len = end - start;
    }
    rec[read_len + 1] = (u8)new_len;
    return accepted ? start : -1;
}

// Kernel 1 (pair = 0) or kernel 2 (pair = 1) over n records of stride
// read_len + 2, in place. Per record, outs[2 * r] receives the trimmed start
// and outs[2 * r + 1] is 1 when the round watchdog stopped it.
extern "C" __global__ void seqshim_ec_v1_fix(u8* records, const u8* bloom, u32* outs, u32 n,
                                             u32 bloom_len, u32 modulus, i32 read_len, i32 k,
                                             i32 min_votes, i32 max_trim, i32 do_trim,
                                             i32 max_mods, i32 num_search, u32 round_limit,
                                             i32 pair) {
    __shared__ u32 weights[EC_MAX_LEN];
    // RS is linear in the bytes: weight[i] is the product of the later
    // steps' multipliers (src/ec/hash.rs rs_weights).
    if (threadIdx.x == 0) {
        u32 a = 63689u;
        u32 mult[EC_MAX_LEN];
        for (int i = 0; i < k; i++) {
            mult[i] = a;
            a *= 378551u;
        }
        weights[k - 1] = 1;
        for (int i = k - 2; i >= 0; i--) weights[i] = weights[i + 1] * mult[i + 1];
    }
    __syncthreads();
    u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    int stride = read_len + 2;
    u8 rec[EC_MAX_LEN + 2];
    u8 votes[4 * EC_MAX_LEN];
    u8 solid[EC_MAX_LEN];
    u8* global = records + (u64)r * stride;
    for (int i = 0; i < stride; i++) rec[i] = global[i];

    u32 watchdog = 0;
    u32 trim_start = 0;
    int len = (int)(signed char)rec[read_len + 1];
    // PrepareSequence: upper-case up to and including the first non-ACGT byte.
    int prepared = 1;
    for (int i = 0; i < read_len; i++) {
        u8 b = rec[i];
        if (b >= 'a' && b <= 'z') b -= 32;
        rec[i] = b;
        if (b != 'A' && b != 'C' && b != 'G' && b != 'T') {
            prepared = 0;
            break;
        }
    }
    int discard;
    if (!prepared) {
        discard = 1;
    } else {
        int fix_pos = -1;
        u32 rounds = 0;
        int success = 0;
        for (;;) {
            if (rounds >= round_limit) {
                watchdog = 1;
                break;
            }
            int start = fix_pos > 0 ? fix_pos : 0;
            ec_v1_votes(rec, start, len, k, pair, read_len, bloom, bloom_len, modulus, weights,
                        votes, solid);
            rounds++;
            fix_pos = 0;
            int tuples = len - k + 1;
            if (tuples < 0) tuples = 0;
            if (tuples > read_len) tuples = read_len;
            int all_solid = 1;
            for (int p = 0; p < tuples; p++) all_solid &= solid[p];
            if (all_solid) {
                success = 1;
                break;
            }
            int vote_len = len > 0 ? len : 0;
            EcVoteSummary s = ec_summarise(votes, vote_len, min_votes);
            if (!pair) {
                if (ec_single_ok(s)) {
                    rec[s.pos0] = ec_base_letter(s.base0);
                    fix_pos = s.pos0;
                    // CheckSolid over the compile-time length L (Q4).
                    int full = 1;
                    for (int p = 0; full && p <= read_len - k; p++)
                        full = ec_bloom_contains(bloom, bloom_len, modulus, rec + p, k);
                    if (full) {
                        success = 1;
                        break;
                    }
                }
            } else if (s.ties > 0 && s.above) {
                // The first two maxima; a unique maximum comes twice. v1
                // then overwrites CheckSolid's answer with failure (Q9).
                rec[s.pos0] = ec_base_letter(s.base0);
                fix_pos = s.pos0;
                int p1 = s.ties > 1 ? s.pos1 : s.pos0;
                int b1 = s.ties > 1 ? s.base1 : s.base0;
                rec[p1] = ec_base_letter(b1);
                fix_pos = p1;
            }
            if (fix_pos <= 0) break;
        }
        if (watchdog) {
            discard = 1;
        } else if (success) {
            discard = (long long)rounds > (long long)max_mods;
        } else if (!pair && num_search == 2) {
            discard = 1;  // kernel 1 leaves trimming to kernel 2
        } else if (do_trim) {
            int s = ec_v1_trim(rec, read_len, k, max_trim, bloom, bloom_len, modulus);
            if (s >= 0) {
                trim_start = (u32)s;
                discard = 0;
            } else {
                discard = 1;
            }
        } else {
            discard = 1;
        }
    }
    rec[read_len] = discard ? EC_FLAG_DISCARD : EC_FLAG_FIXED;
    for (int i = 0; i < stride; i++) global[i] = rec[i];
    outs[2 * r] = trim_start;
    outs[2 * r + 1] = watchdog;
}

// ---------------------------------------------------------------- default

#define EC_EMPTY_SLOT 0xFFFFFFFFFFFFFFFFull

// Slot hash of the solid set's open-addressing table (splitmix64's
// finaliser); the host twin is src/ec/gpu/table.rs `slot_hash`.
__device__ __forceinline__ u64 ec_slot_hash(u64 x) {
    u64 z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Whether the canonical k-mer of these forward / reverse-complement codes
// is solid (linear probing; the table is never full).
__device__ __forceinline__ int ec_solid(const u64* table, u64 mask, u64 fwd, u64 rc) {
    u64 code = fwd < rc ? fwd : rc;
    u64 slot = ec_slot_hash(code) & mask;
    for (;;) {
        u64 v = table[slot];
        if (v == code) return 1;
        if (v == EC_EMPTY_SLOT) return 0;
        slot = (slot + 1) & mask;
    }
}

__device__ __forceinline__ u64 ec_code(u8 b) { return b == 'A' ? 0 : b == 'C' ? 1 : b == 'G' ? 2 : 3; }

__device__ __forceinline__ void ec_encode(const u8* s, int k, u64* fwd, u64* rc) {
    u64 f = 0, r = 0;
    for (int i = 0; i < k; i++) {
        u64 c = ec_code(s[i]);
        f = (f << 2) | c;
        r |= (3 - c) << (2 * i);
    }
    *fwd = f;
    *rc = r;
}

__device__ __forceinline__ int ec_tuple_solid(const u64* table, u64 mask, const u8* seq, int len,
                                              int p, int k) {
    if (p + k > len) return 0;
    u64 f, r;
    ec_encode(seq + p, k, &f, &r);
    return ec_solid(table, mask, f, r);
}

__device__ int ec_all_solid(const u64* table, u64 mask, const u8* seq, int len, int k) {
    for (int p = 0; p <= len - k; p++)
        if (!ec_tuple_solid(table, mask, seq, len, p, k)) return 0;
    return 1;
}

__device__ __forceinline__ void ec_vote(u8* votes, int at, int base, int saturate) {
    u8* v = &votes[4 * at + base];
    if (!saturate || *v != 255) *v = (u8)(*v + 1);
}

// Default mode's voting round over tuples start..=len-k; mutations applied
// to the packed codes. Returns whether every tuple was solid.
__device__ int ec_default_votes(const u8* seq, int len, int start, int k, int pair,
                                const u64* table, u64 mask, u8* votes) {
    for (int c = 0; c < 4 * len; c++) votes[c] = 0;
    int all = 1;
    for (int p = 0; p < start && p <= len - k; p++) all = 0;  // not examined: not solid
    for (int p = start; p <= len - k; p++) {
        u64 fwd, rc;
        ec_encode(seq + p, k, &fwd, &rc);
        if (ec_solid(table, mask, fwd, rc)) continue;
        all = 0;
        int single_span = pair ? k - 1 : k;
        for (int vp = 0; vp < single_span; vp++) {
            u8 orig = seq[p + vp];
            u8 alt = ec_next_base(orig);
            for (int a = 0; a < 3; a++) {
                u64 d = ec_code(orig) ^ ec_code(alt);
                u64 f1 = fwd ^ (d << (2 * (k - 1 - vp)));
                u64 r1 = rc ^ (d << (2 * vp));
                if (ec_solid(table, mask, f1, r1)) ec_vote(votes, p + vp, ec_base_index(alt), pair);
                if (pair) {
                    for (int m = vp + 1; m < k; m++) {
                        u8 orig2 = seq[p + m];
                        u8 alt2 = ec_next_base(orig2);
                        for (int b = 0; b < 3; b++) {
                            u64 d2 = ec_code(orig2) ^ ec_code(alt2);
                            u64 f2 = f1 ^ (d2 << (2 * (k - 1 - m)));
                            u64 r2 = r1 ^ (d2 << (2 * m));
                            if (ec_solid(table, mask, f2, r2)) {
                                ec_vote(votes, p + vp, ec_base_index(alt), 1);
                                ec_vote(votes, p + m, ec_base_index(alt2), 1);
                            }
                            alt2 = ec_next_base(alt2);
                        }
                    }
                }
                alt = ec_next_base(alt);
            }
        }
    }
    return all;
}

// One voting kernel until success, no usable vote, a fix at position 0 or
// the round cap (correct_default.rs `solidify`). Bit 0 of the result:
// success; bit 1: capped; rounds in *rounds.
__device__ int ec_solidify(u8* seq, int len, int k, int pair, int min_votes, u32 limit,
                           const u64* table, u64 mask, u8* votes, u32* rounds) {
    int fix_pos = 0;
    *rounds = 0;
    for (;;) {
        if (*rounds >= limit) return 2;
        int all = ec_default_votes(seq, len, fix_pos, k, pair, table, mask, votes);
        *rounds += 1;
        if (all) return 1;
        fix_pos = 0;
        EcVoteSummary s = ec_summarise(votes, len, min_votes);
        if (!pair) {
            if (ec_single_ok(s)) {
                seq[s.pos0] = ec_base_letter(s.base0);
                fix_pos = s.pos0;
                if (ec_all_solid(table, mask, seq, len, k)) return 1;
            }
        } else if (s.ties > 0 && s.above) {
            seq[s.pos0] = ec_base_letter(s.base0);
            fix_pos = s.pos0;
            int p1 = s.ties > 1 ? s.pos1 : s.pos0;
            int b1 = s.ties > 1 ? s.base1 : s.base0;
            seq[p1] = ec_base_letter(b1);
            fix_pos = p1;
            if (ec_all_solid(table, mask, seq, len, k)) return 1;
        }
        if (fix_pos == 0) return 0;
    }
}

// Default mode over n reads: reads[offsets[i]..offsets[i+1]] upper-case
// ACGT of at least k and at most EC_MAX_LEN bases, corrected in place.
// verdicts[4 i..4 i + 4] = flags (1 success, 2 capped, 4 trim found),
// rounds, trim start, trim end.
extern "C" __global__ void seqshim_ec_default_fix(u8* reads, const u32* offsets,
                                                  const u64* table, u32* verdicts, u32 n,
                                                  u64 mask, i32 k, i32 min_votes, i32 max_trim,
                                                  i32 do_trim, i32 num_search, u32 max_rounds) {
    u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    u32 at = offsets[r];
    int len = (int)(offsets[r + 1] - at);
    u8 seq[EC_MAX_LEN];
    u8 votes[4 * EC_MAX_LEN];
    for (int i = 0; i < len; i++) seq[i] = reads[at + i];
    u32 limit = max_rounds != 0 ? max_rounds : (u32)(len > 1 ? len : 1);

    u32 rounds = 0;
    int got = ec_solidify(seq, len, k, 0, min_votes, limit, table, mask, votes, &rounds);
    int success = got & 1, capped = (got >> 1) & 1;
    if (!success && num_search == 2) {
        int got2 = ec_solidify(seq, len, k, 1, min_votes, limit, table, mask, votes, &rounds);
        success = got2 & 1;
        capped |= (got2 >> 1) & 1;
    }
    u32 flags = (u32)success | ((u32)capped << 1);
    u32 trim_start = 0, trim_end = 0;
    if (!success && do_trim) {
        // v1's trim on the read's own length; tuples past the end are not solid.
        int tuples = len - k + 1;
        int start = 0;
        while (start < tuples && !ec_tuple_solid(table, mask, seq, len, start, k)) start++;
        int first_bad = start + 1;
        while (first_bad < tuples && ec_tuple_solid(table, mask, seq, len, first_bad, k))
            first_bad++;
        if (first_bad >= tuples) first_bad = tuples > start + 1 ? tuples : start + 1;
        int end = first_bad + k - 1;
        int tail = len > end ? len - end : 0;
        int ok = start <= max_trim && tail <= max_trim && end <= len;
        for (int p = start; ok && p < end + 1 - k; p++)
            ok = ec_tuple_solid(table, mask, seq, len, p, k);
        if (ok) {
            flags |= 4;
            trim_start = (u32)start;
            trim_end = (u32)end;
        }
    }
    for (int i = 0; i < len; i++) reads[at + i] = seq[i];
    verdicts[4 * r] = flags;
    verdicts[4 * r + 1] = rounds;
    verdicts[4 * r + 2] = trim_start;
    verdicts[4 * r + 3] = trim_end;
}

// ---------------------------------------------------------------- counting
// Default mode's spectrum on the device: every window of every read without
// a non-ACGT base (either case) adds one to its canonical code's count in an
// open-addressing table (keys, counts); then the codes counted at least
// min_mult times are listed. The set is the CPU's (kmer_counts.rs): counts
// are integers, so the order of the additions does not matter.

// Empties the table: keys to EC_EMPTY_SLOT, counts to 0.
extern "C" __global__ void seqshim_ec_table_clear(u64* keys, u32* counts, u64 slots) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= slots) return;
    keys[i] = EC_EMPTY_SLOT;
    counts[i] = 0;
}

__device__ __forceinline__ int ec_count_code(u8 b) {
    switch (b) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': return 3;
        default: return -1;
    }
}

// One thread per read of reads[offsets[i]..offsets[i+1]]. flags[0] is set
// when a code found no free slot (the table was too small: the caller then
// counts on the CPU).
extern "C" __global__ void seqshim_ec_count(const u8* reads, const u32* offsets, u32 n, u64* keys,
                                            u32* counts, u64 mask, i32 k, u32* flags) {
    u32 r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    u64 kmask = k == 32 ? ~0ull : ((1ull << (2 * k)) - 1);
    u64 fwd = 0, rc = 0;
    int valid = 0;
    for (u32 i = offsets[r]; i < offsets[r + 1]; i++) {
        int c = ec_count_code(reads[i]);
        if (c < 0) {
            valid = 0;
            continue;
        }
        fwd = ((fwd << 2) | (u64)c) & kmask;
        rc = (rc >> 2) | ((u64)(3 - c) << (2 * (k - 1)));
        if (++valid < k) continue;
        u64 code = fwd < rc ? fwd : rc;
        u64 slot = ec_slot_hash(code) & mask;
        int placed = 0;
        for (u64 probe = 0; probe <= mask; probe++) {
            u64 prev = atomicCAS(&keys[slot], EC_EMPTY_SLOT, code);
            if (prev == EC_EMPTY_SLOT || prev == code) {
                atomicAdd(&counts[slot], 1u);
                placed = 1;
                break;
            }
            slot = (slot + 1) & mask;
        }
        if (!placed) atomicOr(&flags[0], 1u);
    }
}

// Lists the solid codes (count >= min_mult) into out, at most `room`;
// flags[1] receives how many there are (possibly more than room).
extern "C" __global__ void seqshim_ec_solid(const u64* keys, const u32* counts, u64 slots,
                                            u32 min_mult, u64* out, u32 room, u32* flags) {
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= slots) return;
    if (keys[i] != EC_EMPTY_SLOT && counts[i] >= min_mult) {
        u32 at = atomicAdd(&flags[1], 1u);
        if (at < room) out[at] = keys[i];
    }
}
