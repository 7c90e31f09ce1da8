# GACT checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, `gpu_test`, $here (the bundle) and $cache.
# GPU == CPU == upstream on every fixture tile, GPU == CPU on random tiles
# over the parameter grid, a failing device batch rerun on the CPU, the
# batch entry on the GPU in strict mode, extensions in lock-step on the GPU
# equal to single calls, and a GPU-vs-CPU-pool benchmark.
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
        grep -hoE "gact (gpu|batch) .*|gact benchmark: .*" "$(log_of "$name")" 2>/dev/null | sed "s/^/      /"
    done
fi
if [ -x "$here/bin/seqshim-gact-demo" ]; then
    check "gact: C demo's tile batch on the GPU" "GACT: tile batch on the GPU" \
        env SEQSHIM_STRICT=1 SEQSHIM_CACHE_DIR="$cache/k" "$here/bin/seqshim-gact-demo"
    grep -hE "tiles of|GACT:" "$(log_of "gact: C demo's tile batch on the GPU")" | sed 's/^/      /'
fi
