// A Redis Cluster on loopback for the cluster tests: masters with replicas (3 + 3 by default), created with
// `redis-cli --cluster create`, every process a child of the test in a temp dir. Fails a master over either way a
// production cluster does: a manual CLUSTER FAILOVER on its replica (no write lost) or the master's death (SIGKILL;
// the replica takes over after cluster-node-timeout), and waits until every slot is served again.
import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { findExecutable, ownedTempDir, pathDirs, removeDir } from "@kirimbayar/test-server-processes";
import { resolveRedisServerBinary } from "../index.js";
import { startLinkProxy } from "./link-proxy.js";
import { freePort, killNow, nodeSettings, serverArgs, spawnRedisMovingPort, terminate, waitFor } from "./processes.js";
import { parseInfo, redisCommand } from "./resp.js";

const HOST = "127.0.0.1";
const SLOTS = 16_384;
const alive = (child) => child !== undefined && child.exitCode === null && child.signalCode === null;

/** redis-cli beside the redis-server binary, else on PATH. */
function findRedisCli(serverBinary) {
  const found = findExecutable("redis-cli", [dirname(serverBinary), ...pathDirs()]);
  if (found !== undefined) return found;
  throw new Error(
    "No redis-cli for `redis-cli --cluster create`: install it with Redis (`apt-get install redis-tools`) " +
      "or pass `cliBinary`.",
  );
}

// `CLUSTER NODES` as records: id, port, role, the master's id (replicas), flags, the slots' count (masters).
function parseNodes(text) {
  return String(text)
    .trim()
    .split("\n")
    .map((line) => {
      const [id, address, flags, masterId, , , , link, ...slots] = line.trim().split(" ");
      const port = Number(address.split("@")[0].split(":").pop());
      const flagSet = new Set(flags.split(","));
      let slotCount = 0;
      for (const range of slots) {
        if (range.startsWith("[")) continue; // a slot being migrated
        const [from, to = from] = range.split("-").map(Number);
        slotCount += to - from + 1;
      }
      return {
        id,
        port,
        role: flagSet.has("master") ? "master" : "replica",
        failed: flagSet.has("fail") || flagSet.has("fail?"),
        myself: flagSet.has("myself"),
        masterId: masterId === "-" ? undefined : masterId,
        connected: link === "connected",
        slots: slotCount,
      };
    });
}

/**
 * Starts the cluster and resolves once every node reports `cluster_state:ok`, all 16,384 slots are served and each
 * replica's link to its master is up. See the type declarations (index.d.ts) for the options and the handle.
 */
export async function startRedisCluster(options = {}) {
  const binary = options.binary ?? (await resolveRedisServerBinary()).path;
  const cli = options.cliBinary ?? findRedisCli(binary);
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const dir = ownedTempDir("kirimbayar-cluster-");
  const nodes = [];
  let lastKillAt;

  async function startNode(node) {
    node.child = await spawnRedisMovingPort(binary, {
      argsOf: () =>
        serverArgs({
          ...nodeSettings({ port: node.realPort, dir, dbfilename: `node-${node.index}.rdb` }),
          "cluster-enabled": "yes",
          "cluster-config-file": `nodes-${node.index}.conf`,
          // The bus port set explicitly (by default the client port + 10,000, which nobody checked was free).
          "cluster-port": node.busPort,
          "cluster-node-timeout": nodeTimeoutMs,
          // Clients and replicas reach the node through its link proxy (CLUSTER SLOTS, MOVED and the replicas' link
          // name the proxy), so a test can cut replication; the bus between nodes stays direct.
          "cluster-announce-ip": HOST,
          "cluster-announce-port": node.port,
          "cluster-announce-bus-port": node.busPort,
        }).concat(options.args ?? []),
      portOf: () => node.realPort,
      startTimeoutMs,
      // A node the cluster knows keeps its ports.
      canMove: () => !node.created,
      async movePort() {
        node.realPort = await freePort();
        node.busPort = await freePort();
        node.proxy.target = node.realPort;
      },
    });
  }

  async function stop() {
    await Promise.all(nodes.map((node) => node.child && terminate(node.child)));
    await Promise.all(nodes.map((node) => node.proxy.close()));
    removeDir(dir);
  }

  const running = () => nodes.filter((node) => alive(node.child));

  async function topology(port) {
    return parseNodes(await redisCommand(port, ["CLUSTER", "NODES"], { timeoutMs: 1_000 }));
  }

  // Every running node: cluster_state ok with all slots served; its replication link up if it is a replica; and
  // every node's view of every running node's role agrees with that node's own (so a replica is listed under its
  // master everywhere before anyone asks which replica a master has).
  async function healthy() {
    const roles = new Map();
    for (const node of running()) {
      const info = parseInfo(await redisCommand(node.port, ["CLUSTER", "INFO"], { timeoutMs: 1_000 }));
      if (info.cluster_state !== "ok" || Number(info.cluster_slots_ok) !== SLOTS) return false;
      const replication = parseInfo(await redisCommand(node.port, ["INFO", "replication"], { timeoutMs: 1_000 }));
      if (replication.role === "slave" && replication.master_link_status !== "up") return false;
      roles.set(node.port, replication.role === "master" ? "master" : "replica");
    }
    for (const node of running()) {
      for (const entry of await topology(node.port)) {
        const role = roles.get(entry.port);
        if (role !== undefined && (entry.role !== role || entry.failed)) return false;
      }
    }
    return true;
  }

  async function waitUntilOk(timeoutMs = readyTimeoutMs) {
    await waitFor("the cluster to serve every slot again", healthy, { timeoutMs, everyMs: 50 });
  }

  try {
    const count = masters * (1 + replicasPerMaster);
    for (let index = 0; index < count; index++) {
      const realPort = await freePort();
      const proxy = await startLinkProxy({ targetPort: realPort });
      nodes.push({
        index,
        port: proxy.port,
        realPort,
        proxy,
        busPort: await freePort(),
        child: undefined,
        created: false,
      });
    }
    for (const node of nodes) await startNode(node);
    await promisify(execFile)(
      cli,
      [
        "--cluster",
        "create",
        ...nodes.map((node) => `${HOST}:${node.port}`),
        "--cluster-replicas",
        String(replicasPerMaster),
        "--cluster-yes",
      ],
      { timeout: readyTimeoutMs },
    );
    for (const node of nodes) node.created = true;
    await waitUntilOk();
  } catch (error) {
    await stop();
    throw error;
  }

  const nodeAt = (port) => {
    const node = nodes.find((candidate) => candidate.port === Number(port));
    if (node === undefined) throw new Error(`No node of this cluster on port ${port}`);
    return node;
  };
  const anyRunning = () => {
    const node = running()[0];
    if (node === undefined) throw new Error("No node of the cluster is running");
    return node;
  };

  async function mastersNow() {
    return (await topology(anyRunning().port))
      .filter((entry) => entry.role === "master" && entry.slots > 0 && !entry.failed)
      .map((entry) => entry.port);
  }

  async function replicaOf(masterPort) {
    const view = await topology(anyRunning().port);
    const master = view.find((entry) => entry.port === Number(masterPort) && entry.role === "master");
    if (master === undefined) throw new Error(`127.0.0.1:${masterPort} is not a master of this cluster`);
    const replica = view.find(
      (entry) =>
        entry.masterId === master.id && !entry.failed && alive(nodes.find((n) => n.port === entry.port)?.child),
    );
    if (replica === undefined) throw new Error(`The master 127.0.0.1:${masterPort} has no running replica`);
    return replica.port;
  }

  async function masterOfKey(key) {
    const slot = Number(await redisCommand(anyRunning().port, ["CLUSTER", "KEYSLOT", key]));
    const slots = await redisCommand(anyRunning().port, ["CLUSTER", "SLOTS"]);
    for (const [from, to, master] of slots) {
      if (slot >= from && slot <= to) return Number(master[1]);
    }
    throw new Error(`No master serves slot ${slot}`);
  }

  // Seconds since `startedAt` until the replica at `replicaPort` is a master and the cluster is healthy.
  async function promoted(replicaPort, startedAt, timeoutMs) {
    await waitFor(
      `127.0.0.1:${replicaPort} to take over its master's slots`,
      async () => {
        const info = parseInfo(await redisCommand(replicaPort, ["INFO", "replication"], { timeoutMs: 1_000 }));
        return info.role === "master" && (await healthy());
      },
      { timeoutMs, everyMs: 50 },
    );
    return Math.round((performance.now() - startedAt) / 100) / 10;
  }

  return {
    get nodes() {
      return nodes.map((node) => ({ host: HOST, port: node.port, running: alive(node.child) }));
    },
    get startupNodes() {
      return nodes.map((node) => ({ host: HOST, port: node.port }));
    },
    masters: mastersNow,
    replicaOf,
    masterOfKey,
    async failover(masterPort, { timeoutMs = 60_000 } = {}) {
      const replicaPort = await replicaOf(masterPort);
      const startedAt = performance.now();
      await redisCommand(replicaPort, ["CLUSTER", "FAILOVER"]);
      const seconds = await promoted(replicaPort, startedAt, timeoutMs);
      return { host: HOST, port: replicaPort, seconds };
    },
    async kill(port, { timeoutMs = 60_000 } = {}) {
      const node = nodeAt(port);
      const replicaPort = await replicaOf(port);
      lastKillAt = performance.now();
      await killNow(node.child);
      const seconds = await promoted(replicaPort, lastKillAt, timeoutMs);
      return { host: HOST, port: replicaPort, seconds };
    },
    cutReplication(masterPort) {
      for (const node of masterPort === undefined ? nodes : [nodeAt(masterPort)]) node.proxy.cutReplication();
    },
    healReplication() {
      for (const node of nodes) node.proxy.healReplication();
    },
    get replicationLinks() {
      return nodes.reduce((sum, node) => sum + node.proxy.replicationLinks, 0);
    },
    freeze(port) {
      nodeAt(port).child?.kill("SIGSTOP");
    },
    thaw(port) {
      nodeAt(port).child?.kill("SIGCONT");
    },
    async killNow(port) {
      lastKillAt = performance.now();
      await killNow(nodeAt(port).child);
    },
    async restart(port) {
      const node = nodeAt(port);
      if (alive(node.child)) return;
      // With its nodes.conf it rejoins, learns that its replica took over, and becomes that node's replica.
      await startNode(node);
    },
    waitUntilOk,
    stop,
  };
}
