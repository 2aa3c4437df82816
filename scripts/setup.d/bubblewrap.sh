#!/usr/bin/env bash
# bubblewrap (bwrap), the sandbox the bash built-in runs commands in (builtins.sandbox: auto or
# bubblewrap; test/sources/builtins/sandbox.test.ts runs it). Idempotent: skipped when installed.
set -euo pipefail
command -v bwrap >/dev/null 2>&1 && exit 0
apt-get install -y bubblewrap || { apt-get update && apt-get install -y bubblewrap; }
