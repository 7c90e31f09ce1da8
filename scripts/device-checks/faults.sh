# Device failures on purpose, for the GPU machine; sourced by the bundle's
# run.sh, which provides `check`, `log_of`, $here (the bundle) and $cache.
# Each SEQSHIM_DEBUG_FAULTS rule (see src/engine/device/faults.rs) is run
# under real entry points of every family with GPU work, and each must give
# correct results through the CPU: the WFA batch benchmark against Debian's
# libwfa2, the ABEA demo against f5c's pairs, the POA and GACT batch entries
# against their CPU paths, and seqshim-ec against its CPU path (cmp). Then
# the same programs while another process holds all but 512 MiB of the
# GPU's memory (bin/gpu_hog).
#   FAULT_RULES   rules to run (default below)
faults_abea_dir="$here/data/abea/ecoli_2kb_r94"
faults_ec_reads="$here/data/cudaec/L36_sim/reads.fa.gz"

# faults_programs ENV...: runs each program with the environment given;
# prints one line per program: its name, "correct" or "WRONG", and how many
# injected failures its log names.
faults_programs() {
    local dir
    dir="$(mktemp -d "$cache/faults.XXXX")"
    local common=(SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_LOG=info "$@")
    env "${common[@]}" WFA_BENCH_SCALE=0.05 WFA_BENCH_LENGTHS=1000,10000 "$here/bin/wfa-batch-bench" \
        "$here/debian/libwfa2.so.0" "$here/lib/libseqshim.so.0" >"$dir/wfa.out" 2>"$dir/wfa.err"
    grep -q "all results identical" "$dir/wfa.out" && r=correct || r=WRONG
    echo "faults program: wfa-batch-bench $r injected $(grep -c injected "$dir/wfa.err")"
    env "${common[@]}" "$here/bin/seqshim-abea-demo" "$faults_abea_dir" >"$dir/abea.out" 2>"$dir/abea.err"
    grep -q "^ABEA: all results agree" "$dir/abea.out" && r=correct || r=WRONG
    echo "faults program: abea-demo $r injected $(grep -c injected "$dir/abea.err")"
    for family in poa gact; do
        env "${common[@]}" "$here/bin/test-${family}_gpu" batch_entry_runs_on_the_gpu --exact --nocapture \
            --test-threads=1 >"$dir/$family.out" 2>&1
        grep -q "test result: ok. 1 passed" "$dir/$family.out" && r=correct || r=WRONG
        echo "faults program: $family batch entry $r injected $(grep -c injected "$dir/$family.out")"
        grep -hE "^(poa|gact) batch entry" "$dir/$family.out" | sed 's/^/    /'
    done
    # SEQSHIM_BACKEND=cuda: the GPU comes up before the first chunk, so that
    # the injected failures reach its device work (in the background it came
    # up after the CPU had corrected every read).
    env "${common[@]}" SEQSHIM_BACKEND=cuda "$here/bin/seqshim-ec" correct "$cache/faults-ec.fa" -k 20 \
        -o "$dir/ec.gpu.fa" -d "$dir/ec.gpu.discard.fa" >"$dir/ec.out" 2>"$dir/ec.err"
    cmp -s "$cache/faults-ec.cpu.fa" "$dir/ec.gpu.fa" && cmp -s "$cache/faults-ec.cpu.discard.fa" \
        "$dir/ec.gpu.discard.fa" && r=correct || r=WRONG
    echo "faults program: seqshim-ec $r injected $(grep -c injected "$dir/ec.err")"
    grep -hE "EC.*(chunks to|counted on|counting|rescued)" "$dir/ec.err" | head -n 3 | sed 's/^/    /'
    # What the routing's info lines say of launches and rescues at the end.
    grep -hoE "[A-Za-z-]+: .*launches of .*" "$dir"/*.err "$dir"/*.out 2>/dev/null | tail -n 6 | sed 's/^/    routing: /'
    grep -hE "no longer using|injected" "$dir"/*.err "$dir"/*.out 2>/dev/null | sed -E 's/batch of [0-9]+/batch of N/' \
        | sort | uniq -c | sort -rn | head -n 4 | sed 's/^/    log: /'
    rm -rf "$dir"
}

# faults_summary ENV...: faults_programs, then a count of wrong results and
# of programs whose log names an injected failure.
faults_summary() {
    local lines
    lines="$(faults_programs "$@")"
    printf '%s\n' "$lines"
    echo "faults: $(grep -c ' WRONG' <<<"$lines") wrong, $(grep -cE 'injected [1-9]' <<<"$lines") programs saw an injected failure"
}

if [ -x "$here/bin/wfa-batch-bench" ] && [ -x "$here/bin/seqshim-abea-demo" ] && [ -x "$here/bin/seqshim-ec" ] \
    && [ -x "$here/bin/test-poa_gpu" ] && [ -x "$here/bin/test-gact_gpu" ] && [ -f "$faults_ec_reads" ] \
    && [ -d "$faults_abea_dir" ]; then
    # Six copies of the fixture's reads (1.3 M): enough for the GPUs to be
    # up before the CPU pool has corrected them all.
    for _ in 1 2 3 4 5 6; do zcat "$faults_ec_reads"; done >"$cache/faults-ec.fa"
    env SEQSHIM_BACKEND=cpu "$here/bin/seqshim-ec" correct "$cache/faults-ec.fa" -k 20 -q \
        -o "$cache/faults-ec.cpu.fa" -d "$cache/faults-ec.cpu.discard.fa"
    for rule in ${FAULT_RULES-open@1 alloc@1 launch@2 copy%3 sync@3 lost@5}; do
        name="faults: SEQSHIM_DEBUG_FAULTS=$rule, every program correct"
        check "$name" "^faults: 0 wrong, [1-9][0-9]* programs saw" faults_summary SEQSHIM_DEBUG_FAULTS="$rule"
        grep -E "^(faults|    )" "$(log_of "$name")" | sed 's/^/      /'
    done
    if [ -x "$here/bin/gpu_hog" ]; then
        "$here/bin/gpu_hog" 512 >"$cache/hog.out" 2>&1 &
        hog=$!
        for _ in $(seq 1 100); do grep -q holding "$cache/hog.out" && break; sleep 0.2; done
        sed 's/^/      /' "$cache/hog.out"
        name="faults: another process holds all but 512 MiB of the GPU, every program correct"
        check "$name" "^faults: 0 wrong" faults_summary
        grep -E "^(faults|    )" "$(log_of "$name")" | sed 's/^/      /'
        kill "$hog" 2>/dev/null
        wait "$hog" 2>/dev/null
    fi
fi
