#!/usr/bin/env bash
# The interop suite's SDKs (scripts/tests.d/interop.sh): a venv with the Python `mcp` 2.3.0 SDK,
# and the Go SDK v1.8.0 module (test/interop/go/go.mod, from the Go module proxy).
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.tmp/venv/interop
if [ ! -x "$VENV/bin/python" ]; then
  command -v python3 >/dev/null 2>&1 || { apt-get install -y python3 python3-venv || { apt-get update && apt-get install -y python3 python3-venv; }; }
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("mcp") != "2.3.0")' 2>/dev/null ||
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0"
command -v go >/dev/null 2>&1 || { apt-get install -y golang-go || { apt-get update && apt-get install -y golang-go; }; }
(cd test/interop/go && go mod download)
