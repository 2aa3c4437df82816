#!/usr/bin/env bash
# redis-server for the executions tests (a real Redis, started per run by test/redis-setup.ts).
set -euo pipefail
command -v redis-server >/dev/null 2>&1 && exit 0
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get install -y --no-install-recommends redis-server || { $SUDO apt-get update && $SUDO apt-get install -y --no-install-recommends redis-server; }
