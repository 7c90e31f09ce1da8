// The one translation unit that holds darwin-gpu's GPU_init,
// Align_Batch_GPU, GPU_close and AlignWithBT on top of seqshim. Compile it
// with darwin-gpu's compiler flags and link it in place of cuda_host.cu and
// align.cpp, with -lseqshim (see README.md).
#include "seqshim_darwin_gpu.hpp"
