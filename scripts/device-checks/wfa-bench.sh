# WFA benchmarks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, $here (the bundle) and $cache (a scratch dir).
# Both compare with Debian 12's libwfa2.so.0 2.3.3, which the bundle carries
# in debian/, and fail when any result differs from it.
#   WFA_BENCH_SCALE    batch benchmark: fraction of 1 M (150 bp), 100 k (1 kbp)
#                      and 10 k (10 kbp) pairs; default 0.02, 1 for the full sizes
#   WFA_BENCH_LENGTHS  batch benchmark lengths, default 150,1000,10000
#   WFA_THREADS_PAIRS  transparent path: pairs per run on the CPU path
#                      (default 20000, 1600 for 10 kbp); the opt-in GPU runs
#                      use fewer (4000, 800) because they are slow
if [ -x "$here/bin/seqshim-wfa-demo" ]; then
    check "wfa: demo (batch API and 8-thread wavefront_align) agrees with one aligner" "WFA: all results agree" \
        env SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-wfa-demo"
    grep -E '^(GPU in use|on the CPU|one aligner|batch API|wavefront_align from)' \
        "$(log_of "wfa: demo (batch API and 8-thread wavefront_align) agrees with one aligner")" | sed 's/^/      /'
fi
wfa_deb_dir="$here/debian"
if [ -x "$here/bin/wfa-batch-bench" ] && [ -x "$here/bin/wfa-threads" ] && [ -f "$wfa_deb_dir/libwfa2.so.0" ]; then
    wfa_batch_name="wfa bench: batch API (GPU+CPU, own CPU 16t) vs Debian libwfa2 16 threads"
    check "$wfa_batch_name" "wfa batch benchmark: all results identical" \
        env SEQSHIM_CACHE_DIR="$cache/k" WFA_BENCH_SCALE="${WFA_BENCH_SCALE:-0.02}" \
        WFA_BENCH_LENGTHS="${WFA_BENCH_LENGTHS:-150,1000,10000}" \
        "$here/bin/wfa-batch-bench" "$wfa_deb_dir/libwfa2.so.0" "$here/lib/libseqshim.so.0"
    grep -E '^(backend|gpu |wfa batch|len |[0-9]+ )' "$(log_of "$wfa_batch_name")" | sed 's/^/      /'

    # One client, 16 threads with an aligner each, on Debian's library and
    # with seqshim preloaded; same checksum required. "default" is seqshim as
    # shipped (the CPU path); "gpu" opts in to the transparent GPU path.
    wfa_transparent() {
        local len="$1" heuristic="$2" pairs="$3" mode="$4" up ours opt=()
        [ "$mode" = gpu ] && opt=(SEQSHIM_WFA_TRANSPARENT=1)
        up="$(LD_LIBRARY_PATH="$wfa_deb_dir" "$here/bin/wfa-threads" 16 "$pairs" "$len" 0.05 "$heuristic")" || return 1
        ours="$(env "${opt[@]}" LD_LIBRARY_PATH="$wfa_deb_dir" LD_PRELOAD="$here/lib/libseqshim.so.0" \
            SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/wfa-threads" 16 "$pairs" "$len" 0.05 "$heuristic")" || return 1
        echo "debian : $up"
        echo "seqshim: $ours"
        [ "${up##*checksum }" = "${ours##*checksum }" ] || { echo "checksums differ"; return 1; }
        local a b
        a="$(sed -E 's/.* ([0-9]+) aln\/s.*/\1/' <<<"$up")"
        b="$(sed -E 's/.* ([0-9]+) aln\/s.*/\1/' <<<"$ours")"
        awk -v a="$a" -v b="$b" -v l="$len" -v h="$heuristic" -v m="$mode" \
            'BEGIN { printf "wfa transparent (%s): %s bp, heuristic %s: identical output, seqshim/debian = %.2fx\n", m, l, h, b / a }'
    }
    for wfa_case in "150 20000 4000" "1000 20000 4000" "10000 1600 800"; do
        read -r wfa_len wfa_n wfa_n_gpu <<<"$wfa_case"
        [ -n "${WFA_THREADS_PAIRS:-}" ] && wfa_n="$WFA_THREADS_PAIRS"
        for wfa_h in none adaptive; do
            for wfa_mode in default gpu; do
                wfa_pairs="$wfa_n"
                [ "$wfa_mode" = gpu ] && wfa_pairs="$wfa_n_gpu"
                wfa_name="wfa bench: wavefront_align x16 threads, LD_PRELOAD ($wfa_mode) vs Debian ($wfa_len bp, $wfa_h)"
                check "$wfa_name" "wfa transparent .* identical output" \
                    wfa_transparent "$wfa_len" "$wfa_h" "$wfa_pairs" "$wfa_mode"
                grep -E '^(debian|seqshim|wfa transparent)' "$(log_of "$wfa_name")" | sed 's/^/      /'
            done
        done
    done
else
    failed=$((failed + 1))
    failures+=("wfa bench: bin/wfa-batch-bench, bin/wfa-threads or debian/libwfa2.so.0 missing from the bundle")
    echo "FAIL  wfa bench: bin/wfa-batch-bench, bin/wfa-threads or debian/libwfa2.so.0 missing from the bundle"
fi
