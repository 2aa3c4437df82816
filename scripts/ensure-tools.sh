#!/usr/bin/env bash
# Installs what the tests need beyond npm packages (system packages, Python and Go tools) when
# it is missing. Each scripts/setup.d/*.sh is idempotent and checks before it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
for f in scripts/setup.d/*.sh; do
  [ -e "$f" ] || continue
  bash "$f"
done
