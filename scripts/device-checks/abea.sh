# ABEA checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, $here (the bundle) and $cache (a scratch dir).
# GPU == CPU == f5c on every fixture record, GPU == CPU on synthetic stress
# reads, the batch entry in strict mode, and a GPU-vs-CPU-pool benchmark.
if gpu_test abea; then
    abea_bin="$gpu_bin"
    abea() {
        # ABEA_BENCH_COPIES: 96 copies of the fixture = 51 Mbases, the size
        # the benchmark asks for.
        env SEQSHIM_STRICT=1 SEQSHIM_BACKEND=cuda SEQSHIM_REQUIRE_GPU=1 \
            ABEA_BENCH_COPIES="${ABEA_BENCH_COPIES:-96}" \
            SEQSHIM_CACHE_DIR="$cache/k" "$abea_bin" "$1" --exact --nocapture --test-threads=1
    }
    check "abea: GPU == CPU == f5c on every fixture record" \
        "abea gpu fixture: [1-9][0-9]* records, 0 differ from the CPU, 0 differ from f5c, 0 not finished" \
        abea gpu_equals_cpu_equals_fixture
    check "abea: GPU == CPU on stress reads (long, over-segmented, k=9, non-finite)" \
        "abea gpu stress: [0-9]+ reads .* 0 differ from the CPU, 0 not finished" \
        abea gpu_equals_cpu_on_stress_reads
    check "abea: batch entry in strict mode runs on the GPU and equals f5c" \
        "abea batch entry: [1-9][0-9]* reads, 0 differ from f5c, [1-9][0-9]* GPU batches, 0 rescued" \
        abea batch_entry_on_the_gpu
    check "abea: benchmark GPU batch vs CPU pool" "abea benchmark: .* GPU/CPU = " \
        abea gpu_vs_cpu_pool_benchmark
    grep -hE "^abea (gpu|batch|benchmark)" \
        "$(log_of "abea: GPU == CPU == f5c on every fixture record")" \
        "$(log_of "abea: GPU == CPU on stress reads (long, over-segmented, k=9, non-finite)")" \
        "$(log_of "abea: batch entry in strict mode runs on the GPU and equals f5c")" \
        "$(log_of "abea: benchmark GPU batch vs CPU pool")" 2>/dev/null | sed 's/^/      /'
fi
if [ -x "$here/bin/seqshim-abea-demo" ] && [ -d "$here/data/abea/ecoli_2kb_r94" ]; then
    check "abea: C demo on the GPU (per-read, one-shot batch and batch lifecycle) equals f5c" "ABEA: all results agree" \
        env SEQSHIM_STRICT=1 SEQSHIM_BACKEND=cuda SEQSHIM_CACHE_DIR="$cache/k" \
        "$here/bin/seqshim-abea-demo" "$here/data/abea/ecoli_2kb_r94"
    grep -hE "^(seqshim_|  identical)" "$(log_of "abea: C demo on the GPU (per-read, one-shot batch and batch lifecycle) equals f5c")" \
        | sed 's/^/      /'
fi
if [ -x "$abea_bin" ]; then
    check "abea: concurrent per-read calls share GPU batches and equal f5c" \
        "abea per-read calls: [0-9]+ threads x [1-9][0-9]* reads, 0 differ from f5c, [1-9][0-9]* on the GPU" \
        abea concurrent_per_read_calls_share_gpu_batches
    grep -h "^abea per-read" "$(log_of "abea: concurrent per-read calls share GPU batches and equal f5c")" \
        | sed 's/^/      /'
fi
