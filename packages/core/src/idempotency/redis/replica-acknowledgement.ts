import { WebhookConfigurationError } from "../../webhooks/errors.js";
import type { RedisConnection } from "./command-sender.js";

/**
 * The Redis store's wait for replicas (`replicaAcknowledgement`): after each write a delivery's answer depends on,
 * `WAIT replicas timeoutMs` on the same connection (the same node in a cluster), so that a record the answer
 * vouches for is on that many replicas, and survives a failover that promotes one of them.
 */
export interface RedisReplicaAcknowledgement {
  /** Replicas that must have acknowledged the write (WAIT's `numreplicas`): a whole number, at least 1. */
  replicas: number;
  /**
   * How long to wait for them (WAIT's timeout), default 500 ms: a whole number of milliseconds, at least 1 (WAIT
   * with 0 would block forever). Fewer acknowledgements in that time fail the operation (the receiver answers 503).
   * The store's own time limit grows by this much for the operations that wait.
   */
  timeoutMs?: number;
}

/** A valid acknowledgement setting, and the WAIT command it sends. */
export interface ReplicaWait {
  readonly replicas: number;
  readonly timeoutMs: number;
  readonly command: string[];
  /** Sends the commands and the WAIT back to back on one connection; the replies and the acknowledgements. */
  readonly run: (commands: string[][], key: string) => Promise<{ replies: unknown[]; acknowledged: number }>;
}

const DEFAULT_TIMEOUT_MS = 500;
// A timer cannot wait longer (and no delivery should).
const MAX_TIMEOUT_MS = 2_147_483_647;

/** Checks the option when the store is built; `undefined` when it is off. */
export function replicaWaitOf(
  option: RedisReplicaAcknowledgement | undefined,
  connection: RedisConnection,
  owner: string,
): ReplicaWait | undefined {
  if (option === undefined) return undefined;
  const name = `${owner}: replicaAcknowledgement`;
  if (typeof option !== "object" || option === null) {
    throw new WebhookConfigurationError(`${name} must be an object such as { replicas: 1, timeoutMs: 500 }`);
  }
  const { replicas, timeoutMs = DEFAULT_TIMEOUT_MS } = option;
  if (!Number.isInteger(replicas) || replicas < 1) {
    throw new WebhookConfigurationError(
      `${name}.replicas must be a whole number of at least 1 (got ${String(replicas)})`,
    );
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new WebhookConfigurationError(
      `${name}.timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS} (got ${String(timeoutMs)}); ` +
        "WAIT with 0 would block forever",
    );
  }
  const pipeline = connection.pipeline;
  if (pipeline === undefined) {
    throw new WebhookConfigurationError(
      `${name} needs a client that can pipeline commands on one connection (ioredis pipeline(), node-redis multi())`,
    );
  }
  const command = ["WAIT", String(replicas), String(timeoutMs)];
  return {
    replicas,
    timeoutMs,
    command,
    run: async (commands, key) => {
      const replies = await pipeline([...commands, command], key);
      return { replies: replies.slice(0, -1), acknowledged: Number(replies[replies.length - 1]) };
    },
  };
}
