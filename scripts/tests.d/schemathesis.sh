#!/usr/bin/env bash
# Schemathesis (property-based OpenAPI fuzzing, every check on) against a live `toolnexus serve`
# with native plugins, server-everything over stdio and an OpenAPI import: once without auth,
# once with an API key. Writes "passed failed" (API operations, summed over both runs) to
# .tmp/counts/schemathesis. Known, justified failures: docs/fuzzing.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .tmp/counts .tmp/schemathesis
ST=.tmp/venv-schemathesis/bin/st
[ -x "$ST" ] || bash scripts/setup.d/schemathesis.sh
if [ ! -f dist/bundle/cli.js ] || [ -n "$(find src -newer dist/bundle/cli.js -name '*.ts' -print -quit)" ]; then npm run build >/dev/null; fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT

upstream_port=$(free_port)
PORT=$upstream_port node test/fixtures/fuzz/upstream.mjs >/dev/null &
pids+=($!)
export FUZZ_UPSTREAM="http://127.0.0.1:$upstream_port"
export FUZZ_API_KEY="fuzz-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')"

passed=0; failed=0
run() { # run <name> [st options...]
  local name=$1; shift
  local port; port=$(free_port)
  node dist/bundle/cli.js serve --config "test/fixtures/fuzz/toolnexus-$name.yaml" --port "$port" > ".tmp/schemathesis/$name-server.log" 2>&1 &
  local server=$!
  pids+=("$server")
  local auth=()
  [ "$name" = auth ] && auth=(-H "Authorization: Bearer $FUZZ_API_KEY")
  for _ in $(seq 1 100); do node -e 'fetch(process.argv[1]).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "http://127.0.0.1:$port/readyz" && break; sleep 0.2; done
  echo "-- schemathesis: $name (server on $port)"
  "$ST" --config-file test/fixtures/fuzz/schemathesis.toml run "http://127.0.0.1:$port/openapi.json" "${auth[@]}" \
    --checks all --max-examples "${FUZZ_MAX_EXAMPLES:-15}" --seed "${FUZZ_SEED:-1}" --workers 2 \
    --request-timeout 20 --phases examples,coverage,fuzzing --no-color \
    --report json --report-json-path ".tmp/schemathesis/$name.json" "$@"
  local rc=$?
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
  read -r p f < <(python3 scripts/tests.d/schemathesis-counts.py ".tmp/schemathesis/$name.json" "$rc")
  echo "-- $name: $p operations passed, $f failed"
  passed=$((passed + p)); failed=$((failed + f))
}
run open
run auth
echo "$passed $failed" > .tmp/counts/schemathesis
[ "$failed" -eq 0 ]
