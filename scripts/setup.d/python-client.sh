#!/usr/bin/env bash
# A Python venv with openapi-python-client, pytest and httpx for scripts/tests.d/python-client.sh.
# Idempotent: installs only what the venv is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=.tmp/venv/python-client
if [ ! -x "$VENV/bin/python" ]; then
  command -v python3 >/dev/null 2>&1 || { apt-get install -y python3 python3-venv || { apt-get update && apt-get install -y python3 python3-venv; }; }
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -c "import openapi_python_client, pytest, httpx" 2>/dev/null && exit 0
"$VENV/bin/pip" install --quiet --disable-pip-version-check -r clients/python/requirements-dev.txt
