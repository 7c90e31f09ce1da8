// Debian's C++ binding (libwfa2cpp.so.0) driving the C library underneath;
// run plain and with seqshim preloaded, the output must be identical.
#include "bindings/cpp/WFAligner.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

using namespace wfa;

static uint64_t state = 42;
static uint64_t next() {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void pair(std::string& p, std::string& t, int len, int err_pct) {
  static const char bases[] = "ACGT";
  p.clear();
  t.clear();
  for (int i = 0; i < len; ++i) p.push_back(bases[next() & 3]);
  for (int i = 0; i < len; ++i) {
    if ((int)(next() % 100) < err_pct) {
      switch (next() % 3) {
        case 0: t.push_back(bases[next() & 3]); break;
        case 1: t.push_back(bases[next() & 3]); t.push_back(p[i]); break;
        default: break;
      }
    } else {
      t.push_back(p[i]);
    }
  }
}

static void run(const char* name, WFAligner& aligner, bool endsfree) {
  std::string p, t;
  for (int i = 0; i < 40; ++i) {
    pair(p, t, (int)(next() % 1500), (int)(next() % 25));
    const int status = endsfree
        ? aligner.alignEndsFree(p, (int)p.size() / 10, (int)p.size() / 10, t, (int)t.size() / 10,
                                (int)t.size() / 10)
        : aligner.alignEnd2End(p, t);
    std::printf("%s #%d status=%d score=%d %s\n", name, i, status, aligner.getAlignmentScore(),
                aligner.getAlignmentCigar().c_str());
  }
}

int main() {
  std::string p = "TCTTTACTCGCGCGTTGGAGAAATACAATAGT", t = "TCTATACTGCGCGTTTGGAGAAATAAAATAGT";
  WFAlignerGapAffine affine(4, 6, 2, WFAligner::Alignment, WFAligner::MemoryHigh);
  affine.alignEnd2End(p, t);
  std::printf("status=%d score=%d cigar=%s\n", affine.getAlignmentStatus(),
              affine.getAlignmentScore(), affine.getAlignmentCigar().c_str());
  run("affine/high", affine, false);
  run("affine/high/endsfree", affine, true);
  WFAlignerGapAffine affine_low(4, 6, 2, WFAligner::Alignment, WFAligner::MemoryLow);
  run("affine/low", affine_low, false);
  WFAlignerEdit edit(WFAligner::Alignment, WFAligner::MemoryMed);
  run("edit/med", edit, false);
  WFAlignerIndel indel(WFAligner::Score, WFAligner::MemoryHigh);
  run("indel/score", indel, false);
  WFAlignerGapLinear linear(4, 2, WFAligner::Alignment, WFAligner::MemoryHigh);
  linear.setHeuristicWFadaptive(10, 50, 1);
  run("linear/wfadaptive", linear, false);
  WFAlignerGapAffine2Pieces twop(4, 6, 2, 24, 1, WFAligner::Alignment, WFAligner::MemoryHigh);
  twop.setHeuristicXDrop(100, 1);
  run("affine2p/xdrop", twop, false);
  WFAlignerGapAffine capped(4, 6, 2, WFAligner::Alignment, WFAligner::MemoryHigh);
  capped.setMaxAlignmentScore(40);
  run("affine/max40", capped, false);
  return 0;
}
