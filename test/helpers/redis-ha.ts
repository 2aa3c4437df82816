import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
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

async function info(port: number, section: string): Promise<string> {
  const r = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    return await r.info(section);
  } finally {
    r.disconnect();
  }
}

/** A primary, one replica and three sentinels monitoring them as `name`, on free loopback ports. */
export interface SentinelSet {
  name: string;
  sentinels: { host: string; port: number }[];
  primary: Node;
  replica: Node;
  /** SIGKILLs the primary. */
  killPrimary(): Promise<void>;
  /** The port of the primary the sentinels name now. */
  primaryPort(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the set; fails over quickly (down after 1 s). */
export async function startSentinelSet(): Promise<SentinelSet> {
  const dir = await tempDir("tnx-sentinel-");
  const name = "tnx";
  const all: Node[] = [];
  const pPort = await freePort();
  const primary = await serve(dataNode(pPort, dir, ["--dbfilename", "p.rdb"]), pPort);
  all.push(primary);
  const rPort = await freePort();
  const replica = await serve(dataNode(rPort, dir, ["--dbfilename", "r.rdb", "--replicaof", "127.0.0.1", String(pPort)]), rPort);
  all.push(replica);
  await until(async () => /master_link_status:up/.test(await info(rPort, "replication")), 10_000, "the replica to sync");
  const sentinels: { host: string; port: number }[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel-${i}.conf`);
    await writeFile(
      conf,
      [
        `port ${port}`,
        "bind 127.0.0.1",
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${pPort} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        "",
      ].join("\n"),
    );
    all.push(await serve([conf, "--sentinel"], port));
    sentinels.push({ host: "127.0.0.1", port });
  }
  // The sentinels have found the replica and each other.
  await until(
    async () => {
      for (const s of sentinels) {
        const text = await info(s.port, "sentinel");
        if (!/slaves=1,sentinels=3/.test(text)) return false;
      }
      return true;
    },
    15_000,
    "the sentinels to see the replica and each other",
  );
  return {
    name,
    sentinels,
    primary,
    replica,
    killPrimary: () => stopAll([primary]),
    async primaryPort() {
      const r = new Redis({ port: sentinels[0]?.port ?? 0, host: "127.0.0.1" });
      try {
        const [, port] = (await r.call("SENTINEL", "get-master-addr-by-name", name)) as [string, string];
        return Number(port);
      } finally {
        r.disconnect();
      }
    },
    stop: () => stopAll(all).then(() => rm(dir, { recursive: true, force: true })),
  };
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
