#!/bin/sh
# Peak resident memory, memory kept after the pair and CPU time of one
# alignment in each memory mode, for the distribution's libwfa2.so.0 and for
# seqshim standing in as libwfa2.so.0, with their ratios.
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

# run LIBRARY_DIR LENGTH MODE: prints "peak_mb kept_mb cpu_s score".
run() {
    out=$(LD_LIBRARY_PATH=$1 /usr/bin/time -v "$bench" "$2" "$err" "$3" 2>&1)
    printf '%s\n' "$out" | awk '
        /Maximum resident set size/ { split($0, f, ": "); peak = f[2] * 1024 / 1e6 }
        /^len=/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
        END { printf "%.0f %s %s %s\n", peak, v["kept_mb"], v["cpu_s"], v["score"] }'
}

# MB = 10^6 bytes; ratios are seqshim / libwfa2 (below 1: seqshim uses less).
printf '| len | mode | peak MB libwfa2 | peak MB seqshim | peak ratio | kept MB libwfa2 | kept MB seqshim | CPU s libwfa2 | CPU s seqshim | CPU ratio | same score |\n'
printf '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n'
for len in $lengths; do
    for mode in high med low; do
        # shellcheck disable=SC2046
        set -- $(run "" "$len" "$mode") $(run "$compat" "$len" "$mode")
        awk -v len="$len" -v mode="$mode" -v up_peak="$1" -v up_kept="$2" -v up_cpu="$3" \
            -v up_score="$4" -v ss_peak="$5" -v ss_kept="$6" -v ss_cpu="$7" -v ss_score="$8" 'BEGIN {
            printf "| %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %.2f | %s |\n", len, mode,
                up_peak, ss_peak, ss_peak / up_peak, up_kept, ss_kept, up_cpu, ss_cpu,
                ss_cpu / up_cpu, up_score == ss_score ? "yes" : "NO"
        }'
    done
done
