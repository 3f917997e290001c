#!/usr/bin/env bash
# Makes the release archive: verbatim-<version>-linux-x64.tar.gz (CPU engines) or, with `cuda`,
# verbatim-<version>-linux-x64-cuda.tar.gz (adds the CUDA builds of whisper.cpp and llama.cpp).
#   scripts/package.sh [cpu|cuda]      (OUT_DIR=dist by default)
# Layout: verbatim (the bun build --compile executable: JavaScript, migrations, templates, docs pages,
# fonts, all embedded) and lib/node_modules (the native engines it loads, found relative to the
# executable whatever the working directory: src/engines/native.ts). Needs Bun and the npm registry
# (or Bun's cache) for the production dependencies of bun.lock; run `npm run setup` first so the
# AVX2 build of smart-whisper exists to be copied.
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT="${1:-cpu}"
case "$VARIANT" in cpu) SUFFIX="" ;; cuda) SUFFIX="-cuda" ;; *) echo "usage: scripts/package.sh [cpu|cuda]" >&2; exit 2 ;; esac
BUN="$PWD/node_modules/.bin/bun"
VERSION="$("$BUN" -e 'console.log(require("./package.json").version)')"
NAME="verbatim-${VERSION}-linux-x64${SUFFIX}"
OUT_DIR="${OUT_DIR:-dist}"
mkdir -p "$OUT_DIR"
STAGE_ROOT="$(mktemp -d)"
trap 'rm -rf "$STAGE_ROOT"' EXIT
STAGE="$STAGE_ROOT/$NAME"
mkdir -p "$STAGE/lib"

"$BUN" run build >/dev/null
cp dist/verbatim "$STAGE/verbatim"

# The production dependencies, exactly as locked; no install scripts (smart-whisper's would build
# without AVX2: ours is copied below).
cp package.json bun.lock "$STAGE/lib/"
(cd "$STAGE/lib" && "$BUN" install --production --frozen-lockfile --ignore-scripts >/dev/null)
rm -f "$STAGE/lib/package.json" "$STAGE/lib/bun.lock"
if [ -f node_modules/smart-whisper/build/Release/smart-whisper.node ]; then
  mkdir -p "$STAGE/lib/node_modules/smart-whisper/build/Release"
  cp node_modules/smart-whisper/build/Release/smart-whisper.node "$STAGE/lib/node_modules/smart-whisper/build/Release/"
else
  echo "warning: no AVX2 build of smart-whisper to ship; the archive transcribes with the slower @fugood CPU build" >&2
fi

# Only this platform's engine builds; the CPU archive leaves out the CUDA ones (about 730 MB).
NM="$STAGE/lib/node_modules"
rm -rf "$NM"/@node-llama-cpp/{mac-*,win-*,linux-arm64,linux-armv7l} "$NM"/@fugood/node-whisper-wasm "$NM"/.bin
# What the executable already embeds (bundled JavaScript, fonts) or never loads: only the native
# engines and their own dependencies are needed beside it.
rm -rf "$NM"/{bun,@oven,typescript,@typescript,docx,gpt-tokenizer,pdfkit,fontkit,dejavu-fonts-ttf,drizzle-orm,elysia,zod,marked,prom-client,nodemailer,jose,tar}
if [ "$VARIANT" = cpu ]; then
  rm -rf "$NM"/@node-llama-cpp/linux-x64-cuda* "$NM"/@fugood/node-whisper-linux-x64-cuda
fi
# node-llama-cpp keeps its llama.cpp sources for local builds, which the service never makes.
rm -rf "$NM"/node-llama-cpp/llama/llama.cpp "$NM"/node-llama-cpp/llama/localBuilds 2>/dev/null || true

tar -czf "$OUT_DIR/$NAME.tar.gz" -C "$STAGE_ROOT" "$NAME"
echo "$OUT_DIR/$NAME.tar.gz ($(du -h "$OUT_DIR/$NAME.tar.gz" | cut -f1))"
