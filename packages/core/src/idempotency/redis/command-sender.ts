// How the Redis store and the Redis journal talk to the client the app gave them, whichever of the two it is.

/** The part of an ioredis client the store uses (`call` sends any command). */
export interface IoRedisLikeClient {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
}

/** The part of a node-redis v4/v5 client the store uses (`sendCommand` takes the command as an array). */
export interface NodeRedisLikeClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Sends one command (its name first) through whichever client was given; resolves to Redis's reply. */
export type RedisCommandSender = (args: string[]) => Promise<unknown>;

/**
 * The command sender of an ioredis client (`call`) or a node-redis v4/v5 client (`sendCommand`); throws a TypeError
 * naming `owner` for anything else, when the store or journal is built rather than at its first command.
 */
export function redisCommandSender(client: unknown, owner: string): RedisCommandSender {
  const given = client as Partial<IoRedisLikeClient & NodeRedisLikeClient> | undefined;
  if (given !== undefined && given !== null && typeof given.call === "function") {
    const ioredis = given as IoRedisLikeClient;
    return (args) => ioredis.call(args[0] as string, ...args.slice(1));
  }
  if (given !== undefined && given !== null && typeof given.sendCommand === "function") {
    const nodeRedis = given as NodeRedisLikeClient;
    return (args) => nodeRedis.sendCommand(args);
  }
  throw new TypeError(`${owner}: client must be an ioredis or node-redis (v4/v5) client`);
}
