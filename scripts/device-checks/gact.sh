# GACT checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, `gpu_test`, $here (the bundle) and $cache.
# GPU == CPU == upstream on every fixture tile, GPU == CPU on random tiles
# over the parameter grid, a failing device batch rerun on the CPU, the
# batch entry on the GPU in strict mode, extensions in lock-step on the GPU
# equal to single calls, a GPU-vs-CPU-pool benchmark with where a batch's
# time goes, and parasail traced on 16 threads on the same kind of tiles.
if gpu_test gact; then
    gact_bin="$gpu_bin"
    gact() {
        env SEQSHIM_STRICT=1 SEQSHIM_BACKEND=cuda SEQSHIM_REQUIRE_GPU=1 \
            SEQSHIM_CACHE_DIR="$cache/k" "$gact_bin" "$1" --exact --nocapture --test-threads=1
    }
    check "gact: GPU == CPU == upstream on every fixture tile" \
        "gact gpu fixture: [1-9][0-9]* records .* 0 differ from the CPU, 0 differ from upstream, 0 not finished" \
        gact gpu_equals_cpu_on_every_fixture_tile
    check "gact: GPU == CPU on random tiles over the parameter grid" \
        "gact gpu random: [0-9]+ tiles, 0 differ, 0 not finished" \
        gact gpu_equals_cpu_on_random_tiles
    check "gact: a failing device batch reruns on the CPU" \
        "gact gpu rescue: .* [1-9][0-9]* rescued on the CPU, .* 0 differ" \
        gact a_failing_device_batch_reruns_on_the_cpu
    check "gact: batch entry in strict mode runs on the GPU" \
        "gact batch entry: [0-9]+ tiles, 0 differ, [1-9][0-9]* GPU batches, 0 rescued" \
        gact batch_entry_runs_on_the_gpu
    check "gact: 10,000 extensions in lock-step on the GPU equal single calls" \
        "gact gpu extensions: [0-9]+ extensions .* 0 differ, [1-9][0-9]* tiles in [1-9][0-9]* GPU batches, 0 rescued" \
        gact lockstep_extensions_on_the_gpu_equal_single_calls
    check "gact: benchmark GPU batch vs CPU pool" "gact benchmark: 511x511 .* GPU/CPU = " \
        gact gpu_vs_cpu_benchmark
    for name in "gact: GPU == CPU == upstream on every fixture tile" \
        "gact: GPU == CPU on random tiles over the parameter grid" \
        "gact: a failing device batch reruns on the CPU" \
        "gact: batch entry in strict mode runs on the GPU" \
        "gact: 10,000 extensions in lock-step on the GPU equal single calls" \
        "gact: benchmark GPU batch vs CPU pool"; do
        grep -hoE "gact (gpu|batch) .*|gact (benchmark|timing): .*" "$(log_of "$name")" 2>/dev/null | sed "s/^/      /"
    done
    # parasail's traced Smith-Waterman on 16 threads of this host, tiles of
    # the benchmark's sides and divergence, and GPU / parasail-16 per side.
    if [ -x "$here/bin/parasail-threads" ]; then
        check "gact: parasail traced on 16 threads" "parasail best: 511x511 16 threads" \
            "$here/bin/parasail-threads" 16 2
        parasail_log="$(log_of "gact: parasail traced on 16 threads")"
        grep -h "^parasail" "$parasail_log" | sed "s/^/      /"
        awk '
            FNR == NR && /^parasail best: / { split($3, s, "x"); para[s[1]] = $6; next }
            /gact benchmark: [0-9]+x[0-9]+ / {
                split($3, s, "x");
                if (match($0, /GPU [0-9]+ tiles\/s \([0-9.]+ GCUPS/)) {
                    g = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", g); sub(/ GCUPS/, "", g);
                    if (s[1] in para)
                        printf "      gact vs parasail: %sx%s: GPU %.1f GCUPS, parasail 16 threads %.2f GCUPS; GPU/parasail-16 = %.1f\n", s[1], s[1], g, para[s[1]], g / para[s[1]];
                }
            }' "$parasail_log" "$(log_of "gact: benchmark GPU batch vs CPU pool")"
    else
        echo "      (no bin/parasail-threads in the bundle: parasail not measured)"
    fi
fi
if [ -x "$here/bin/seqshim-gact-demo" ]; then
    check "gact: C demo's tile batch on the GPU" "GACT: tile batch on the GPU" \
        env SEQSHIM_STRICT=1 SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-gact-demo"
    grep -hE "tiles of|GACT:" "$(log_of "gact: C demo's tile batch on the GPU")" | sed 's/^/      /'
fi
