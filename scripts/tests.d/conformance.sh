#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, requirement sets
# 2026-07-28 and 2025-11-25) against /mcp of a live `toolnexus serve` in front of the suite's
# reference server (../shared/conformance/mcp-everything-server, prefix: false). Scenarios
# listed in test/fixtures/conformance/expected-failures-<revision>.yml are known (one line of
# why each); the suite also fails when one of them passes (a stale entry).
# Writes "passed failed" to .tmp/counts/conformance: checks passed, and failed checks of
# scenarios not in that list (the baselined ones are printed apart).
set -uo pipefail
cd "$(dirname "$0")/../.."
EVERYTHING_SRC=../shared/conformance/mcp-everything-server
VERSION=0.2.0-alpha.12
OUT=.tmp/conformance
BASELINES=test/fixtures/conformance/expected-failures
mkdir -p .tmp/counts "$OUT"
echo "0 1" > .tmp/counts/conformance
if [ ! -d "$EVERYTHING_SRC" ]; then echo "conformance: $EVERYTHING_SRC is missing"; exit 1; fi
if [ ! -f dist/bundle/cli.js ] || [ -n "$(find src -newer dist/bundle/cli.js -name '*.ts' -print -quit)" ]; then npm run build >/dev/null; fi

# The suite and the reference server, installed once under .tmp (not project dependencies).
TOOL=.tmp/conformance-tool
if [ ! -x "$TOOL/node_modules/.bin/conformance" ]; then
  mkdir -p "$TOOL" && echo '{"private":true}' > "$TOOL/package.json"
  (cd "$TOOL" && npm install --no-audit --no-fund "@modelcontextprotocol/conformance@$VERSION" >/dev/null) || exit 1
fi
EV=.tmp/everything-server
if [ ! -d "$EV/node_modules" ]; then
  mkdir -p "$EV" && cp "$EVERYTHING_SRC"/{everything-server.ts,package.json,package-lock.json} "$EV/"
  (cd "$EV" && npm ci --no-audit --no-fund >/dev/null) || exit 1
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; }
trap cleanup EXIT
wait_ok() { for _ in $(seq 1 150); do node -e 'fetch(process.argv[1]).then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))' "$1" && return 0; sleep 0.2; done; return 1; }

ev_port=$(free_port); tn_port=$(free_port)
# tsx itself, not npx: a kill of npx would leave tsx and its node child running.
(cd "$EV" && PORT=$ev_port exec node node_modules/tsx/dist/cli.mjs everything-server.ts) > "$OUT/everything.log" 2>&1 &
pids+=($!)
wait_ok "http://localhost:$ev_port/mcp" || { echo "conformance: the reference server did not start"; exit 1; }
# Pinned to 2026-07-28: unpinned, toolnexus would speak 2025 to it (it keeps 2025 sessions over
# HTTP, see docs/mcp-servers.md#protocol-revisions), and its 2026-only tools are visible only in 2026.
# The tasks-* scenarios call native tools of their own (greet, slow_compute, …): a fixture plugin
# beside the reference server; taskAfterMs well under the 1 s those scenarios expect to become tasks.
# Its tools that ask mid-call (test_sampling, test_elicitation*) are reached over a second,
# 2025-pinned session: on its 2026 path the reference server runs tools through an in-memory
# client of its own that answers their elicitation/create and sampling/createMessage "Method not
# found" (a 2026 server asks through input_required instead), so only a 2025 session relays them.
ASKING='{ test_sampling: ASK, test_elicitation: ASK, test_elicitation_sep1034_defaults: ASK, test_elicitation_sep1330_enums: ASK }'
cat > "$OUT/toolnexus.yaml" <<YAML
mcpServers:
  everything: { url: "http://localhost:$ev_port/mcp", prefix: false, protocolVersion: "2026-07-28", tools: ${ASKING//ASK/false} }
  everything2025: { url: "http://localhost:$ev_port/mcp", prefix: false, protocolVersion: "2025-11-25", tools: ${ASKING//ASK/true} }
plugins: ["$PWD/test/fixtures/plugins/conformance-tasks.mjs"]
server: { logLevel: debug, mcp: { taskAfterMs: 200 } }
YAML
node dist/bundle/cli.js serve --config "$OUT/toolnexus.yaml" --port "$tn_port" > "$OUT/serve.log" 2>&1 &
pids+=($!)
wait_ok "http://127.0.0.1:$tn_port/readyz" || { echo "conformance: toolnexus did not start"; exit 1; }

rc=0
for req in 2026-07-28 2025-11-25; do
  rm -rf "${OUT:?}/$req"
  echo "-- conformance: requirements $req"
  "$TOOL/node_modules/.bin/conformance" server --url "http://localhost:$tn_port/mcp" --requirements "$req" \
    --expected-failures "$BASELINES-$req.yml" -o "$OUT/$req" --timeout 15000 | grep -E -A3 '^(✓|✗)|Total|Unexpected|Stale' || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done

read -r passed failed baselined < <(python3 - "$OUT" "$BASELINES" <<'PY'
import glob, json, os, re, sys
out, baselines = sys.argv[1], sys.argv[2]
passed = failed = baselined = 0
for f in glob.glob(os.path.join(out, "*", "server-*", "checks.json")):
    req = os.path.basename(os.path.dirname(os.path.dirname(f)))
    known = set(re.findall(r"^\s*-\s*([\w-]+)", open(f"{baselines}-{req}.yml").read(), re.M))
    scenario = re.sub(r"^server-(.*)-\d{4}-\d\d-\d\dT.*$", r"\1", os.path.basename(os.path.dirname(f)))
    for c in json.load(open(f)):
        if c.get("status") == "SUCCESS": passed += 1
        elif c.get("status") == "FAILURE":
            if scenario in known: baselined += 1
            else: failed += 1
print(passed, failed, baselined)
PY
)
echo "-- conformance: $passed checks passed, $failed failed ($baselined failed in expected-failure scenarios)"
# Every request's duration is in serve.log (logLevel debug): the slowest say whether a scenario
# that ran out of time waited on toolnexus, and on which MCP method (all of them when one failed).
python3 - "$OUT/serve.log" "$([ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && echo 3 || echo 40)" <<'PY'
import datetime, json, sys
lines = []
for raw in open(sys.argv[1], errors="replace"):
    try: l = json.loads(raw)
    except ValueError: continue
    if isinstance(l.get("durationMs"), (int, float)): lines.append(l)
lines.sort(key=lambda l: -l["durationMs"])
print(f"-- conformance: {len(lines)} requests timed; the slowest:")
for l in lines[: int(sys.argv[2])]:
    what = l.get("mcpMethod") or l.get("tool") or l.get("url")
    print(f"   {l['durationMs']:>8} ms  {l.get('method', 'POST')} {what}  {l.get('statusCode')}  at {datetime.datetime.fromtimestamp(l.get('time', 0) / 1000, datetime.UTC):%H:%M:%S.%f}")
PY
# No check at all (the suite could not run: too old a Node, a crash) is a failure, not a pass.
[ "$passed" -gt 0 ] || { echo "conformance: no check ran"; failed=$((failed + 1)); }
echo "$passed $failed" > .tmp/counts/conformance
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
