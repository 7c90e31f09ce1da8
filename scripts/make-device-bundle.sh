#!/usr/bin/env bash
# Assembles device-bundle/: everything a GPU machine with CUDA but without
# Rust needs to run seqshim's GPU checks: the stripped library, the demo and
# C test programs, the Rust test binaries, fixtures, and run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out=device-bundle
rm -rf "$out"
mkdir -p "$out/lib" "$out/bin" "$out/data"

cargo build --release --locked
strip -o "$out/lib/libseqshim.so.0" target/release/libseqshim.so

cc -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/boa -o "$out/bin/seqshim-demo" integrations/demo/demo.c \
    -L"$out/lib" -l:libseqshim.so.0 -Wl,-rpath,'$ORIGIN/../lib'
cc -O2 -Wall -Wextra -Werror -Iinclude -o "$out/bin/seqshim-abea-demo" integrations/demo/abea_demo.c \
    -L"$out/lib" -l:libseqshim.so.0 -lm -Wl,-rpath,'$ORIGIN/../lib'
cc -O1 -Wall -Wextra -Werror -Iinclude -DLOAD_LINKED -o "$out/bin/native_api" \
    ffi-tests/native/native_api.c -L"$out/lib" -l:libseqshim.so.0 -Wl,-rpath,'$ORIGIN/../lib'

# Rust test binaries, release mode, stripped. `--message-format` names them.
cargo test --release --locked --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["executable"])
' | while read -r name exe; do
    case "$name" in
        seqshim|kernels_compile|abea_gpu|wfa_gpu) strip -o "$out/bin/test-$name" "$exe" ;;
    esac
done

cp ffi-tests/expected/*.txt "$out/data/" 2>/dev/null || true
if [ -d ../shared/data ]; then
    for family in abea; do
        [ -d "../shared/data/$family" ] && cp -r "../shared/data/$family" "$out/data/"
    done
else
    echo "note: ../shared/data not found; the bundle carries no fixtures"
fi
# Each family's GPU checks, sourced by run.sh.
mkdir -p "$out/checks"
cp scripts/device-checks/*.sh "$out/checks/"
cp scripts/device-run.sh "$out/run.sh"
chmod +x "$out/run.sh"
du -sh "$out"
echo "device bundle ready in $out/ (run: bash $out/run.sh)"
