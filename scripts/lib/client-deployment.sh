# Sourced by the generated-client suites (scripts/tests.d/{python,go}-client.sh): builds dist/
# when stale, starts `toolnexus serve` on the fixture config test/fixtures/clients on a free
# loopback port, fetches its per-deployment /openapi.json, and stops it when the suite exits.
# Sets TOOLNEXUS_URL, TOOLNEXUS_KEY and OPENAPI_DOC.

export TOOLNEXUS_KEY="client-test-key-0123456789abcdef"
export TOOLNEXUS_CLIENT_TEST_KEY="$TOOLNEXUS_KEY"

start_client_deployment() {
  local work=$1 pid port="" i
  mkdir -p "$work"
  if [ ! -f dist/bundle/cli.js ] || [ -n "$(find src -newer dist/bundle/cli.js -print -quit)" ]; then
    npm run build >/dev/null || return 1
  fi
  node dist/bundle/cli.js serve --config test/fixtures/clients --port 0 >"$work/serve.log" 2>&1 &
  pid=$!
  # shellcheck disable=SC2064 # the pid is meant to be fixed now
  trap "kill $pid 2>/dev/null; wait $pid 2>/dev/null" EXIT
  for i in $(seq 1 300); do
    port=$(grep -o 'listening at http://127.0.0.1:[0-9]*' "$work/serve.log" | grep -o '[0-9]*$' || true)
    if [ -n "$port" ] && curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
    kill -0 "$pid" 2>/dev/null || { cat "$work/serve.log"; return 1; }
    sleep 0.2
  done
  export TOOLNEXUS_URL="http://127.0.0.1:$port"
  export OPENAPI_DOC="$work/openapi.json"
  curl -fsS -H "Authorization: Bearer $TOOLNEXUS_KEY" "$TOOLNEXUS_URL/openapi.json" -o "$OPENAPI_DOC"
}

# write_counts NAME PASSED FAILED: the "passed failed" line scripts/test.sh sums.
write_counts() {
  mkdir -p .tmp/counts
  echo "$2 $3" >".tmp/counts/$1"
}
