# CUDA-EC checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, `gpu_test`, $here (the bundle) and $cache.
# exact-v1 on the GPU == upstream on every fixture configuration, GPU == CPU
# on simulated reads in both modes (with the kernels' speed against the CPU
# pool), a failing device rerun on the CPU; then the benchmark: seqshim-ec
# end to end on spec §7's two set sizes, on the GPU and on its CPU path
# (outputs compared byte for byte), and Lighter when the bundle has it.
#   EC_BENCH_SETS   sets to run (default "srr6331like L100_60x"; "" skips)
#   EC_BENCH_MODES  seqshim-ec runs per set (default "v1 def def2")
if gpu_test ec; then
    ec_bin="$gpu_bin"
    ec() {
        env SEQSHIM_STRICT=1 SEQSHIM_BACKEND=cuda SEQSHIM_REQUIRE_GPU=1 \
            SEQSHIM_CACHE_DIR="$cache/k" "$ec_bin" "$@" --exact --nocapture --test-threads=1
    }
    check "ec: exact-v1 on the GPU == upstream on every fixture configuration" \
        "ec gpu fixture: [1-9][0-9]* configurations, [0-9]+ records, 0 differ from upstream, [1-9][0-9]* GPU batches" \
        ec gpu_equals_upstream_on_every_fixture
    check "ec: GPU == CPU on simulated reads, both modes" \
        "ec gpu default 100 bp search 2: [0-9]+ reads, 0 differ" \
        ec gpu_equals_cpu_on_simulated_reads_and_benchmark
    check "ec: default mode's counting on the GPU == CPU" \
        "ec gpu counting 100 bp k=32 min_mult=3: [0-9]+ reads, [0-9]+ solid, 0 differ" \
        ec gpu_counting_equals_cpu_counting_and_benchmark
    check "ec: a failing device batch reruns on the CPU" \
        "ec gpu rescue: .* [1-9][0-9]* rescued on the CPU, 0 differ" \
        ec a_failing_device_batch_reruns_on_the_cpu
    for name in "ec: exact-v1 on the GPU == upstream on every fixture configuration" \
        "ec: GPU == CPU on simulated reads, both modes" \
        "ec: default mode's counting on the GPU == CPU" \
        "ec: a failing device batch reruns on the CPU"; do
        grep -hoE "ec gpu .*" "$(log_of "$name")" 2>/dev/null | sed "s/^/      /"
    done

    # ec_run LABEL OUT_PREFIX CMD...: runs CMD, prints its wall time.
    ec_run() {
        local label="$1"
        shift
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >"$cache/ec-run.log" 2>&1 || { echo "      $label: FAILED"; tail -5 "$cache/ec-run.log"; return 1; }
        t1=$(date +%s.%N)
        ec_wall=$(awk "BEGIN{printf \"%.2f\", $t1 - $t0}")
        echo "      $label: $ec_wall s"
    }
    ec_cli="$here/bin/seqshim-ec"
    threads="$(nproc)"
    for set in ${EC_BENCH_SETS-srr6331like L100_60x}; do
        d="$cache/ec-bench"
        [ -f "$d/$set/reads.fa" ] || SEQSHIM_EC_BENCH_DIR="$d" "$ec_bin" write_bench_sets --ignored --exact >/dev/null 2>&1
        len=$(sed -n 2p "$d/$set/reads.fa" | tr -d '\n' | wc -c)
        reads=$(grep -c '>' "$d/$set/reads.fa")
        echo "== ec benchmark: $set, $reads reads of $len bp, $threads threads =="
        for mode in ${EC_BENCH_MODES-v1 def def2}; do
            case $mode in
                v1) args=(-f "$d/$set/reads.fa" -t 20 -r "$len" --threads "$threads") ; ext=fa ;;
                def) args=(correct "$d/$set/reads.fq" -t "$threads" -k 20) ; ext=fq ;;
                def2) args=(correct "$d/$set/reads.fq" -t "$threads" -k 20 --search 2) ; ext=fq ;;
            esac
            out_cpu=(-o "$d/$set/$mode.cpu.$ext" -d "$d/$set/$mode.cpu.discard.$ext")
            out_gpu=(-o "$d/$set/$mode.gpu.$ext" -d "$d/$set/$mode.gpu.discard.$ext")
            ec_run "$mode CPU path" env SEQSHIM_BACKEND=cpu "$ec_cli" "${args[@]}" "${out_cpu[@]}"; cpu_s=$ec_wall
            ec_run "$mode GPU" env SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" "$ec_cli" "${args[@]}" "${out_gpu[@]}"; gpu_s=$ec_wall
            grep -hE "EC .*(chunks|starting|device|counted)|seqshim-ec: " "$cache/ec-run.log" | head -12 | sed 's/^/        /'
            check "ec: $set $mode: GPU output == CPU output" "^same$" \
                bash -c "cmp -s '$d/$set/$mode.cpu.$ext' '$d/$set/$mode.gpu.$ext' && cmp -s '$d/$set/$mode.cpu.discard.$ext' '$d/$set/$mode.gpu.discard.$ext' && echo same"
            echo "      ec bench $set $mode: CPU path $cpu_s s, GPU $gpu_s s, CPU/GPU = $(awk "BEGIN{printf \"%.2f\", $cpu_s / $gpu_s}")"
        done
        if [ -x "$here/bin/lighter" ]; then
            glen=$([ "$set" = srr6331like ] && echo 877438 || echo 2000000)
            alpha=$([ "$set" = srr6331like ] && echo 0.113 || echo 0.117)
            mkdir -p "$d/$set/lighter"
            ec_run "Lighter -t $threads" "$here/bin/lighter" -r "$d/$set/reads.fq" -k 17 "$glen" "$alpha" \
                -t "$threads" -od "$d/$set/lighter"
            echo "      ec bench $set lighter: $ec_wall s"
        fi
    done
fi
