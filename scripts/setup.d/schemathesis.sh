#!/usr/bin/env bash
# Installs Schemathesis (the OpenAPI fuzzer run by scripts/tests.d/schemathesis.sh) into a
# venv under .tmp, so it needs no root and leaves the system Python alone. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.tmp/venv-schemathesis
if [ -x "$venv/bin/st" ] && "$venv/bin/st" --version >/dev/null 2>&1; then exit 0; fi
command -v python3 >/dev/null || { apt-get install -y python3 python3-venv || { apt-get update && apt-get install -y python3 python3-venv; }; }
python3 -m venv "$venv" 2>/dev/null || { apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }; python3 -m venv "$venv"; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis>=4.3,<5"
"$venv/bin/st" --version
