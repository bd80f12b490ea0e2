import type { ConnectionOptions } from "bullmq";
import type { Cluster, Redis } from "ioredis";
import { failFastRedisOf } from "./rescue-redis.js";

/**
 * The BullMQ inbox's wait for replicas (`replicaAcknowledgement`): an event is answered 200 only once its job is on
 * the current master and that many replicas acknowledged it, so that a failover cannot take back a queued event.
 */
export interface BullMqReplicaAcknowledgement {
  /** Replicas that must have acknowledged the queued event (WAIT's `numreplicas`): a whole number, at least 1. */
  replicas: number;
  /** How long to wait for them, default 500 ms: a whole number of ms from 1 (WAIT with 0 would block forever). */
  timeoutMs?: number;
}

/** A checked setting. */
export interface ReplicaAcknowledgementSetting {
  readonly replicas: number;
  readonly timeoutMs: number;
}

/** Checks the option when the inbox is built (a TypeError before any connection); `undefined` when it is off. */
export function replicaAcknowledgementOf(
  option: BullMqReplicaAcknowledgement | undefined,
): ReplicaAcknowledgementSetting | undefined {
  if (option === undefined) return undefined;
  if (typeof option !== "object" || option === null) {
    throw new TypeError("replicaAcknowledgement must be an object such as { replicas: 1, timeoutMs: 500 }");
  }
  const { replicas, timeoutMs = 500 } = option;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new TypeError(
      `replicaAcknowledgement.replicas must be a whole number of at least 1 (got ${String(replicas)})`,
    );
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new TypeError(
      `replicaAcknowledgement.timeoutMs must be a whole number of milliseconds, at least 1 (got ${String(timeoutMs)}); ` +
        "WAIT with 0 would block forever",
    );
  }
  return { replicas, timeoutMs };
}

// On the node that serves the queue: the job must be there (a failover's new master may not have it), and a write
// of this connection after it makes the WAIT that follows cover it, whichever connection queued it (the master's
// replication stream is one sequence: a replica that acknowledged the write has everything before it).
const TOUCH_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', 60000)
return 1`;

/** Confirms queued events on the replicas; `close()` ends its connection. */
export interface ReplicaAcknowledger {
  /** Resolves once the job at `jobKey` is on the master and acknowledged; rejects otherwise (answered 503). */
  confirm(jobKey: string): Promise<void>;
  close(): void;
}

/** A client of its own on the inbox's connection, that fails fast while Redis is away. */
export async function replicaAcknowledger(
  connection: ConnectionOptions,
  setting: ReplicaAcknowledgementSetting,
  markerKey: string,
): Promise<ReplicaAcknowledger> {
  const client = await failFastRedisOf(connection);
  if (client === undefined) throw new TypeError("replicaAcknowledgement needs ioredis (the inbox's own connection)");
  const wait = ["WAIT", String(setting.replicas), String(setting.timeoutMs)];
  // The script and the WAIT written back to back on one connection (the queue's node in a cluster).
  const run = async (jobKey: string): Promise<[unknown, unknown]> => {
    const pipeline = client.pipeline();
    pipeline.call("EVAL", TOUCH_SCRIPT, "2", jobKey, markerKey, String(Date.now()));
    pipeline.call(...(wait as [string, ...string[]]));
    const results = (await pipeline.exec()) ?? [];
    if (results.length !== 2) throw new Error("The Redis pipeline was aborted");
    for (const [error] of results) if (error) throw error;
    return [results[0]?.[1], results[1]?.[1]];
  };
  return {
    async confirm(jobKey) {
      let replies: [unknown, unknown];
      try {
        replies = await run(jobKey);
      } catch (error) {
        // A cluster client does not follow MOVED for a pipeline holding a keyless WAIT: one ordinary command of the
        // key follows it (and updates the client's slot map), then the pipeline goes again.
        if (!(client as Cluster).isCluster || !String((error as Error)?.message).startsWith("MOVED ")) throw error;
        await (client as Redis).exists(jobKey);
        replies = await run(jobKey);
      }
      const [present, acknowledged] = replies;
      if (Number(present) !== 1) {
        throw new Error("The queued event is not on the current Redis master (a failover took it back)");
      }
      if (Number(acknowledged) < setting.replicas) {
        throw new Error(
          `Fewer than ${setting.replicas} Redis replica(s) acknowledged the queued event within ${setting.timeoutMs} ms`,
        );
      }
    },
    close() {
      client.disconnect();
    },
  };
}
