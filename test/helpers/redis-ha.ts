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
  return String(await oneCall(port, "CLUSTER", "INFO"));
}

/** A primary, its replica and three sentinels watching them, on free loopback ports. */
export interface SentinelSet {
  sentinels: { host: string; port: number }[];
  /** The name the sentinels monitor the primary under. */
  name: string;
  /** The primary's port at the start. */
  primaryPort: number;
  /** SIGKILLs the current primary (no shutdown, no last write to its replica). */
  killPrimary(): Promise<void>;
  /**
   * The port of the new primary, once every sentinel names the same one, not the killed one,
   * and it answers as a primary.
   */
  waitForNewPrimary(ms?: number): Promise<number>;
  stop(): Promise<void>;
}

// Quick enough for a test: a primary is down after 1 s without answering, and a failover whose
// election split the votes is tried again after twice the failover timeout (4 s).
const sentinelConfig = (port: number, name: string, primaryPort: number) =>
  [
    `port ${port}`,
    "bind 127.0.0.1",
    "sentinel resolve-hostnames no",
    `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
    `sentinel down-after-milliseconds ${name} 1000`,
    `sentinel failover-timeout ${name} 2000`,
    `sentinel parallel-syncs ${name} 1`,
    "",
  ].join("\n");

/**
 * Starts a primary, a replica of it (`--replicaof`) and three `redis-server --sentinel`
 * processes (quorum 2), each with its own config file in a temp dir (a sentinel rewrites it).
 * Resolves once the replica is in sync and every sentinel knows the replica and the two other
 * sentinels: before that a failover could not be agreed on.
 */
export async function startSentinel(): Promise<SentinelSet> {
  const dir = await tempDir("tnx-sentinel-");
  const name = "tnx-primary";
  const data: Node[] = [];
  const sentinelNodes: Node[] = [];
  const stop = () => stopAll([...sentinelNodes, ...data]).then(() => rm(dir, { recursive: true, force: true }));
  const primaryPort = await freePort();
  try {
    // A replica's first sync would otherwise wait 5 s for more replicas to share it.
    const sync = ["--repl-diskless-sync-delay", "0"];
    data.push(await serve(dataNode(primaryPort, dir, ["--dbfilename", `dump-${primaryPort}.rdb`, ...sync]), primaryPort));
    const replicaPort = await freePort();
    const replicaOf = ["--replicaof", "127.0.0.1", String(primaryPort)];
    data.push(await serve(dataNode(replicaPort, dir, ["--dbfilename", `dump-${replicaPort}.rdb`, ...sync, ...replicaOf]), replicaPort));
    await until(async () => /master_link_status:up/.test(await info(replicaPort, "replication")), 10_000, "the replica to sync");
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      const file = path.join(dir, `sentinel-${port}.conf`);
      await writeFile(file, sentinelConfig(port, name, primaryPort));
      sentinelNodes.push(await serve([file, "--sentinel"], port));
    }
    // Sentinels find each other through hello messages on the primary, every 2 s.
    await until(
      async () => {
        for (const s of sentinelNodes) {
          const primary = await sentinelCall(s.port, "MASTER", name);
          const field = (k: string) => Number(primary[primary.indexOf(k) + 1]);
          if (field("num-other-sentinels") < 2 || field("num-slaves") < 1) return false;
        }
        return true;
      },
      15_000,
      "the sentinels to know each other and the replica",
    );
  } catch (err) {
    await stop();
    throw err;
  }
  let current = primaryPort;
  return {
    sentinels: sentinelNodes.map((s) => ({ host: "127.0.0.1", port: s.port })),
    name,
    primaryPort,
    killPrimary: () => stopAll(data.filter((n) => n.port === current)),
    async waitForNewPrimary(ms = 20_000) {
      const killed = current;
      let next = killed;
      await until(
        async () => {
          const named = await Promise.all(sentinelNodes.map((s) => sentinelCall(s.port, "GET-MASTER-ADDR-BY-NAME", name)));
          const ports = new Set(named.map((a) => Number(a[1])));
          if (ports.size !== 1 || ports.has(killed)) return false;
          next = [...ports][0] as number;
          return /role:master/.test(await info(next, "replication"));
        },
        ms,
        "the sentinels to promote the replica",
      );
      current = next;
      return next;
    },
    stop,
  };
}

async function info(port: number, section: string): Promise<string> {
  return String(await oneCall(port, "INFO", section));
}

async function sentinelCall(port: number, ...args: string[]): Promise<string[]> {
  return (await oneCall(port, "SENTINEL", ...args)) as string[];
}

// One command on a short-lived connection that never retries: a dead node fails at once.
async function oneCall(port: number, command: string, ...args: string[]): Promise<unknown> {
  const r = new Redis({ port, host: "127.0.0.1", maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on("error", () => undefined);
  try {
    return await r.call(command, ...args);
  } finally {
    r.disconnect();
  }
}
