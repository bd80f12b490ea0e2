/** Where {@link resolveRedisServerBinary} found redis-server. */
export type RedisServerBinarySource = "env" | "path" | "redis-memory-server";

/** A redis-server binary and where it was found. */
export interface RedisServerBinary {
  readonly path: string;
  readonly source: RedisServerBinarySource;
}

/**
 * Finds the redis-server binary: `KIRIMBAYAR_REDIS_SERVER` (a path), else `redis-server` on `PATH`, else a build by
 * redis-memory-server (downloaded and compiled once, then cached). Throws an error that says how to get Redis when all
 * of them fail.
 *
 * @example
 * const { path, source } = await resolveRedisServerBinary(); // source: "env" | "path" | "redis-memory-server"
 */
export function resolveRedisServerBinary(): Promise<RedisServerBinary>;

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** Path of the redis-server to run; default: {@link resolveRedisServerBinary}. */
  readonly binary?: string;
  /** How long to wait for the server to answer PING, on start and on restart; default 10 000 ms. */
  readonly startTimeoutMs?: number;
  /** Extra command-line arguments, e.g. `["--maxmemory", "10mb"]`. */
  readonly args?: readonly string[];
  /**
   * Also serve TLS on another free port (`tlsPort`), with this certificate (see {@link createTestCertificates});
   * replication to it goes over TLS too (`--tls-replication yes`). Clients' certificates are not asked for.
   */
  readonly tls?: { readonly cert: string; readonly key: string; readonly ca: string };
}

/** A running throw-away redis-server on 127.0.0.1 without persistence. */
export interface TestRedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** With the `tls` option: the TLS port, and `rediss://127.0.0.1:<tlsPort>`. */
  readonly tlsPort?: number;
  readonly tlsUrl?: string;
  /** Stops the process (SIGTERM, SIGKILL after 3 s) and waits for it to exit; the data is lost. Idempotent. */
  stop(): Promise<void>;
  /** Stops it if running, then starts it again on the same port (empty): simulates an outage. */
  restart(): Promise<void>;
  /**
   * Kills the process with SIGKILL (no shutdown, no final save) and waits for it to exit. With persistence in
   * `args` (`--appendonly yes --appendfsync always --dir <dir>`), {@link TestRedisServer.start} brings the data back.
   */
  crash(): Promise<void>;
  /** Starts it again on the same port and arguments after `crash()` or `stop()`; nothing when it runs. */
  start(): Promise<void>;
  /** Suspends the process (SIGSTOP): connections stay open and commands wait, as with a frozen host. */
  freeze(): void;
  /** Resumes a frozen process (SIGCONT). */
  thaw(): void;
}

/**
 * Starts a redis-server on a free 127.0.0.1 port with `--save '' --appendonly no` and resolves once it answers PING.
 * The binary comes from {@link resolveRedisServerBinary} unless `options.binary` names one.
 *
 * @example
 * const redis = await startRedisServer();
 * afterAll(() => redis.stop());
 * const client = new Redis(redis.url);
 */
export function startRedisServer(options?: StartRedisServerOptions): Promise<TestRedisServer>;

/** A host and port on loopback. */
export interface RedisAddress {
  readonly host: string;
  readonly port: number;
}

/** Options of {@link startLinkProxy}. */
export interface StartLinkProxyOptions {
  /** Port of the redis-server on 127.0.0.1 the proxy relays to. */
  readonly targetPort: number;
  /** Port the proxy listens on (127.0.0.1); default: a free one. */
  readonly port?: number;
}

/** A running {@link startLinkProxy} relay. */
export interface LinkProxy {
  readonly port: number;
  /** Where connections go; change it when the server moved to another port (only new connections follow). */
  target: number;
  /** Replication connections (a replica's link to this server) relayed right now. */
  readonly replicationLinks: number;
  /** Replication connections destroyed by {@link LinkProxy.cutReplication} so far. */
  readonly cutLinks: number;
  /**
   * Destroys every replication connection with whatever either side had in flight, and refuses new ones until
   * {@link LinkProxy.healReplication}. Clients' connections are untouched.
   */
  cutReplication(): void;
  /** Lets replicas connect again (they retry about once a second and resynchronise). */
  healReplication(): void;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a TCP relay to a redis-server that tells a replica's link (it sends REPLCONF, PSYNC or SYNC) apart from
 * clients, so a test can cut replication alone: on loopback a replica otherwise gets every write within
 * microseconds, which hides the window asynchronous replication leaves.
 *
 * @example
 * const proxy = await startLinkProxy({ targetPort: master.port });
 * // start the replica with `--replicaof 127.0.0.1 ${proxy.port}`, then:
 * proxy.cutReplication();
 */
export function startLinkProxy(options: StartLinkProxyOptions): Promise<LinkProxy>;

/** Options of {@link startSentinelGroup}. */
export interface StartSentinelGroupOptions {
  /** Path of redis-server (sentinels run as `redis-server <conf> --sentinel`); default: {@link resolveRedisServerBinary}. */
  readonly binary?: string;
  /** The monitored master's name (`sentinelName` / `name` in the clients); default `"kirimbayar"`. */
  readonly masterName?: string;
  /** Sentinels to run; default 3. */
  readonly sentinels?: number;
  /** Sentinels that must agree the master is down; default a majority (2 of 3). */
  readonly quorum?: number;
  /** `sentinel down-after-milliseconds`; default 2,000 (production default: 30,000). */
  readonly downAfterMs?: number;
  /** `sentinel failover-timeout`; default 10,000 (a failed election is retried after twice this). */
  readonly failoverTimeoutMs?: number;
  /** How long one process may take to answer PING; default 10,000 ms. */
  readonly startTimeoutMs?: number;
  /** How long to wait for the whole group to be ready (also the default of `waitUntilReady`); default 30,000 ms. */
  readonly readyTimeoutMs?: number;
  /** Extra arguments for both data nodes. */
  readonly args?: readonly string[];
}

/**
 * A running Sentinel group: two data nodes (one master, one replica) each behind a {@link LinkProxy} whose port is
 * the node's address for everyone, and three sentinels. Everything runs on 127.0.0.1 in a temp dir.
 */
export interface TestSentinelGroup {
  /** The name the sentinels monitor the master under. */
  readonly masterName: string;
  /** The sentinels' addresses, for `new Redis({ sentinels, name })` or `createSentinel({ sentinelRootNodes })`. */
  readonly sentinels: readonly RedisAddress[];
  /** Both data nodes by their address (their proxy), and whether their process runs. */
  readonly nodes: readonly (RedisAddress & { readonly running: boolean })[];
  /** The master all sentinels name now (throws when they disagree). */
  master(): Promise<RedisAddress>;
  /** The other data node. */
  replica(): Promise<RedisAddress>;
  /** Cuts every replication link (dropping what is in flight) and keeps it cut until {@link healReplication}. */
  cutReplication(): void;
  healReplication(): void;
  /** Replication connections relayed right now (1 while the replica is linked). */
  readonly replicationLinks: number;
  /** Kills the current master with SIGKILL; resolves with its address once the process is gone. */
  killMaster(): Promise<RedisAddress>;
  /**
   * Resolves once every sentinel names another master than the killed one and that node says it is master, with
   * the seconds since {@link killMaster} (default time limit 60 s).
   */
  waitForPromotion(options?: { timeoutMs?: number }): Promise<RedisAddress & { readonly seconds: number | null }>;
  /**
   * Starts a killed node again, empty. By default as its supervisor would, with its own configuration (a master),
   * which Sentinel turns into a replica of the promoted master about 8 s later; with `asReplica`, as a replica of
   * the current master at once.
   */
  restartKilled(options?: { asReplica?: boolean }): Promise<void>;
  /**
   * Resolves once the sentinels agree on a master, every running replica's link to it is up and every sentinel
   * knows the replicas and the other sentinels (default limit: `readyTimeoutMs`).
   */
  waitUntilReady(timeoutMs?: number): Promise<void>;
  /** Stops every process and proxy and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * Starts one master, one replica and three sentinels (compressed timings: down after 2 s) on free loopback ports
 * and resolves once the group is ready.
 *
 * @example
 * const group = await startSentinelGroup();
 * afterAll(() => group.stop());
 * const redis = new Redis({ sentinels: group.sentinels, name: group.masterName });
 * group.cutReplication();
 * await group.killMaster();
 * const { seconds } = await group.waitForPromotion();
 */
export function startSentinelGroup(options?: StartSentinelGroupOptions): Promise<TestSentinelGroup>;

/** Options of {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /** Path of redis-server; default: {@link resolveRedisServerBinary}. */
  readonly binary?: string;
  /** Path of redis-cli (for `--cluster create`); default: beside redis-server, else on PATH. */
  readonly cliBinary?: string;
  /** Masters; default 3. */
  readonly masters?: number;
  /** Replicas of each master; default 1. */
  readonly replicasPerMaster?: number;
  /** `cluster-node-timeout`: how long before a silent master is failed over; default 1,000 ms (production: 15,000). */
  readonly nodeTimeoutMs?: number;
  /** How long one node may take to answer PING; default 10,000 ms. */
  readonly startTimeoutMs?: number;
  /** How long to wait for the cluster to be ready (and default of `waitUntilOk`); default 30,000 ms. */
  readonly readyTimeoutMs?: number;
  /** Extra arguments for every node. */
  readonly args?: readonly string[];
}

/** A failover's new master and how long it took (seconds, from the command or the kill to a healthy cluster). */
export interface ClusterFailover extends RedisAddress {
  readonly seconds: number;
}

/**
 * A running Redis Cluster on 127.0.0.1. Each node is reached through a {@link LinkProxy} that it announces as its
 * address (CLUSTER SLOTS, redirections and the replicas' links name the proxy); the cluster bus is direct.
 */
export interface TestRedisCluster {
  /** Every node by its address, and whether its process runs. */
  readonly nodes: readonly (RedisAddress & { readonly running: boolean })[];
  /** Every node's address, for `new Redis.Cluster(startupNodes)` or `createCluster({ rootNodes })`. */
  readonly startupNodes: readonly RedisAddress[];
  /** Ports of the masters serving slots now. */
  masters(): Promise<number[]>;
  /** Port of a running replica of the master on `masterPort`. */
  replicaOf(masterPort: number): Promise<number>;
  /** Port of the master serving `key`'s slot now. */
  masterOfKey(key: string): Promise<number>;
  /**
   * Sends `CLUSTER FAILOVER` to a replica of the master (a manual failover: the replica catches up first, so no
   * acknowledged write is lost) and resolves once the cluster is healthy again with the replica as master.
   */
  failover(masterPort: number, options?: { timeoutMs?: number }): Promise<ClusterFailover>;
  /** Kills a master with SIGKILL and resolves once its replica took over and the cluster is healthy again. */
  kill(masterPort: number, options?: { timeoutMs?: number }): Promise<ClusterFailover>;
  /**
   * Suspends a node (SIGSTOP): its connections stay open and commands wait, as on a frozen host. A master frozen
   * longer than `nodeTimeoutMs` is failed over meanwhile, and learns it when {@link thaw}ed.
   */
  freeze(port: number): void;
  /** Resumes a frozen node (SIGCONT). */
  thaw(port: number): void;
  /** Kills a node with SIGKILL and returns at once. */
  killNow(port: number): Promise<void>;
  /** Starts a killed node again; it rejoins (as a replica when another node took its slots). */
  restart(port: number): Promise<void>;
  /**
   * Cuts the replication links to `masterPort` (every master's when omitted), dropping what is in flight, and keeps
   * them cut until {@link healReplication}. The waits expect every running replica linked: cut only the master you
   * are about to kill.
   */
  cutReplication(masterPort?: number): void;
  healReplication(): void;
  /** Replication connections relayed right now (one per linked replica). */
  readonly replicationLinks: number;
  /**
   * Resolves once every running node reports cluster_state:ok with every slot served, each replica's link is up
   * and all nodes agree on every node's role (default limit: `readyTimeoutMs`).
   */
  waitUntilOk(timeoutMs?: number): Promise<void>;
  /** Stops every node and proxy and removes the temp dir. */
  stop(): Promise<void>;
}

/**
 * Starts a Redis Cluster (3 masters + 3 replicas by default) with `redis-cli --cluster create` on free loopback
 * ports and resolves once every slot is served.
 *
 * @example
 * const cluster = await startRedisCluster();
 * afterAll(() => cluster.stop());
 * const redis = new Redis.Cluster(cluster.startupNodes);
 * const { seconds } = await cluster.failover(await cluster.masterOfKey("{kirimbayar}x"));
 */
export function startRedisCluster(options?: StartRedisClusterOptions): Promise<TestRedisCluster>;

/** An error reply (`-ERR ...`) of a Redis server, as {@link redisCommand} rejects with it. */
export class RedisReplyError extends Error {}

/**
 * Sends one command to 127.0.0.1:`port` on a new connection (no client library) and resolves with its reply:
 * strings, numbers, arrays, `null`. Rejects with a {@link RedisReplyError} on an error reply, and on a refused
 * connection or no reply within `timeoutMs` (default 2,000).
 *
 * @example
 * const info = parseInfo(await redisCommand(port, ["INFO", "replication"]));
 */
export function redisCommand(
  port: number,
  args: readonly (string | number)[],
  options?: { timeoutMs?: number },
): Promise<unknown>;

/** The `field:value` lines of an INFO reply as an object. */
export function parseInfo(text: unknown): Record<string, string>;

/** Files of a throw-away certificate authority and a server certificate for 127.0.0.1 (see {@link createTestCertificates}). */
export interface TestCertificates {
  readonly dir: string;
  /** The CA certificate clients trust (`tls: { ca: readFileSync(ca) }`). */
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
  /** Deletes the files. */
  remove(): Promise<void>;
}

/**
 * Makes a throw-away CA and a server certificate for IP 127.0.0.1 and localhost (valid one day) with the openssl
 * command line, in a new temp dir: for redis-server with TLS, as managed Redis services run it.
 *
 * @example
 * const certificates = await createTestCertificates();
 * const redis = await startRedisServer({ tls: certificates });
 * const client = new Redis(redis.tlsUrl!, { tls: { ca: readFileSync(certificates.ca) } });
 */
export function createTestCertificates(): Promise<TestCertificates>;
