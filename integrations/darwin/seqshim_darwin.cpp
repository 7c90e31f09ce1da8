// The one translation unit that holds Darwin's AlignWithBT and GACT on top of
// seqshim. Compile it with Darwin's compiler flags and link it in place of
// Darwin's align.o and gact.o, with -lseqshim (see README.md).
#include "seqshim_darwin.hpp"
