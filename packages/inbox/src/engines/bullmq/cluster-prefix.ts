import type { ConnectionOptions } from "bullmq";

/** Whether the connection is an ioredis Cluster (BullMQ takes a cluster only as an instance). */
export function isClusterConnection(connection: ConnectionOptions): boolean {
  return (connection as { isCluster?: unknown }).isCluster === true;
}

/**
 * Refuses, when the inbox is built, a queue whose keys would not share a Redis Cluster slot: BullMQ's scripts touch
 * several keys of a queue at once (`<prefix>:<name>:wait`, `...:active`, the job's hash), which a cluster runs only
 * when they hash to one slot, i.e. when the prefix (or the name) carries a hash tag such as `{kirimbayar}`.
 */
export function checkClusterPrefix(connection: ConnectionOptions, prefix: string | undefined, name: string): void {
  if (!isClusterConnection(connection)) return;
  const keyStart = `${prefix ?? "bull"}:${name}`;
  const open = keyStart.indexOf("{");
  const close = open < 0 ? -1 : keyStart.indexOf("}", open + 1);
  if (close > open + 1) return;
  throw new TypeError(
    `createBullMqInbox: with a Redis Cluster, the queue's keys must share one slot: give a hash-tagged prefix, ` +
      `e.g. prefix: "{kirimbayar}" (got ${prefix === undefined ? 'BullMQ\'s default "bull"' : `"${prefix}"`})`,
  );
}
