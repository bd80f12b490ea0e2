// A Redis Sentinel group on loopback for the failover tests: one master, one replica and three sentinels, every
// process a child of the test in a temp dir. Each data node sits behind its own link proxy (lib/link-proxy.js) and
// announces the proxy's port, so everyone (clients, sentinels, the other node's replication) reaches it through the
// proxy: a test can cut the replication link and drop what is in flight without touching anything else. (A replica
// pointed at a proxy while Sentinel knows the master's own address would be "fixed" by Sentinel after
// failover-timeout: everyone has to use the same address.)
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ownedTempDir, removeDir } from "@kirimbayar/test-server-processes";
import { resolveRedisServerBinary } from "../index.js";
import { startLinkProxy } from "./link-proxy.js";
import { freePort, killNow, nodeSettings, serverArgs, spawnRedisMovingPort, terminate, waitFor } from "./processes.js";
import { pairs, parseInfo, redisCommand } from "./resp.js";

const HOST = "127.0.0.1";

const alive = (child) => child !== undefined && child.exitCode === null && child.signalCode === null;

/**
 * Starts the group and resolves once every sentinel knows the master, the replica and the two other sentinels,
 * and the replica's link is up. See the type declarations (index.d.ts) for the options and the returned handle.
 */
export async function startSentinelGroup(options = {}) {
  const binary = options.binary ?? (await resolveRedisServerBinary()).path;
  const masterName = options.masterName ?? "kirimbayar";
  // 2 s rather than 1: on a busy shared machine a 1 s silence happened without a fault, and Sentinel failed over.
  const downAfterMs = options.downAfterMs ?? 2_000;
  const failoverTimeoutMs = options.failoverTimeoutMs ?? 10_000;
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
  const sentinelCount = options.sentinels ?? 3;
  const quorum = options.quorum ?? Math.floor(sentinelCount / 2) + 1;
  const dir = ownedTempDir("kirimbayar-sentinel-");

  const nodes = [];
  const sentinels = [];
  let killedAt;

  async function startNode(node) {
    node.child = await spawnRedisMovingPort(binary, {
      argsOf: () =>
        serverArgs({
          ...nodeSettings({ port: node.realPort, dir, dbfilename: `${node.name}.rdb` }),
          // As a replica it names its proxy, so Sentinel and a promoted master's replicas reach it through it.
          "replica-announce-ip": HOST,
          "replica-announce-port": node.proxy.port,
          ...(node.replicaOf === undefined ? {} : { replicaof: `${HOST} ${node.replicaOf}` }),
        }).concat(options.args ?? []),
      portOf: () => node.realPort,
      startTimeoutMs,
      async movePort() {
        node.realPort = await freePort();
        node.proxy.target = node.realPort;
      },
    });
  }

  async function startSentinel(sentinel) {
    sentinel.child = await spawnRedisMovingPort(binary, {
      argsOf: () => {
        const conf = join(dir, `sentinel-${sentinel.index}.conf`);
        // Sentinel rewrites its config file (known replicas and sentinels, epochs): it must be its own and writable.
        writeFileSync(
          conf,
          [
            `port ${sentinel.port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            "loglevel warning",
            `sentinel monitor ${masterName} ${HOST} ${nodes[0].proxy.port} ${quorum}`,
            `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
            `sentinel failover-timeout ${masterName} ${failoverTimeoutMs}`,
            `sentinel parallel-syncs ${masterName} 1`,
            // Told up front what they would otherwise learn over a few 2 s hello rounds: ready seconds sooner.
            `sentinel myid ${sentinel.id}`,
            ...sentinels
              .filter((other) => other !== sentinel)
              .map((other) => `sentinel known-sentinel ${masterName} ${HOST} ${other.port} ${other.id}`),
            ...nodes.slice(1).map((node) => `sentinel known-replica ${masterName} ${HOST} ${node.proxy.port}`),
            "",
          ].join("\n"),
        );
        return [conf, "--sentinel"];
      },
      portOf: () => sentinel.port,
      startTimeoutMs,
      async movePort() {
        sentinel.port = await freePort();
      },
    });
  }

  async function stop() {
    await Promise.all(sentinels.map((sentinel) => sentinel.child && terminate(sentinel.child)));
    await Promise.all(nodes.map((node) => node.child && terminate(node.child)));
    await Promise.all(nodes.map((node) => node.proxy.close()));
    removeDir(dir);
  }

  try {
    for (const name of ["a", "b"]) {
      const realPort = await freePort();
      nodes.push({ name, realPort, proxy: await startLinkProxy({ targetPort: realPort }), child: undefined });
    }
    nodes[1].replicaOf = nodes[0].proxy.port;
    for (const node of nodes) await startNode(node);
    for (let index = 0; index < sentinelCount; index++) {
      sentinels.push({ index, port: await freePort(), id: randomBytes(20).toString("hex"), child: undefined });
    }
    for (const sentinel of sentinels) await startSentinel(sentinel);
  } catch (error) {
    await stop();
    throw error;
  }

  const nodeAt = (port) => nodes.find((node) => node.proxy.port === Number(port));
  const sentinelAddresses = () => sentinels.map((sentinel) => ({ host: HOST, port: sentinel.port }));

  // What each running sentinel names as the master: ports of the proxies (undefined for one that did not answer).
  async function masterPorts() {
    return Promise.all(
      sentinels.map(async (sentinel) => {
        if (!alive(sentinel.child)) return undefined;
        try {
          const reply = await redisCommand(sentinel.port, ["SENTINEL", "GET-MASTER-ADDR-BY-NAME", masterName], {
            timeoutMs: 500,
          });
          return Array.isArray(reply) ? Number(reply[1]) : undefined;
        } catch {
          return undefined;
        }
      }),
    );
  }

  async function agreedMaster() {
    const ports = await masterPorts();
    const first = ports[0];
    return first !== undefined && ports.every((port) => port === first) ? first : undefined;
  }

  async function role(port) {
    return parseInfo(await redisCommand(port, ["INFO", "replication"], { timeoutMs: 500 }));
  }

  async function waitUntilReady(timeoutMs = readyTimeoutMs) {
    await waitFor(
      "the Sentinel group to be ready (replica in sync, sentinels that know each other)",
      async () => {
        const masterPort = await agreedMaster();
        if (masterPort === undefined) return false;
        const master = await role(masterPort);
        if (master.role !== "master") return false;
        const replicas = nodes.filter((node) => node.proxy.port !== masterPort && alive(node.child));
        for (const replica of replicas) {
          const info = await role(replica.proxy.port);
          if (info.role !== "slave" || info.master_link_status !== "up" || Number(info.master_port) !== masterPort) {
            return false;
          }
        }
        for (const sentinel of sentinels) {
          const seen = pairs(await redisCommand(sentinel.port, ["SENTINEL", "MASTER", masterName], { timeoutMs: 500 }));
          if (Number(seen["num-other-sentinels"]) < sentinelCount - 1) return false;
          if (Number(seen["num-slaves"]) < replicas.length) return false;
          if (String(seen.flags) !== "master") return false;
        }
        return true;
      },
      { timeoutMs },
    );
  }

  try {
    await waitUntilReady();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    masterName,
    get sentinels() {
      return sentinelAddresses();
    },
    /** Both data nodes, by the address everyone uses (their proxy). */
    get nodes() {
      return nodes.map((node) => ({ host: HOST, port: node.proxy.port, running: alive(node.child) }));
    },
    async master() {
      const port = await agreedMaster();
      if (port === undefined) throw new Error("The sentinels do not agree on a master");
      return { host: HOST, port };
    },
    async replica() {
      const master = await agreedMaster();
      const node = nodes.find((candidate) => candidate.proxy.port !== master);
      return { host: HOST, port: node.proxy.port };
    },
    cutReplication() {
      for (const node of nodes) node.proxy.cutReplication();
    },
    healReplication() {
      for (const node of nodes) node.proxy.healReplication();
    },
    get replicationLinks() {
      return nodes.reduce((sum, node) => sum + node.proxy.replicationLinks, 0);
    },
    async killMaster() {
      const port = await agreedMaster();
      const node = port === undefined ? undefined : nodeAt(port);
      if (node === undefined) throw new Error("The sentinels do not agree on a master to kill");
      killedAt = performance.now();
      await killNow(node.child);
      return { host: HOST, port: node.proxy.port };
    },
    async waitForPromotion({ timeoutMs = 60_000 } = {}) {
      const killed = nodes.find((node) => !alive(node.child));
      const promoted = await waitFor(
        "the sentinels to agree on a promoted master",
        async () => {
          const port = await agreedMaster();
          if (port === undefined || port === killed?.proxy.port) return undefined;
          return (await role(port)).role === "master" ? port : undefined;
        },
        { timeoutMs, everyMs: 50 },
      );
      const seconds = killedAt === undefined ? null : Math.round((performance.now() - killedAt) / 100) / 10;
      return { host: HOST, port: promoted, seconds };
    },
    async restartKilled({ asReplica = false } = {}) {
      const master = asReplica ? await agreedMaster() : undefined;
      for (const node of nodes) {
        if (!alive(node.child)) {
          // As a supervisor would restart it: with its own configuration (a master without data), which Sentinel
          // turns into a replica of the promoted master some 8 s later; or told at once whose replica it is.
          node.replicaOf = master;
          await startNode(node);
        }
      }
    },
    waitUntilReady,
    stop,
  };
}
