# Sharing one GPU, for the GPU machine; sourced by the bundle's run.sh, which
# provides `check`, `log_of`, $here (the bundle) and $cache (a scratch dir).
# Four processes start at once on GPU 0 (the WFA demo, the WFA batch
# benchmark at 1 and 10 kbp, and the ABEA demo twice); each must finish with
# correct results and must have used the GPU. Then the same four under a
# small SEQSHIM_GPU_MEMORY: results still correct, and no process's arenas
# above the cap. Prints each process's peak device memory as nvidia-smi saw
# it (the CUDA context included) and as seqshim's ledger logged it.
#   SHARING_SMALL_CAP   the small cap (default 256M)
#   SHARING_LIB_BEFORE  a folder with another libseqshim.so.0 (e.g. the
#                       previous release) to run the same four with first,
#                       for comparison; informational, never a failure
sharing_abea_dir="$here/data/abea/ecoli_2kb_r94"

# sharing_four LIBDIR [VAR=VALUE...]: runs the four processes at once with
# the library in LIBDIR and the given environment, sampling device memory
# every 100 ms; prints one line per process and a summary line.
sharing_four() {
    local libdir="$1"
    shift
    local dir
    dir="$(mktemp -d "$cache/sharing.XXXX")"
    nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -lms 100 \
        >"$dir/apps.csv" 2>/dev/null &
    local apps_sampler=$!
    nvidia-smi --query-gpu=index,memory.used --format=csv,noheader,nounits -lms 100 \
        >"$dir/gpu.csv" 2>/dev/null &
    local gpu_sampler=$!
    sleep 0.5
    local names=(wfa-demo wfa-bench abea-demo-1 abea-demo-2) pids=() i
    for i in 0 1 2 3; do
        (
            export LD_LIBRARY_PATH="$libdir" SEQSHIM_LOG=info SEQSHIM_CACHE_DIR="$cache/k" SEQSHIM_DEVICES=0
            for kv in "$@"; do export "${kv?}"; done
            case "${names[$i]}" in
                wfa-demo) exec "$here/bin/seqshim-wfa-demo" ;;
                wfa-bench) WFA_BENCH_SCALE=0.05 WFA_BENCH_LENGTHS=1000,10000 exec "$here/bin/wfa-batch-bench" \
                    "$here/debian/libwfa2.so.0" "$libdir/libseqshim.so.0" ;;
                abea-demo-*) exec "$here/bin/seqshim-abea-demo" "$sharing_abea_dir" ;;
            esac
        ) >"$dir/$i.out" 2>"$dir/$i.err" &
        pids+=($!)
    done
    local rcs=() failed=0
    for i in 0 1 2 3; do
        wait "${pids[$i]}"
        rcs+=($?)
    done
    sleep 0.3
    kill "$apps_sampler" "$gpu_sampler" 2>/dev/null
    wait "$apps_sampler" "$gpu_sampler" 2>/dev/null
    local baseline peak_total
    baseline="$(awk -F', *' '$1 == 0 { print $2; exit }' "$dir/gpu.csv")"
    peak_total="$(awk -F', *' '$1 == 0 && $2 > m { m = $2 } END { print m + 0 }' "$dir/gpu.csv")"
    for i in 0 1 2 3; do
        local name="${names[$i]}" pid="${pids[$i]}" ok=no used=no smi ledger cap
        case "$name" in
            wfa-demo) grep -q "^WFA: all results agree" "$dir/$i.out" && ok=yes ;;
            wfa-bench) grep -q "all results identical" "$dir/$i.out" && ok=yes ;;
            abea-demo-*) grep -q "^ABEA: all results agree" "$dir/$i.out" && ok=yes ;;
        esac
        # Our arenas as the process logged them: the ledger's last word,
        # else (a library without the ledger) the sum of what it reserved.
        ledger="$(grep -oE 'this process holds [0-9]+ MiB of its [0-9]+ MiB cap' "$dir/$i.err" \
            | awk '{ if ($4 > m) m = $4; c = $8 } END { if (c != "") print m " " c }')"
        if [ -n "$ledger" ]; then
            cap="${ledger#* }"
            ledger="${ledger% *}"
            used=yes
        else
            ledger="$(grep -oE 'arena of [0-9]+ MiB|2 lanes of [0-9]+ MiB' "$dir/$i.err" \
                | awk '/lanes/ { s += 2 * $4; next } { s += $3 } END { print s + 0 }')"
            cap="-"
            [ "${ledger:-0}" -gt 0 ] && used=yes
        fi
        smi="$(awk -F', *' -v p="$pid" '$1 == p && $2 > m { m = $2 } END { print (m == "" ? "?" : m) }' "$dir/apps.csv")"
        echo "sharing process: $name pid $pid exit ${rcs[$i]} correct $ok gpu $used nvidia-smi peak ${smi} MiB seqshim arenas peak ${ledger:-0} MiB cap ${cap}"
        if [ "${rcs[$i]}" -ne 0 ] || [ "$ok" != yes ] || [ "$used" != yes ]; then
            failed=$((failed + 1))
            tail -n 5 "$dir/$i.out" "$dir/$i.err" | sed 's/^/    /'
        elif [ "$cap" != "-" ] && [ "$ledger" -gt "$cap" ]; then
            echo "    over its cap"
            failed=$((failed + 1))
        fi
    done
    # nvidia-smi may not see processes by these pids (a container's pid
    # namespace): its own per-pid peaks, whatever their pids.
    awk -F', *' '$2 > m[$1] { m[$1] = $2 } END { for (p in m) printf "sharing nvidia-smi pid %s peak %s MiB\n", p, m[p] }' \
        "$dir/apps.csv"
    grep -h "warning" "$dir"/*.err | sort | uniq -c | head -n 5 | sed 's/^/sharing warning: /'
    echo "sharing: 4 processes, $failed failed; GPU memory used ${baseline:-?} MiB before, peak ${peak_total} MiB during"
    rm -rf "$dir"
    [ "$failed" -eq 0 ]
}

if [ -x "$here/bin/seqshim-wfa-demo" ] && [ -x "$here/bin/seqshim-abea-demo" ] && [ -x "$here/bin/wfa-batch-bench" ] \
    && [ -f "$here/debian/libwfa2.so.0" ] && [ -d "$sharing_abea_dir" ] && command -v nvidia-smi >/dev/null; then
    if [ -n "${SHARING_LIB_BEFORE:-}" ] && [ -f "$SHARING_LIB_BEFORE/libseqshim.so.0" ]; then
        echo "      (for comparison, $SHARING_LIB_BEFORE/libseqshim.so.0:)"
        sharing_four "$SHARING_LIB_BEFORE" 2>&1 | sed 's/^/      before: /'
    fi
    sharing_name="sharing: 4 processes at once on GPU 0, default budget, all correct"
    check "$sharing_name" "sharing: 4 processes, 0 failed" sharing_four "$here/lib"
    grep -E "^sharing" "$(log_of "$sharing_name")" | sed 's/^/      /'
    sharing_cap="${SHARING_SMALL_CAP:-256M}"
    sharing_small="sharing: 4 processes at once, SEQSHIM_GPU_MEMORY=$sharing_cap honoured, all correct"
    check "$sharing_small" "sharing: 4 processes, 0 failed" \
        sharing_four "$here/lib" SEQSHIM_GPU_MEMORY="$sharing_cap"
    grep -E "^sharing" "$(log_of "$sharing_small")" | sed 's/^/      /'
fi
