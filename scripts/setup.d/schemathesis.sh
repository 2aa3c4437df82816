#!/usr/bin/env bash
# Installs Schemathesis (the OpenAPI fuzzer run by scripts/tests.d/schemathesis.sh) into a
# venv under .tmp, so it needs no root and leaves the system Python alone. Idempotent.
# CPython before 3.11.8 raises "AST constructor recursion depth mismatch" inside Schemathesis's
# generator on deep schemas (gh-106905), so the newest Python found is used (pyenv's included).
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.tmp/venv-schemathesis
fixed='import sys; sys.exit(0 if sys.version_info >= (3, 11, 8) else 1)'
if [ -x "$venv/bin/st" ] && "$venv/bin/python" -c "$fixed" 2>/dev/null && "$venv/bin/st" --version >/dev/null 2>&1; then exit 0; fi

candidates=()
for v in 3.14 3.13 3.12; do command -v "python$v" >/dev/null && candidates+=("python$v"); done
if command -v pyenv >/dev/null; then
  for p in $(ls -d "$(pyenv root)"/versions/3.*/bin/python3 2>/dev/null | sort -rV); do candidates+=("$p"); done
fi
candidates+=(python3)
python=""
for c in "${candidates[@]}"; do
  if "$c" -c "$fixed" 2>/dev/null && "$c" -m venv --help >/dev/null 2>&1; then python=$c; break; fi
done
if [ -z "$python" ]; then
  command -v python3 >/dev/null || apt-get install -y python3 python3-venv || { apt-get update && apt-get install -y python3 python3-venv; }
  python3 -m venv --help >/dev/null 2>&1 || apt-get install -y python3-venv || { apt-get update && apt-get install -y python3-venv; }
  python=python3
  echo "schemathesis: no Python >= 3.11.8 found; using $(python3 --version), which may hit gh-106905" >&2
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis>=4.32,<5"
"$venv/bin/st" --version
