import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Redis } from "ioredis";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

const tempDir = (prefix: string) => mkdtemp(path.join(os.tmpdir(), prefix));

// A Cluster node also listens on its port + 10000 (the cluster bus): both must be free.
async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port > 55_000) continue;
    const bus = net.createServer();
    const free = await new Promise<boolean>((r) => {
      bus.once("error", () => r(false));
      bus.listen(port + 10_000, "127.0.0.1", () => r(true));
    });
    if (free) await new Promise((r) => bus.close(r));
    if (free) return port;
  }
}

/** A redis-server process of a test topology. */
interface Node {
  port: number;
  child: ChildProcess;
}

async function serve(args: string[], port: number): Promise<Node> {
  const child = spawn("redis-server", args, { stdio: "ignore" });
  const end = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${child.exitCode}`);
    const r = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    r.on("error", () => undefined);
    const ok = await r.connect().then(
      () => r.ping().then(() => true),
      () => false,
    );
    r.disconnect();
    if (ok) return { port, child };
    if (Date.now() > end) throw new Error(`redis-server on ${port} did not start`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function stopAll(nodes: Node[]): Promise<void> {
  await Promise.all(
    nodes.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await exited;
    }),
  );
}

const dataNode = (port: number, dir: string, extra: string[] = []) => [
  "--port",
  String(port),
  "--bind",
  "127.0.0.1",
  "--save",
  "",
  "--appendonly",
  "no",
  "--dir",
  dir,
  ...extra,
];

/** Polls `check` every 100 ms until it is true (within `ms`). */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Three primaries of a Redis Cluster (no replicas), on free loopback ports. */
export interface ClusterSet {
  nodes: { host: string; port: number }[];
  stop(): Promise<void>;
}

/** Starts three `--cluster-enabled` nodes and joins them with `redis-cli --cluster create`. */
export async function startCluster(): Promise<ClusterSet> {
  const dir = await tempDir("tnx-cluster-");
  const all: Node[] = [];
  const nodes: { host: string; port: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freeClusterPort();
    all.push(
      await serve(
        dataNode(port, dir, [
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          `nodes-${port}.conf`,
          "--cluster-node-timeout",
          "2000",
          "--dbfilename",
          `dump-${port}.rdb`,
        ]),
        port,
      ),
    );
    nodes.push({ host: "127.0.0.1", port });
  }
  await run("redis-cli", ["--cluster", "create", ...nodes.map((n) => `${n.host}:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"]);
  await until(
    async () => {
      for (const n of nodes) if (!/cluster_state:ok/.test(await clusterInfo(n.port))) return false;
      return true;
    },
    15_000,
    "the cluster to be ok",
  );
  return { nodes, stop: () => stopAll(all).then(() => rm(dir, { recursive: true, force: true })) };
}

async function clusterInfo(port: number): Promise<string> {
  const r = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    return String(await r.call("CLUSTER", "INFO"));
  } finally {
    r.disconnect();
  }
}
