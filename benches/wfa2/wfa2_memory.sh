#!/bin/sh
# Peak resident memory, memory kept after the pair and CPU time of one
# alignment in each memory mode, for the distribution's libwfa2.so.0 and for
# seqshim standing in as libwfa2.so.0.
#
# usage: wfa2_memory.sh BENCH_BINARY COMPAT_DIR [LENGTHS] [ERROR]
#   BENCH_BINARY: benches/wfa2/wfa2_memory.c linked with -lwfa2
#   COMPAT_DIR: a directory whose libwfa2.so.0 is libseqshim.so
#   LENGTHS: pattern lengths (default "10000 20000"); ERROR: divergence (0.15)
set -eu
bench=$1
compat=$2
lengths=${3:-10000 20000}
err=${4:-0.15}
# MB = 10^6 bytes.
printf '| len | mode | library | peak RSS MB | kept MB | CPU s | score |\n'
printf '|---:|---|---|---:|---:|---:|---:|\n'
for len in $lengths; do
    for mode in high med low; do
        for lib in libwfa2 seqshim; do
            if [ "$lib" = seqshim ]; then dir=$compat; else dir=; fi
            out=$(LD_LIBRARY_PATH=$dir /usr/bin/time -v "$bench" "$len" "$err" "$mode" 2>&1)
            peak=$(printf '%s\n' "$out" | awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 * 1024 / 1e6}')
            line=$(printf '%s\n' "$out" | grep '^len=')
            field() { printf '%s\n' "$line" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k {print $2}'; }
            printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$len" "$mode" "$lib" "$peak" \
                "$(field kept_mb)" "$(field cpu_s)" "$(field score)"
        done
    done
done
