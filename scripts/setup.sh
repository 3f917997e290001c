#!/usr/bin/env bash
# Installs everything Verbatim needs on a Debian 12 machine that has Node.js and npm:
# Bun and the dependencies (from bun.lock), the AVX2 build of whisper.cpp, ffmpeg (Debian package; poppler-utils and
# unzip too, which the tests use to read PDF and DOCX files, and chromium, which the web app's browser
# tests drive), the default models, and the
# compiled executable dist/verbatim. Safe to run again: each step skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

BUN_VERSION="1.4.5"
say() { printf '\n==> %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "need root (or sudo) for: $*" >&2; return 1
  fi
}

say "Bun ${BUN_VERSION} and dependencies"
if [ -x node_modules/.bin/bun ] && [ "$(node_modules/.bin/bun --version)" = "$BUN_VERSION" ]; then
  node_modules/.bin/bun install --frozen-lockfile
else
  # npx fetches Bun from the npm registry once; `bun install` then puts it in node_modules with the rest.
  npx --yes "bun@${BUN_VERSION}" install --frozen-lockfile
fi
BUN="$PWD/node_modules/.bin/bun"
"$BUN" --version

say "whisper.cpp CPU build (smart-whisper with AVX2 and OpenMP)"
# Bun does not run smart-whisper's own install script, which would build without AVX2 anyway.
addon=node_modules/smart-whisper/build/Release/smart-whisper.node
if [ -f "$addon" ] && [ "$addon" -nt node_modules/smart-whisper/package.json ]; then
  echo "already built: $addon"
elif ! bash src/engines/whisper/build-smart-whisper.sh; then
  # The engine then uses the @fugood/whisper.node prebuild: correct, about 20x slower on CPU.
  echo "warning: the smart-whisper build failed; whisper will run on the slower @fugood CPU build" >&2
fi

say "ffmpeg; poppler-utils, unzip and xmllint for the tests' PDF and DOCX checks; chromium for the web app's browser tests; fonts-noto-cjk for the CJK PDF test"
missing=()
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
command -v pdftotext >/dev/null || missing+=(poppler-utils)
command -v unzip >/dev/null || missing+=(unzip)
command -v bzip2 >/dev/null || missing+=(bzip2)   # sherpa-onnx ships its segmentation model as .tar.bz2
command -v chromium >/dev/null || missing+=(chromium)   # the web app's browser tests (playwright-core drives it)
[ -f /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] || missing+=(fonts-noto-cjk)   # the CJK PDF test (and --cjk-font)
command -v xmllint >/dev/null || missing+=(libxml2-utils)   # the tests' strict XML parser (DOCX parts, renderers' text)
# The suite's second run is on PostgreSQL (issue 22): a throwaway cluster of Debian's PostgreSQL 15
# (scripts/postgres-for-tests.sh); the appliance itself never needs it.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
ffmpeg -version | head -n 1

say "Models"
# The real models of the machine's profile when their source answers, and always the stand-ins the tests use.
"$BUN" scripts/install-models.ts --profile auto

say "Executable"
"$BUN" run build
ls -l dist/verbatim

say "Ready. Start with: npm start   (or: dist/verbatim serve)"
