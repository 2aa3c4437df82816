// `npm run build && node bench/surface.mjs`: the MCP surface through the gateway.
// 1. resources/read of a 1 KiB text resource through `/mcp` (v2 SDK client, streamable HTTP, one
//    session) against a direct v2 SDK client of the same upstream (stdio, its own child), c=1,
//    p50, in alternation (A,B,A,B…; BENCH_ROUNDS, default 5, of BENCH_N calls, default 2000).
//    Beside it, through the same gateway and client: tools/call of the native echo (the HTTP
//    part of the hop, for the floor "native + direct" the stdio tools/call target uses), and
//    tools/call of the upstream's echo through the gateway and directly (the tools/call hop,
//    by the same formula, for comparison).
// 2. resources/list of 10 servers × 100 resources, merged, through `/mcp`: p50 over BENCH_N
//    calls, and how many resources/list requests the 10 upstreams served meanwhile (0: the
//    list comes from the catalog, never a fan-out per request).
// 127.0.0.1 only; stops itself after 5 minutes.
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { ECHO_PLUGIN, ROOT, spread, startToolnexus } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const N = Number(process.env.BENCH_N ?? 2000);
const UPSTREAM = path.join(ROOT, "bench/fixtures/surface-upstream.mjs");
const guard = setTimeout(() => {
  console.error("bench/surface.mjs: hard time limit reached");
  process.exit(2);
}, 300_000);
guard.unref();

/** p50 in ms of `n` sequential calls. */
async function p50(call, n) {
  const xs = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    xs.push(performance.now() - t);
  }
  xs.sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)];
}

async function connect(transport) {
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(transport);
  return client;
}

// Every request goes out: the 2026 client's cache of read results is not what is measured.
const BYPASS = { cacheMode: "bypass" };

const check = (ok, what) => {
  if (!ok) throw new Error(`bad answer: ${what}`);
};

const dir = await mkdtemp(path.join(tmpdir(), "tn-bench-surface-"));
const stops = [];
try {
  console.log(
    `MCP surface, ${new Date().toISOString()}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  // 1. The read hop.
  const tn = await startToolnexus(dir, {
    server: { logLevel: "warn" },
    plugins: [ECHO_PLUGIN],
    mcpServers: { up: { command: [process.execPath, UPSTREAM] } },
  });
  stops.push(() => tn.stop());
  const viaGateway = await connect(new StreamableHTTPClientTransport(new URL(`${tn.url}/mcp`)));
  const direct = await connect(new StdioClientTransport({ command: process.execPath, args: [UPSTREAM], stderr: "ignore" }));
  stops.push(
    () => viaGateway.close(),
    () => direct.close(),
  );
  const calls = {
    "gateway resources/read": async () =>
      check((await viaGateway.readResource({ uri: "up+file:///one-kib.txt" }, BYPASS)).contents[0].text.length === 1024, "read"),
    "direct resources/read": async () =>
      check((await direct.readResource({ uri: "file:///one-kib.txt" }, BYPASS)).contents[0].text.length === 1024, "direct read"),
    "gateway tools/call native echo": async () =>
      check((await viaGateway.callTool({ name: "echo", arguments: { text: "hello" } })).isError !== true, "native echo"),
    "gateway tools/call upstream echo": async () =>
      check((await viaGateway.callTool({ name: "up_echo", arguments: { text: "hello" } })).content[0].text === "hello", "echo"),
    "direct tools/call echo": async () =>
      check((await direct.callTool({ name: "echo", arguments: { text: "hello" } })).content[0].text === "hello", "direct echo"),
  };
  for (const call of Object.values(calls)) await p50(call, 300);
  const res = Object.fromEntries(Object.keys(calls).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? Object.keys(calls) : Object.keys(calls).reverse();
    for (const k of order) res[k].push(await p50(calls[k], N));
  }
  console.log(`\n1 KiB resources/read, c=1, p50 ms over ${N} calls, ${ROUNDS} rounds alternated: median [min–max]`);
  for (const [k, xs] of Object.entries(res)) console.log(`  ${k.padEnd(34)} ${spread(xs, 3)}`);
  const per = (f) => res["gateway resources/read"].map((a, i) => f(a, i));
  console.log(`  read through /mcp ÷ direct client           ${spread(per((a, i) => a / res["direct resources/read"][i]))}`);
  console.log(
    `  read through /mcp ÷ (native /mcp + direct)   ${spread(
      per((a, i) => a / (res["direct resources/read"][i] + res["gateway tools/call native echo"][i])),
    )}   (target ≤ 1.2)`,
  );
  const hop = (through, directly) => spread(res[through].map((a, i) => a / (res[directly][i] + res["gateway tools/call native echo"][i])));
  console.log(`  tools/call, the same formula                 ${hop("gateway tools/call upstream echo", "direct tools/call echo")}`);
  console.log(`  read ÷ tools/call of the same upstream        ${spread(per((a, i) => a / res["gateway tools/call upstream echo"][i]))}`);

  // 2. The merged list.
  const servers = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`s${i}`, { command: [process.execPath, UPSTREAM], env: { SURFACE_RESOURCES: "100" } }]),
  );
  const big = await startToolnexus(dir, { server: { logLevel: "warn", mcp: { pageSize: 2000 } }, mcpServers: servers }, "toolnexus-10x100");
  stops.push(() => big.stop());
  const lister = await connect(new StreamableHTTPClientTransport(new URL(`${big.url}/mcp`)));
  stops.push(() => lister.close());
  const listCalls = async () => {
    let total = 0;
    for (const s of Object.keys(servers))
      total += Number((await lister.callTool({ name: `${s}_list_calls`, arguments: {} })).content[0].text);
    return total;
  };
  const list = async () => {
    const { resources } = await lister.listResources(undefined, { cacheMode: "bypass" });
    check(resources.length === 1010, `listed ${resources.length}`);
  };
  await p50(list, 50);
  const before = await listCalls();
  const listP50 = [];
  for (let r = 0; r < ROUNDS; r++) listP50.push(await p50(list, Math.max(50, N / 10)));
  const after = await listCalls();
  console.log(`\nresources/list of 10 servers × 100 resources (1,010 items, one page), c=1, p50 ms: ${spread(listP50, 3)}`);
  console.log(`  resources/list requests the upstreams served during ${ROUNDS * Math.max(50, N / 10)} lists: ${after - before}`);
  console.log(
    `\nload average after: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await rm(dir, { recursive: true, force: true });
  clearTimeout(guard);
}
