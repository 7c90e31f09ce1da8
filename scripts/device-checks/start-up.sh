# A process that ends while the GPU is still being brought up in the
# background, for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, $here (the bundle) and $cache.
# seqshim-ec on inputs small enough that the CPU is done before the GPU is
# up, each run with an empty kernel cache (so the start-up compiles): every
# run must exit 0 with the CPU path's output. Then, with every exit handler
# traced, NVRTC must register none after it was primed (after that point
# the start-up's exit wait runs ahead of NVRTC's own handlers).
su_bin="$here/bin/test-ec_gpu"
if [ -x "$su_bin" ]; then
    su_dir="$cache/start-up"
    mkdir -p "$su_dir"
    [ -f "$cache/ec-bench/srr6331like/reads.fq" ] || SEQSHIM_EC_BENCH_DIR="$cache/ec-bench" \
        SEQSHIM_EC_BENCH_SETS=srr6331like "$su_bin" write_bench_sets --ignored --exact >/dev/null 2>&1
    for n in 20000 30000 100000 400000; do
        head -n $((4 * n)) "$cache/ec-bench/srr6331like/reads.fq" >"$su_dir/in$n.fq"
        SEQSHIM_BACKEND=cpu "$here/bin/seqshim-ec" correct "$su_dir/in$n.fq" -k 20 -o "$su_dir/cpu$n.fq" >/dev/null 2>&1
    done
    su_runs() {
        local died=0 wrong=0 runs=0 k
        for round in 1 2 3 4; do
            for n in 20000 30000 100000 400000; do
                k="$(mktemp -d "$su_dir/k.XXXX")"
                SEQSHIM_CACHE_DIR="$k" "$here/bin/seqshim-ec" correct "$su_dir/in$n.fq" -k 20 \
                    -o "$su_dir/gpu.fq" >"$su_dir/run.log" 2>&1 || { died=$((died + 1)); tail -2 "$su_dir/run.log"; }
                cmp -s "$su_dir/cpu$n.fq" "$su_dir/gpu.fq" || wrong=$((wrong + 1))
                runs=$((runs + 1))
                rm -rf "$k"
            done
        done
        echo "start-up: $runs runs with an empty kernel cache, $died died, $wrong outputs differ"
    }
    check "start-up: a process that ends during a cold GPU start-up exits cleanly" \
        "start-up: [1-9][0-9]* runs with an empty kernel cache, 0 died, 0 outputs differ" su_runs
    grep -h "^start-up:" "$(log_of "start-up: a process that ends during a cold GPU start-up exits cleanly")" | sed 's/^/      /'
    su_trace() {
        local k
        k="$(mktemp -d "$su_dir/k.XXXX")"
        SEQSHIM_CACHE_DIR="$k" SEQSHIM_LOG=debug LD_PRELOAD="$here/lib/exit_handlers.so" "$here/bin/seqshim-ec" \
            correct "$su_dir/in400000.fq" -k 20 -o "$su_dir/gpu.fq" >"$su_dir/trace.log" 2>&1 || return 1
        awk '/NVRTC primed/ { primed = 1 }
             /^\[exit handler\]/ && /(nvrtc|stdc\+\+)/ { if (primed) late++; else early++ }
             /compiled by NVRTC/ { compiled = 1 }
             END { printf "start-up trace: primed %s, compiled %s, NVRTC handlers: %d before priming ended, %d after\n",
                   primed ? "yes" : "no", compiled ? "yes" : "no", early, late }' "$su_dir/trace.log"
    }
    check "start-up: NVRTC registers no exit handler after it was primed" \
        "start-up trace: primed yes, compiled yes, NVRTC handlers: [1-9][0-9]* before priming ended, 0 after" su_trace
    grep -h "^start-up trace:" "$(log_of "start-up: NVRTC registers no exit handler after it was primed")" | sed 's/^/      /'
fi
