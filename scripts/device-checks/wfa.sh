# WFA checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, $here (the bundle) and $cache (a scratch dir).
# GPU == CPU on the length/divergence grid and every configuration the kernel
# takes (CIGARs from the kernel's replay, then from the host's), then a
# GPU-vs-CPU-pool benchmark.
if gpu_test wfa; then
    wfa_bin="$gpu_bin"
    wfa() {
        env SEQSHIM_BACKEND=cuda SEQSHIM_REQUIRE_GPU=1 \
            WFA_BENCH_SCALE="${WFA_BENCH_SCALE:-1}" WFA_PARITY_SCALE="${WFA_PARITY_SCALE:-1}" \
            SEQSHIM_CACHE_DIR="$cache/k" "$wfa_bin" "$1" --exact --nocapture --test-threads=1
    }
    check "wfa: GPU == CPU on the grid, every metric, span, scope and heuristic the kernel takes" \
        "wfa gpu parity: [0-9]+ pairs, 0 differ from the CPU" \
        wfa gpu_equals_cpu_on_the_grid
    check "wfa: the host's replay of kernel walks (its fallback) == CPU, every metric and span" \
        "wfa host replay: [0-9]+ pairs, 0 differ" \
        wfa host_replay_equals_cpu
    check "wfa: unrelated pairs (kernel and host replays in one launch) == CPU" \
        "wfa unrelated pairs: [0-9]+ pairs, 0 differ" \
        wfa unrelated_pairs_mix_kernel_and_host_replays
    check "wfa: thousands of short pairs and two long ones in a 1 GiB arena, GPU == CPU" \
        "wfa mixed lengths: [0-9]+ pairs, 0 differ" \
        wfa mixed_lengths_fit_a_small_arena
    check "wfa: a runner with a 48 MiB share grows its arena within it, GPU == CPU" \
        "wfa small share: [0-9]+ pairs, 0 differ" \
        wfa a_small_share_grows_within_it_and_equals_the_cpu
    grep -h "^wfa small share" "$(log_of "wfa: a runner with a 48 MiB share grows its arena within it, GPU == CPU")" \
        | sed 's/^/      /'
    check "wfa: benchmark GPU batch vs CPU pool" "wfa benchmark: .* GPU/CPU = " \
        wfa gpu_vs_cpu_benchmark
    grep -hE "^wfa (gpu|benchmark)" \
        "$(log_of "wfa: GPU == CPU on the grid, every metric, span, scope and heuristic the kernel takes")" \
        "$(log_of "wfa: benchmark GPU batch vs CPU pool")" 2>/dev/null | sed 's/^/      /'
fi
