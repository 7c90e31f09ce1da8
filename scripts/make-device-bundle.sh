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
cc -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/wfa2lib -o "$out/bin/seqshim-wfa-demo" \
    integrations/demo/wfa_batch_demo.c -L"$out/lib" -l:libseqshim.so.0 -lpthread -Wl,-rpath,'$ORIGIN/../lib'
cc -O2 -Wall -Wextra -Werror -Iinclude -o "$out/bin/seqshim-gact-demo" integrations/demo/gact_demo.c \
    -L"$out/lib" -l:libseqshim.so.0 -Wl,-rpath,'$ORIGIN/../lib'
cc -O2 -Wall -Wextra -Werror -Iinclude -o "$out/bin/gact-threads" benches/gact/gact_threads.c \
    -L"$out/lib" -l:libseqshim.so.0 -lpthread -Wl,-rpath,'$ORIGIN/../lib'
strip -o "$out/bin/seqshim-ec" target/release/seqshim-ec
cc -O1 -Wall -Wextra -Werror -Iinclude -DLOAD_LINKED -o "$out/bin/native_api" \
    ffi-tests/native/native_api.c -L"$out/lib" -l:libseqshim.so.0 -Wl,-rpath,'$ORIGIN/../lib'
cc -O2 -Wall -Wextra -Werror -Iinclude/boa -o "$out/bin/poa-boa-threads" benches/poa/boa_threads.c \
    -L"$out/lib" -l:libseqshim.so.0 -lpthread -Wl,-rpath,'$ORIGIN/../lib'
cc -O2 -Wall -Wextra -Werror -o "$out/bin/gpu_hog" ffi-tests/device/gpu_hog.c -ldl
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$out/lib/exit_handlers.so" ffi-tests/device/exit_handlers.c -ldl
cp integrations/consent/boa-dna.mat "$out/data/boa-dna.mat"

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
        # The unit tests, the NVRTC check, and every family's tests/<family>_gpu.rs.
        seqshim|kernels_compile|*_gpu) strip -o "$out/bin/test-$name" "$exe" ;;
    esac
done

# WFA benchmarks, timed against Debian 12's libwfa2.so.0 2.3.3: its package
# is downloaded here (the GPU machine may have no network) and unpacked
# into the bundle.
deb_dir="$(mktemp -d)"
if (cd "$deb_dir" && apt-get download libwfa2-0 >/dev/null 2>&1) \
    || cp /var/cache/apt/archives/libwfa2-0_2.3.3*.deb "$deb_dir/" 2>/dev/null; then
    dpkg-deb -x "$deb_dir"/libwfa2-0_*.deb "$deb_dir/x"
    mkdir -p "$out/debian"
    cp -L "$deb_dir"/x/usr/lib/*/libwfa2.so.0 "$out/debian/"
    cc -O2 -Wall -Wextra -Werror -Iinclude -Iinclude/wfa2lib -o "$out/bin/wfa-batch-bench" \
        benches/wfa_batch/wfa_batch_bench.c -ldl -lpthread -Wl,--no-as-needed -lm
    cc -O2 -Wall -Wextra -Werror -Iinclude/wfa2lib -o "$out/bin/wfa-threads" benches/wfa_batch/wfa_threads.c \
        -L"$out/debian" -l:libwfa2.so.0 -lpthread -Wl,--no-as-needed -lm
else
    echo "note: could not download Debian's libwfa2-0; the bundle carries no WFA benchmark"
fi
rm -rf "$deb_dir"

# GACT's CPU reference, parasail traced on 16 threads, against Debian 12's
# libparasail.so.8 2.6: its package (downloaded, or the copy installed
# here) is unpacked into the bundle, which the GPU machine may lack.
deb_dir="$(mktemp -d)"
if (cd "$deb_dir" && apt-get download libparasail8 >/dev/null 2>&1) \
    || cp /var/cache/apt/archives/libparasail8_2.6*.deb "$deb_dir/" 2>/dev/null; then
    dpkg-deb -x "$deb_dir"/libparasail8_*.deb "$deb_dir/x"
    parasail_so="$(ls "$deb_dir"/x/usr/lib/*/libparasail.so.8)"
elif [ -e /usr/lib/x86_64-linux-gnu/libparasail.so.8 ] && dpkg -s libparasail8 >/dev/null 2>&1; then
    parasail_so=/usr/lib/x86_64-linux-gnu/libparasail.so.8
else
    parasail_so=
fi
if [ -n "$parasail_so" ] && [ -e /usr/include/parasail.h ]; then
    mkdir -p "$out/debian"
    cp -L "$parasail_so" "$out/debian/libparasail.so.8"
    cc -O2 -Wall -Wextra -Werror -o "$out/bin/parasail-threads" benches/gact/parasail_threads.c \
        -L"$out/debian" -l:libparasail.so.8 -lpthread -Wl,-rpath,'$ORIGIN/../debian'
else
    echo "note: no Debian libparasail8 (or libparasail-dev's header); the bundle carries no parasail benchmark"
fi
rm -rf "$deb_dir"

# The EC benchmark's reference (Debian's lighter), when this machine has it.
if command -v lighter >/dev/null; then
    cp "$(command -v lighter)" "$out/bin/lighter"
fi

cp ffi-tests/expected/*.txt "$out/data/" 2>/dev/null || true
if [ -d ../shared/data ]; then
    # Every family's fixture folder.
    for fixture in ../shared/data/*/; do
        cp -r "$fixture" "$out/data/"
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
