// GET /tools?q= (ranked search) against GET /tools (the whole listing) at a few catalog sizes:
// synthetic tools served in process (no upstream), one caller, c=1 over HTTP on 127.0.0.1.
// For each size: the first search (which builds the catalog's index), then the p50 and p95 of
// each route over `n` requests after a warm-up. Queries rotate over a fixed list.
// Usage: npm run build && node bench/search.mjs [sizes=1000,5000,10000] [n=200]
import path from "node:path";
import { performance } from "node:perf_hooks";

const [sizesArg = "1000,5000,10000", nArg = "200"] = process.argv.slice(2);
const root = process.env.BENCH_ROOT ?? path.resolve(import.meta.dirname, "..");
const { buildServer } = await import(path.join(root, "dist/server/build-server.js"));

const VERBS = ["create", "list", "get", "update", "delete", "search", "export", "sync", "archive", "restore"];
const NOUNS = ["issue", "pull request", "file", "message", "channel", "pod", "deployment", "invoice", "customer", "ticket"];
const QUERIES = [
  "create an issue",
  "list pods in namespace",
  "delete old invoices",
  "search messages",
  "restore archived file",
  "sync customer",
];

function tools(n) {
  return Array.from({ length: n }, (_, i) => {
    const verb = VERBS[i % VERBS.length];
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length];
    return {
      name: `svc${Math.floor(i / 100)}_${verb}_${noun.replace(" ", "_")}_${i}`,
      description: `${verb} a ${noun} in service ${Math.floor(i / 100)} (tool ${i})`,
      inputSchema: { type: "object", properties: { id: { type: "string", description: `The ${noun} id` }, limit: { type: "integer" } } },
      source: "native",
      execute: async () => ({ output: "ok", isError: false }),
    };
  });
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

async function timed(url) {
  const t = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  return performance.now() - t;
}

console.log("| tools | first search (builds index) ms | ?q= p50 ms | ?q= p95 ms | /tools p50 ms | /tools p95 ms |");
console.log("|---|---|---|---|---|---|");
for (const size of sizesArg.split(",").map(Number)) {
  const app = await buildServer({ tools: tools(size), logger: { level: "error" } });
  await app.listen({ host: "127.0.0.1", port: 0 });
  await app.toolnexus.ready;
  const base = `http://127.0.0.1:${app.server.address().port}`;
  const q = (i) => `${base}/tools?q=${encodeURIComponent(QUERIES[i % QUERIES.length])}&limit=20`;
  const first = await timed(q(0));
  for (let i = 0; i < 20; i++) await Promise.all([timed(q(i)), timed(`${base}/tools`)]);
  const search = [];
  const list = [];
  for (let i = 0; i < Number(nArg); i++) search.push(await timed(q(i)));
  for (let i = 0; i < Number(nArg); i++) list.push(await timed(`${base}/tools`));
  const f = (x) => x.toFixed(2);
  console.log(
    `| ${size} | ${f(first)} | ${f(quantile(search, 0.5))} | ${f(quantile(search, 0.95))} | ${f(quantile(list, 0.5))} | ${f(quantile(list, 0.95))} |`,
  );
  await app.close();
}
