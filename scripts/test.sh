#!/usr/bin/env bash
# `npm test`: installs missing test tools, runs vitest, then every scripts/tests.d/*.sh suite
# (Python, Go, fuzzers). Ends with one line "N passed, N failed" summed over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .tmp/counts
rm -f .tmp/counts/*
status=0
# Node.js 24 first on PATH when the system node is older (prints which node runs).
source scripts/lib/node24.sh || exit 1
bash scripts/ensure-tools.sh || { echo "tool setup failed"; status=1; }

npx vitest run --reporter=default --reporter=json --outputFile=.tmp/vitest.json "$@" || status=1
node -e '
  const fs = require("node:fs");
  let p = 0, f = 1;
  try { const r = JSON.parse(fs.readFileSync(".tmp/vitest.json", "utf8")); p = r.numPassedTests; f = r.numFailedTests + (r.numFailedTestSuites || 0); } catch {}
  fs.writeFileSync(".tmp/counts/vitest", `${p} ${f}\n`);
'

# Each suite script prints its own output and writes "passed failed" to .tmp/counts/<name>.
if [ $# -eq 0 ]; then
  for f in scripts/tests.d/*.sh; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .sh)
    echo "== $name"
    bash "$f" || status=1
    [ -s ".tmp/counts/$name" ] || echo "0 1" > ".tmp/counts/$name"
  done
fi

passed=0; failed=0
for c in .tmp/counts/*; do
  read -r p f < "$c"
  echo "  $(basename "$c"): $p passed, $f failed"
  passed=$((passed + p)); failed=$((failed + f))
done
[ "$failed" -eq 0 ] || status=1
# .ci/run prints the closing line itself (once): it asks for it in a file.
if [ -n "${TOOLNEXUS_SUMMARY_FILE:-}" ]; then
  echo "$passed passed, $failed failed" > "$TOOLNEXUS_SUMMARY_FILE"
else
  echo "$passed passed, $failed failed"
fi
exit "$status"
