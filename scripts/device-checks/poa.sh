# POA checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, `gpu_test`, $here (the bundle) and $cache.
# GPU == CPU on windows of the CONSENT-GPU size classes and CONSENT's
# 500-base windows with a GPU-vs-CPU-pool benchmark on the same windows,
# GPU == CPU on other modes and edge windows, a failing device batch rerun
# on the CPU, and the batch entry on the GPU.
if gpu_test poa; then
    poa_bin="$gpu_bin"
    poa() {
        env SEQSHIM_BACKEND=cuda SEQSHIM_REQUIRE_GPU=1 \
            SEQSHIM_CACHE_DIR="$cache/k" "$poa_bin" "$1" --exact --nocapture --test-threads=1
    }
    check "poa: GPU == CPU on every window kind, and benchmark vs CPU pool" \
        "poa gpu all kinds: [1-9][0-9]* windows compared, 0 differ" \
        poa gpu_equals_cpu_and_benchmark
    check "poa: GPU == CPU on other modes and edge windows" \
        "poa gpu modes and edges: .* [1-9][0-9]* compared, 0 differ" \
        poa gpu_equals_cpu_on_other_modes_and_edge_windows
    check "poa: a failing device batch reruns on the CPU" \
        "poa gpu rescue: .* [1-9][0-9]* rescued on the CPU, .* 0 differ" \
        poa a_failing_device_batch_reruns_on_the_cpu
    check "poa: batch entry runs on the GPU" \
        "poa batch entry: [0-9]+ windows, 0 differ, [1-9][0-9]* on the GPU in [1-9][0-9]* GPU batches" \
        poa batch_entry_runs_on_the_gpu
    for name in "poa: GPU == CPU on every window kind, and benchmark vs CPU pool" \
        "poa: GPU == CPU on other modes and edge windows" \
        "poa: a failing device batch reruns on the CPU" \
        "poa: batch entry runs on the GPU"; do
        grep -hoE "poa (gpu|batch) .*|poa benchmark: .*" "$(log_of "$name")" 2>/dev/null | sed "s/^/      /"
    done
fi
