#!/usr/bin/env bash
# Builds smart-whisper's bundled whisper.cpp with AVX2/FMA/F16C (x86-64-v3) code and OpenMP.
#
# smart-whisper's own install script (node-gyp rebuild) compiles ggml with no -m flags, so its
# CPU kernels are plain SSE2: ~20 s to encode one 30 s window of the tiny model on 2 cores,
# against ~1 s with these flags (docs/engines/whisper.md). Bun also does not run the package's
# install script unless it is in trustedDependencies, so run this after `bun install`.
# OpenMP replaces ggml's pure spin barrier: with another busy process on a 2-core machine the
# whole-file time was 26 s with it against 33-37 s without (same speed when the machine is idle).
#
#   bash src/engines/whisper/build-smart-whisper.sh            # x86-64-v3 (any AVX2 CPU), OpenMP
#   WHISPER_CFLAGS="-march=native -O3 -fopenmp -DGGML_USE_OPENMP" bash src/engines/whisper/build-smart-whisper.sh
#
# Needs node, g++, make and python3 (node-gyp), and node-gyp (npm's own copy, else npx).
# The engine checks /proc/cpuinfo and falls back to @fugood/whisper.node on a CPU without AVX2.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
pkg="$root/node_modules/smart-whisper"
if [ ! -f "$pkg/binding.gyp" ]; then
  echo "smart-whisper is not installed in $root/node_modules (add smart-whisper@0.8.1 first)" >&2
  exit 1
fi
flags="${WHISPER_CFLAGS:--mavx2 -mfma -mf16c -O3 -fopenmp -DGGML_USE_OPENMP}"
ldflags="${WHISPER_LDFLAGS:--fopenmp}"

gyp=()
npm_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
if [ -f "$npm_gyp" ]; then gyp=(node "$npm_gyp"); else gyp=(npx --yes node-gyp); fi

# Node's headers: npm's nodedir setting, else /usr when the distribution installed them there,
# else node-gyp downloads them.
nodedir="${npm_config_nodedir:-$(npm config get nodedir 2>/dev/null || true)}"
if [ -z "$nodedir" ] || [ "$nodedir" = "undefined" ] || [ "$nodedir" = "null" ]; then
  if [ -f /usr/include/node/node_api.h ]; then nodedir=/usr; else nodedir=""; fi
fi
gyp_args=(rebuild --jobs max)
if [ -n "$nodedir" ]; then gyp_args+=(--nodedir "$nodedir"); fi

cd "$pkg"
echo "building smart-whisper with CFLAGS=\"$flags\" (about 20 s on 2 cores)"
log="$pkg/build-verbatim.log"
if ! CFLAGS="$flags" CXXFLAGS="$flags" LDFLAGS="$ldflags" "${gyp[@]}" "${gyp_args[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "the smart-whisper build failed; the whole log is $log" >&2
  exit 1
fi
addon="$pkg/build/Release/smart-whisper.node"
if command -v objdump >/dev/null; then
  ymm="$(objdump -d "$addon" | grep -c ymm || true)"
  echo "$addon: $ymm instructions on ymm (AVX) registers"
  if [ "$ymm" -eq 0 ] && [[ "$flags" == *avx* || "$flags" == *native* ]]; then
    echo "warning: no AVX code in the build; the flags did not reach the compiler" >&2
    exit 1
  fi
fi
