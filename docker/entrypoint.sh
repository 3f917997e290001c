#!/bin/sh
# The container's entrypoint (Dockerfile.cuda). With VERBATIM_INSTALL_MODELS=gpu|cpu and a models
# volume that lacks that profile's models, it installs them first (downloads resume if the
# container restarts midway); then it runs the command given (serve by default) in place of itself.
# VERBATIM_BIN names the executable (tests run this script outside Docker with a stand-in).
set -eu
BIN="${VERBATIM_BIN:-/opt/verbatim/verbatim}"
PROFILE="${VERBATIM_INSTALL_MODELS:-}"
if [ -n "$PROFILE" ]; then
  case "$PROFILE" in
    gpu|cpu) ;;
    *) echo "entrypoint: VERBATIM_INSTALL_MODELS must be gpu or cpu, not $PROFILE" >&2; exit 2 ;;
  esac
  echo "entrypoint: making sure the $PROFILE models are in ${VERBATIM_MODELS_DIR:-/models}"
  "$BIN" models install --profile "$PROFILE"
fi
if [ "$#" -eq 0 ]; then set -- serve; fi
exec "$BIN" "$@"
