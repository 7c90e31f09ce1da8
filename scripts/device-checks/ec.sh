# CUDA-EC checks for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, `gpu_test`, $here (the bundle) and $cache.
# exact-v1 on the GPU == upstream on every fixture configuration, GPU == CPU
# on simulated reads in both modes (with the kernels' speed against the CPU
# pool), a failing device rerun on the CPU; then the benchmark: seqshim-ec
# end to end on spec §7's two set sizes, on the GPU and on its CPU path
# (outputs compared byte for byte), and Lighter when the bundle has it.
#   EC_BENCH_SETS   sets to run (default "srr6331like L100_60x"; "" skips;
#                   "L100_20M": 20 M reads of 100 bp, about 4.6 GB of FASTQ)
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
        [ -f "$d/$set/reads.fa" ] || SEQSHIM_EC_BENCH_DIR="$d" SEQSHIM_EC_BENCH_SETS="$set" \
            "$ec_bin" write_bench_sets --ignored --exact >/dev/null 2>&1
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
            # Lighter's genome size and sampling rate (7 / coverage) per set.
            case $set in
                srr6331like) glen=877438 alpha=0.113 ;;
                L100_20M) glen=30000000 alpha=0.105 ;;
                *) glen=2000000 alpha=0.117 ;;
            esac
            mkdir -p "$d/$set/lighter"
            ec_run "Lighter -t $threads" "$here/bin/lighter" -r "$d/$set/reads.fq" -k 17 "$glen" "$alpha" \
                -t "$threads" -od "$d/$set/lighter"
            echo "      ec bench $set lighter: $ec_wall s"
        fi
    done
fi

# CUDA-EC v1's own host program relinked on seqshim (integrations/cudaec/,
# built there as its README says, with READ_LENGTH 36 and 100, and put in
# the bundle as bin/CUDA-EC-36 and bin/CUDA-EC-100 by hand): every fixture
# configuration of its read length, its runTest on the GPU (strict mode, so
# even the small fixtures launch), outputs compared with the fixtures'.
manifest="$here/data/cudaec/MANIFEST.tsv"
for v1_bin in "$here"/bin/CUDA-EC-*; do
    [ -x "$v1_bin" ] && [ -f "$manifest" ] || continue
    v1_len="${v1_bin##*-}"
    v1_dir="$cache/cudaec-v1-$v1_len"
    mkdir -p "$v1_dir"
    awk -F'\t' -v len="$v1_len" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        $col["read_len"] == len { print $col["dataset"], $col["config"], $col["num_search"],
            $col["min_mult"], $col["sha256_fixed_fa"], $col["sha256_discard_fa"] }' "$manifest" |
    while read -r ds config search mm want_fixed want_discard; do
        (
            cd "$v1_dir" || exit 1
            zcat "$here/data/cudaec/$ds/reads.fa.gz" >"$ds.fa"
            env SEQSHIM_STRICT=1 SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" "$v1_bin" -f "$ds.fa" -t 20 \
                -o fixed.fa -d discard.fa -r "$v1_len" -minMult "$mm" -minVotes 2 -maxTrim 20 \
                -maxMods 999 -search "$search" >"run-$ds-$config.log" 2>&1
            got_fixed="$(sha256sum fixed.fa | cut -d' ' -f1)"
            got_discard="$(sha256sum discard.fa | cut -d' ' -f1)"
            on_gpu="$(grep -c 'chunks to' "run-$ds-$config.log")"
            echo "$ds $config $([ "$got_fixed" = "$want_fixed" ] && [ "$got_discard" = "$want_discard" ] && echo identical || echo DIFFERENT) gpu_launch_lines=$on_gpu"
        )
    done >"$v1_dir/summary.txt"
    sed 's/^/      cudaec v1 relinked: /' "$v1_dir/summary.txt"
    check "ec: CUDA-EC v1 relinked (READ_LENGTH $v1_len), runTest on the GPU == fixtures" \
        "^[1-9][0-9]* identical, 0 different, 0 without a GPU launch$" \
        awk '{ n[$3]++; if ($4 == "gpu_launch_lines=0") z++ }
             END { printf "%d identical, %d different, %d without a GPU launch\n", n["identical"], n["DIFFERENT"], z }' \
        "$v1_dir/summary.txt"
done
