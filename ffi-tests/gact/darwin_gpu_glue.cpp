// The darwin-gpu glue (integrations/darwin-gpu) from a C++ program: random
// batches of tiles, coded as darwin-gpu's host code codes them (A 0, C 1,
// T 2, G 3, other bytes as they are), go through the glue's GPU_init and
// Align_Batch_GPU, and every slot of the result is compared with
// seqshim_gact_align_tile on the same tile written in letters: score,
// reference and query steps, maximum cell, the states and the -1 after
// them. Then darwin-gpu's CPU AlignWithBT (match/mismatch scores) against
// seqshim_gact_align_tile on random ASCII tiles. Built with the stand-in
// headers in darwin_gpu/ (darwin-gpu's types and declarations).
#include "seqshim_darwin_gpu.hpp"

#include <cstdio>
#include <cstring>
#include <random>

namespace {

struct Scheme {
    int tile_size, tile_overlap, match, mismatch, gap_open, gap_extend;
};

// darwin-gpu's coding of its bases, and back to letters for the reference.
char code_of(char letter) {
    switch (letter) {
        case 'A': return 0;
        case 'C': return 1;
        case 'T': return 2;
        case 'G': return 3;
        default: return letter;
    }
}
char letter_of(char code) {
    static const char letters[4] = {'A', 'C', 'T', 'G'};
    return (code >= 0 && code < 4) ? letters[(int)code] : code;
}

std::string random_letters(std::mt19937& rng, int len, int n_permille) {
    static const char bases[4] = {'A', 'C', 'G', 'T'};
    std::string s;
    for (int k = 0; k < len; k++)
        s.push_back((int)(rng() % 1000) < n_permille ? 'N' : bases[rng() % 4]);
    return s;
}

// About 15 % of differences: substitutions, insertions, deletions.
std::string mutate(std::mt19937& rng, const std::string& src) {
    static const char bases[4] = {'A', 'C', 'G', 'T'};
    std::string out;
    for (char c : src) {
        unsigned x = rng() % 1000;
        if (x < 20) out.push_back(bases[rng() % 4]);
        else if (x < 110) { out.push_back(bases[rng() % 4]); out.push_back(c); }
        else if (x < 150) continue;
        else out.push_back(c);
    }
    return out;
}

void sub_of(int32_t* sub, int match, int mismatch) {
    for (int q = 0; q < 5; q++)
        for (int r = 0; r < 5; r++) sub[5 * q + r] = q == r ? match : mismatch;
}

}  // namespace

int main() {
    const Scheme schemes[] = {
        {320, 120, 1, -1, -1, -1},  // darwin-gpu's params.cfg
        {128, 32, 2, -3, -3, -1},
        {64, 16, 1, -1, -2, -2},
    };
    const int num_blocks = 4, threads_per_block = 32, rounds = 4;
    const int batch = num_blocks * threads_per_block;
    std::mt19937 rng(20261128);
    long tiles = 0, differ = 0, idle = 0;

    for (const Scheme& sc : schemes) {
        const int T = sc.tile_size;
        const int et = T - sc.tile_overlap;
        std::vector<GPU_storage> storages;
        GPU_init(T, sc.tile_overlap, sc.gap_open, sc.gap_extend, sc.match, sc.mismatch, et,
                 &storages, 2);
        if (storages.size() != 2 || storages[0].stream == nullptr) {
            std::printf("GPU_init did not make 2 storages\n");
            return 1;
        }
        int32_t sub[25];
        sub_of(sub, sc.match, sc.mismatch);
        for (int round = 0; round < rounds; round++) {
            std::vector<std::string> refs(batch), queries(batch);
            std::vector<int> ref_lens(batch), query_lens(batch);
            std::vector<char> reverses(batch), firsts(batch);
            std::vector<std::string> ref_letters(batch), query_letters(batch);
            for (int t = 0; t < batch; t++) {
                if (rng() % 8 == 0) {  // idle slot
                    ref_lens[t] = -1;
                    continue;
                }
                int len = (rng() % 3 == 0) ? 1 + (int)(rng() % T) : T;
                std::string r = random_letters(rng, len, (rng() % 4 == 0) ? 20 : 0);
                std::string q = mutate(rng, r);
                if ((int)q.size() > T) q.resize(T);
                if (rng() % 50 == 0) q = random_letters(rng, 1 + (int)(rng() % T), 0);
                ref_letters[t] = r;
                query_letters[t] = q;
                for (char& c : r) c = code_of(c);
                for (char& c : q) c = code_of(c);
                refs[t] = r;
                queries[t] = q;
                ref_lens[t] = (int)r.size();
                query_lens[t] = (int)q.size();
                reverses[t] = (char)(rng() % 2);
                firsts[t] = (char)(rng() % 3 == 0);
            }
            GPU_storage* s = &storages[round % 2];
            // darwin-gpu passes the tile lengths as the traceback start.
            int* out = Align_Batch_GPU(refs, queries, ref_lens, query_lens, sub, sc.gap_open,
                                       sc.gap_extend, ref_lens, query_lens, reverses, firsts,
                                       et, T, s, num_blocks, threads_per_block);
            std::vector<uint8_t> ops(2 * (size_t)T + 2);
            for (int t = 0; t < batch; t++) {
                if (ref_lens[t] == -1) {
                    idle++;
                    continue;
                }
                tiles++;
                // Back in letters (darwin-gpu's codes), as Darwin would see them.
                std::string r = refs[t], q = queries[t];
                for (char& c : r) c = letter_of(c);
                for (char& c : q) c = letter_of(c);
                bool ok = r == ref_letters[t] && q == query_letters[t];
                seqshim_gact_tile_result_t want;
                int32_t st = seqshim_gact_align_tile(
                    r.data(), (int64_t)r.size(), q.data(), (int64_t)q.size(), sub, sc.gap_open,
                    sc.gap_extend, query_lens[t], ref_lens[t], reverses[t] == 0, firsts[t] != 0,
                    et, ops.data(), (uint32_t)ops.size(), &want);
                const int* o = out + 2 * (size_t)T * t;
                ok = ok && st == 0 && o[0] == want.score && o[1] == want.ref_steps &&
                     o[2] == want.query_steps;
                if (firsts[t]) ok = ok && o[3] == want.max_i && o[4] == want.max_j;
                for (uint32_t k = 0; ok && k < want.n_ops; k++) ok = o[5 + k] == ops[k];
                ok = ok && o[5 + want.n_ops] == -1;
                if (!ok) {
                    if (differ < 5)
                        std::printf("differ: tile_size %d round %d slot %d (first %d, reverse %d)\n",
                                    T, round, t, firsts[t], reverses[t]);
                    differ++;
                }
            }
        }
        GPU_close(&storages, 2);
        if (storages[0].stream != nullptr) {
            std::printf("GPU_close left a storage\n");
            return 1;
        }
    }

    // darwin-gpu's CPU AlignWithBT, on letters.
    long cpu_tiles = 0, cpu_differ = 0;
    for (int k = 0; k < 300; k++) {
        const Scheme& sc = schemes[k % 3];
        int len = 1 + (int)(rng() % sc.tile_size);
        std::string r = random_letters(rng, len, (k % 5 == 0) ? 20 : 0);
        std::string q = mutate(rng, r);
        if ((int)q.size() > sc.tile_size) q.resize(sc.tile_size);
        if (q.empty()) q = "A";
        bool reverse = k % 2, first = k % 3 == 0;
        int et = sc.tile_size - sc.tile_overlap;
        std::queue<int> got = AlignWithBT(&r[0], (long long)r.size(), &q[0], (long long)q.size(),
                                          sc.match, sc.mismatch, sc.gap_open, sc.gap_extend,
                                          (int)q.size(), (int)r.size(), reverse, first, et);
        int32_t sub[25];
        sub_of(sub, sc.match, sc.mismatch);
        std::vector<uint8_t> ops(r.size() + q.size() + 1);
        seqshim_gact_tile_result_t want;
        int32_t st = seqshim_gact_align_tile(r.data(), (int64_t)r.size(), q.data(),
                                             (int64_t)q.size(), sub, sc.gap_open, sc.gap_extend,
                                             (int)q.size(), (int)r.size(), reverse, first, et,
                                             ops.data(), (uint32_t)ops.size(), &want);
        std::vector<int> expect;
        expect.push_back(want.score);
        if (first) {
            expect.push_back(want.max_i);
            expect.push_back(want.max_j);
        }
        for (uint32_t i = 0; i < want.n_ops; i++) expect.push_back(ops[i]);
        bool ok = st == 0 && got.size() == expect.size();
        for (size_t i = 0; ok && i < expect.size(); i++) {
            ok = got.front() == expect[i];
            got.pop();
        }
        cpu_tiles++;
        if (!ok) cpu_differ++;
    }

    std::printf("darwin-gpu glue: %ld tiles (%ld idle slots), %ld differ; AlignWithBT: %ld tiles, %ld differ\n",
                tiles, idle, differ, cpu_tiles, cpu_differ);
    return differ == 0 && cpu_differ == 0 ? 0 : 1;
}
