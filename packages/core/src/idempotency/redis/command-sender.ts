// How the Redis store and the Redis journal talk to the client the app gave them, whichever of the five it is:
// ioredis (a server, or Sentinel), ioredis Cluster, node-redis (a server), node-redis cluster or node-redis Sentinel.
// The three node-redis kinds take a command with different arguments; a cluster needs each command's key to find
// the node that serves it.

/** The part of an ioredis client (`Redis`, also in Sentinel mode, or `Cluster`) the store uses. */
export interface IoRedisLikeClient {
  /** Sends any command; a Cluster routes it by its keys. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** For the replica acknowledgement: commands written back to back on one connection (one node). */
  pipeline?(): IoRedisLikePipeline;
}

/** The part of an ioredis pipeline the store uses. */
export interface IoRedisLikePipeline {
  call(command: string, ...args: (string | number)[]): unknown;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/** The part of a node-redis v4/v5 client (`createClient`) the store uses (`sendCommand` takes the command as an array). */
export interface NodeRedisLikeClient {
  sendCommand(args: string[]): Promise<unknown>;
  /** For the replica acknowledgement: commands written back to back on the client's connection. */
  multi?(): { addCommand(args: string[]): unknown; execAsPipeline(): Promise<unknown[]> };
}

/** The part of a node-redis v4/v5 cluster (`createCluster`) the store uses: each command goes with its key. */
export interface NodeRedisClusterLikeClient {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getSlotMaster(slot: number): unknown;
  multi?(routing?: string): {
    addCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): unknown;
    execAsPipeline(): Promise<unknown[]>;
  };
}

/** The part of a node-redis v5 Sentinel client (`createSentinel`) the store uses. */
export interface NodeRedisSentinelLikeClient {
  sendCommand(isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getSentinelNode(): unknown;
  multi?(): {
    addCommand(isReadonly: boolean | undefined, args: string[]): unknown;
    execAsPipeline(): Promise<unknown[]>;
  };
}

/** Every Redis client the store and the journal take. */
export type RedisLikeClient =
  | IoRedisLikeClient
  | NodeRedisLikeClient
  | NodeRedisClusterLikeClient
  | NodeRedisSentinelLikeClient;

/** One client the app gave, as the store and the journal use it. */
export interface RedisConnection {
  /** Whether it is a cluster client (its keys must carry a hash tag to be used together). */
  readonly cluster: boolean;
  /** Sends one command (its name first); `key` is the command's first key, which a cluster routes it by. */
  send(args: string[], key?: string): Promise<unknown>;
  /**
   * Sends the commands back to back on one connection, to the node serving `key` in a cluster, so that a WAIT
   * among them counts the writes before it; resolves with each reply. `undefined` when the client cannot pipeline.
   */
  readonly pipeline: ((commands: string[][], key: string) => Promise<unknown[]>) | undefined;
}

type Loose = Partial<
  Record<
    "call" | "sendCommand" | "pipeline" | "multi" | "getSlotMaster" | "getSlotRandomNode" | "getSentinelNode",
    unknown
  >
> & { isCluster?: unknown };

/**
 * The connection of an ioredis client, ioredis Cluster, or node-redis v4/v5 client, cluster or Sentinel client;
 * throws a TypeError naming `owner` for anything else, when the store or journal is built rather than at its first
 * command.
 */
export function redisConnection(client: unknown, owner: string): RedisConnection {
  const given = (typeof client === "object" && client !== null ? client : {}) as Loose;
  if (typeof given.call === "function") return ioredisConnection(client as IoRedisLikeClient, given.isCluster === true);
  if (typeof given.sendCommand === "function") {
    if (typeof given.getSlotMaster === "function" || typeof given.getSlotRandomNode === "function") {
      return nodeRedisClusterConnection(client as NodeRedisClusterLikeClient);
    }
    if (typeof given.getSentinelNode === "function") {
      return nodeRedisSentinelConnection(client as NodeRedisSentinelLikeClient);
    }
    return nodeRedisConnection(client as NodeRedisLikeClient);
  }
  throw new TypeError(
    `${owner}: client must be an ioredis or node-redis (v4/v5) client (ioredis Redis or Cluster; node-redis ` +
      "createClient, createCluster or createSentinel)",
  );
}

function ioredisConnection(client: IoRedisLikeClient, cluster: boolean): RedisConnection {
  const send = (args: string[]) => client.call(args[0] as string, ...args.slice(1));
  return {
    cluster,
    send,
    // ioredis writes a pipeline at once and, when the connection drops midway, fails the rest of it instead of
    // sending it again on the next connection (where a WAIT would count nothing written there).
    pipeline:
      typeof client.pipeline !== "function"
        ? undefined
        : followingMoves(cluster, send, async (commands) => {
            const pipeline = (client.pipeline as () => IoRedisLikePipeline)();
            for (const [name, ...args] of commands) pipeline.call(name as string, ...args);
            const results = (await pipeline.exec()) ?? [];
            if (results.length !== commands.length) throw new Error("The Redis pipeline was aborted");
            return results.map(([error, reply]) => {
              if (error) throw error;
              return reply;
            });
          }),
  };
}

function nodeRedisConnection(client: NodeRedisLikeClient): RedisConnection {
  return {
    cluster: false,
    send: (args) => client.sendCommand(args),
    pipeline:
      typeof client.multi !== "function"
        ? undefined
        : async (commands) => {
            const multi = (client.multi as () => ReturnType<NonNullable<NodeRedisLikeClient["multi"]>>)();
            for (const command of commands) multi.addCommand(command);
            return repliesOrThrow(await pipelineReplies(multi));
          },
  };
}

function nodeRedisClusterConnection(client: NodeRedisClusterLikeClient): RedisConnection {
  type Multi = ReturnType<NonNullable<NodeRedisClusterLikeClient["multi"]>>;
  const send = (args: string[], key?: string) => client.sendCommand(key, false, args);
  return {
    cluster: true,
    send,
    // The cluster's pipeline goes to the node serving its first key, on that node's one connection.
    pipeline:
      typeof client.multi !== "function"
        ? undefined
        : followingMoves(true, send, async (commands, key) => {
            const multi = (client.multi as (routing?: string) => Multi)(key);
            for (const command of commands) multi.addCommand(key, false, command);
            return repliesOrThrow(await pipelineReplies(multi));
          }),
  };
}

function nodeRedisSentinelConnection(client: NodeRedisSentinelLikeClient): RedisConnection {
  type Multi = ReturnType<NonNullable<NodeRedisSentinelLikeClient["multi"]>>;
  return {
    cluster: false,
    send: (args) => client.sendCommand(false, args),
    // One master connection leased for the whole pipeline.
    pipeline:
      typeof client.multi !== "function"
        ? undefined
        : async (commands) => {
            const multi = (client.multi as () => Multi)();
            for (const command of commands) multi.addCommand(false, command);
            return repliesOrThrow(await pipelineReplies(multi));
          },
  };
}

// node-redis v5 rejects a pipeline with a failed command (a MultiErrorReply carrying every reply); v4 resolves with
// the error among the replies. Either way the caller sees the first command's own error (a MOVED, say).
async function pipelineReplies(multi: { execAsPipeline(): Promise<unknown[]> }): Promise<unknown[]> {
  try {
    return await multi.execAsPipeline();
  } catch (error) {
    const replies = (error as { replies?: unknown }).replies;
    if (Array.isArray(replies)) return replies;
    throw error;
  }
}

function repliesOrThrow(replies: unknown[]): unknown[] {
  for (const reply of replies) if (reply instanceof Error) throw reply;
  return replies;
}

// A cluster client follows a MOVED redirection (and learns the new slot owner) for one command, but neither
// ioredis nor node-redis does for a pipeline that contains a command without a key (WAIT): after a failover every
// pipeline would keep going to the old node. On MOVED (the pipeline's commands did not run there), one command of
// the key is sent the ordinary way, which follows the redirection and updates the client's slot map, and the
// pipeline is sent once more.
function followingMoves(
  cluster: boolean,
  send: (args: string[], key?: string) => Promise<unknown>,
  pipeline: (commands: string[][], key: string) => Promise<unknown[]>,
): (commands: string[][], key: string) => Promise<unknown[]> {
  if (!cluster) return pipeline;
  return async (commands, key) => {
    try {
      return await pipeline(commands, key);
    } catch (error) {
      if (!String((error as Error | undefined)?.message ?? "").startsWith("MOVED ")) throw error;
      await send(["EXISTS", key], key);
      return pipeline(commands, key);
    }
  };
}

/** Whether `key` has a Redis Cluster hash tag: a `{` followed later by a `}` with something between them. */
export function hasHashTag(key: string): boolean {
  const open = key.indexOf("{");
  if (open < 0) return false;
  const close = key.indexOf("}", open + 1);
  return close > open + 1;
}
