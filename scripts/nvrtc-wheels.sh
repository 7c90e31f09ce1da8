#!/usr/bin/env bash
# Puts NVRTC from PyPI's wheels under .cache/nvrtc/<series>/ (once), so that
# kernels can be compile-checked on machines with no CUDA installed.
#   cu12: nvidia-cuda-nvrtc-cu12, the last series that targets sm_70
#   cu13: nvidia-cuda-nvrtc 13.x, the series the GPU machines run
# Prints the library folder of the requested series.
set -euo pipefail
series="${1:?usage: nvrtc-wheels.sh cu12|cu13}"
root="$(cd "$(dirname "$0")/.." && pwd)/.cache/nvrtc/$series"
case "$series" in
    cu12) pkg="nvidia-cuda-nvrtc-cu12==12.9.86" ;;
    cu13) pkg="nvidia-cuda-nvrtc==13.0.88" ;;
    *) echo "unknown series $series" >&2; exit 2 ;;
esac
if ! find "$root" -name 'libnvrtc.so.*' 2>/dev/null | grep -q .; then
    mkdir -p "$root"
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
        --target "$root" "$pkg" >&2
fi
lib="$(dirname "$(find "$root" -name 'libnvrtc.so.*' | grep -v builtins | head -n1)")"
echo "$lib"
