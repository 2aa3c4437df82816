#!/usr/bin/env bash
# Debian's Chromium for the developer-portal browser test (test/e2e/portal.test.ts drives it
# with playwright-core; playwright's own browser download cannot be used here).
set -euo pipefail
command -v chromium >/dev/null 2>&1 && exit 0
apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }
