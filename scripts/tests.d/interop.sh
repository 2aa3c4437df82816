#!/usr/bin/env bash
# Independent MCP SDKs on both sides of toolnexus: the Python `mcp` 2.3.0 client and the Go SDK
# v1.8.0 client against /mcp and `toolnexus mcp` (stdio), each in 2025 and 2026-07-28, with a Python
# `mcp` server (stateful streamable HTTP and stdio) and a Go SDK stdio server behind the gateway,
# all with the default config (no protocolVersion pin). Each client checks, for every upstream:
# list, call, structured output, progress, cancellation, and an upstream question it answers
# (test/interop/python_client.py, test/interop/go/main.go). Writes "passed failed" (checks) to
# .tmp/counts/interop.
set -uo pipefail
cd "$(dirname "$0")/../.."
NAME=interop
OUT=.tmp/interop
mkdir -p .tmp/counts "$OUT"
echo "0 1" > .tmp/counts/$NAME
bash scripts/setup.d/interop.sh || exit 1
if [ ! -f dist/bundle/cli.js ] || [ -n "$(find src -newer dist/bundle/cli.js -name '*.ts' -print -quit)" ]; then npm run build >/dev/null; fi
(cd test/interop/go && go build -o ../../../$OUT/go-interop .) || exit 1

PY=$PWD/.tmp/venv/interop/bin/python
GO=$PWD/$OUT/go-interop
NODE=$(command -v node)
CLI=$PWD/dist/bundle/cli.js
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT
# wait_ok: anything answers at the URL (a server that listens); wait_ready: it answers 2xx (a
# /readyz that says ready: it answers 503 while the sources still load).
wait_ok() { for _ in $(seq 1 150); do curl -s -o /dev/null "$1" && return 0; sleep 0.2; done; return 1; }
wait_ready() { for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.2; done; return 1; }

py_port=$(free_port); tn_port=$(free_port)
"$PY" test/interop/python_server.py http "$py_port" > "$OUT/python-server.log" 2>&1 &
pids+=($!)
wait_ok "http://127.0.0.1:$py_port/mcp" || { echo "interop: the Python server did not start"; exit 1; }
cat > "$OUT/toolnexus.yaml" <<YAML
mcpServers:
  pyhttp: { url: "http://127.0.0.1:$py_port/mcp" }
  pystdio: { command: ["$PY", "$PWD/test/interop/python_server.py", "stdio"] }
  gostdio: { command: ["$GO", "server"] }
server: { logLevel: debug }
YAML
"$NODE" "$CLI" serve --config "$OUT/toolnexus.yaml" --port "$tn_port" --host 127.0.0.1 > "$OUT/serve.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$tn_port/readyz" || { echo "interop: toolnexus did not become ready"; exit 1; }
curl -s "http://127.0.0.1:$tn_port/status" | "$PY" -c 'import json, sys; [print("interop: %s %s (%s)" % (s["name"], s.get("protocolVersion"), s.get("protocolReason", s.get("error")))) for s in json.load(sys.stdin)["sources"]]'

export UPSTREAMS=pyhttp,pystdio,gostdio
URL="http://127.0.0.1:$tn_port/mcp"
# One client at a time: a 2025 upstream's mid-call question is routed to a caller only while
# that caller's call is the only one in flight on the upstream's session (docs/input-and-tasks.md).
{
  "$PY" test/interop/python_client.py "$URL" legacy
  "$PY" test/interop/python_client.py "$URL" 2026-07-28
  "$PY" test/interop/python_client.py stdio legacy "$NODE" "$CLI" "$OUT/toolnexus.yaml"
  "$PY" test/interop/python_client.py stdio 2026-07-28 "$NODE" "$CLI" "$OUT/toolnexus.yaml"
  "$GO" client "$URL" 2025-11-25
  "$GO" client "$URL" 2026-07-28
  "$GO" client stdio 2025-11-25 "$NODE" "$CLI" "$OUT/toolnexus.yaml"
  "$GO" client stdio 2026-07-28 "$NODE" "$CLI" "$OUT/toolnexus.yaml"
} 2>"$OUT/clients.err" | tee "$OUT/checks.log"

passed=$(grep -c '^PASS' "$OUT/checks.log")
failed=$(grep -c '^FAIL' "$OUT/checks.log")
[ "$passed" -eq 0 ] && failed=$((failed + 1))
echo "interop: $passed passed, $failed failed"
echo "$passed $failed" > .tmp/counts/$NAME
[ "$failed" -eq 0 ]
