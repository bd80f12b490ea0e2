// A Redis reached as managed services offer it: TLS only (a certificate from a private CA the client must trust), a
// password, and a replica that replicates over TLS. The store with replicaAcknowledgement and the journal work through
// ioredis (`rediss://` + `tls: { ca }`) and node-redis (`socket: { tls: true, ca }`); the record is on the replica
// before the 200; a client that does not trust the CA, or has the wrong password, gets a 503-type store error that
// never carries the password.
import { readFileSync } from "node:fs";
import {
  createTestCertificates,
  parseInfo,
  startRedisServer,
  type TestCertificates,
  type TestRedisServer,
} from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisDeliveryJournal, RedisIdempotencyStore, type RedisIdempotencyStoreOptions } from "../src/redis.js";
import { IdempotencyStoreUnavailableError } from "../src/webhooks.js";

const PASSWORD = "tls-test-Pa55word-never-logged";
const silent = { warn: () => {} };
let certificates: TestCertificates;
let master: TestRedisServer;
let replica: TestRedisServer;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  certificates = await createTestCertificates();
  const auth = ["--requirepass", PASSWORD, "--masterauth", PASSWORD, "--repl-diskless-sync-delay", "0"];
  master = await startRedisServer({ tls: certificates, args: auth });
  replica = await startRedisServer({
    tls: certificates,
    args: [...auth, "--replicaof", "127.0.0.1", String(master.tlsPort)],
  });
  const deadline = Date.now() + 15_000;
  for (;;) {
    if ((await linkStatus()) === "up") break;
    if (Date.now() > deadline) throw new Error("the TLS replica did not link up");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await replica?.stop();
  await master?.stop();
  await certificates?.remove();
});

async function linkStatus(): Promise<string | undefined> {
  const client = new IORedis(replica.tlsUrl as string, {
    password: PASSWORD,
    tls: { ca: readFileSync(certificates.ca) },
    lazyConnect: true,
    maxRetriesPerRequest: 0,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    return parseInfo(await client.info("replication")).master_link_status;
  } catch {
    return undefined;
  } finally {
    client.disconnect();
  }
}

async function ioredisClient(options: { trusted?: boolean; password?: string } = {}) {
  const client = new IORedis(master.tlsUrl as string, {
    password: options.password ?? PASSWORD,
    tls: options.trusted === false ? {} : { ca: readFileSync(certificates.ca) },
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on("error", () => {});
  closers.push(() => client.disconnect());
  await new Promise((resolve) => {
    client.once("ready", resolve);
    client.once("end", resolve);
  });
  return client;
}

async function nodeRedisClient() {
  const client = createClient({
    url: master.tlsUrl as string,
    password: PASSWORD,
    socket: { tls: true, ca: readFileSync(certificates.ca) },
    disableOfflineQueue: true,
  });
  client.on("error", () => {});
  await client.connect();
  closers.push(() => client.close().catch(() => {}));
  return client;
}

describe.each([
  ["ioredis", () => ioredisClient()],
  ["node-redis", () => nodeRedisClient()],
] as const)("over TLS with a password, through %s", (name, connect) => {
  it("keeps exactly-once with replicaAcknowledgement: the records are on the replica before the answers", async () => {
    const client = (await connect()) as unknown as RedisIdempotencyStoreOptions["client"];
    const store = new RedisIdempotencyStore({
      client,
      keyPrefix: `tls:${name}:`,
      logger: silent,
      replicaAcknowledgement: { replicas: 1, timeoutMs: 500 },
    });
    expect(await store.claim("event", "o1", 10_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.complete("event", "o1", 60_000)).toBe(true);
    expect(await store.claim("event", "o2", 10_000)).toEqual({ state: "completed" });
    const onReplica = new IORedis(replica.tlsUrl as string, {
      password: PASSWORD,
      tls: { ca: readFileSync(certificates.ca) },
    });
    closers.push(() => onReplica.disconnect());
    expect(await onReplica.get(`tls:${name}:{event}`)).toBe("done");

    const journal = new RedisDeliveryJournal({ client, keyPrefix: `{tls-journal-${name}}:` });
    const at = Date.now();
    await journal.record([
      {
        at,
        source: "qris",
        origin: "webhook",
        event: "payment.success",
        httpStatus: 200,
        outcome: "processed",
      } as never,
    ]);
    expect((await journal.search({ limit: 10 })).map((entry) => entry.at)).toEqual([at]);
    await journal.close();
  });
});

describe("a client the server refuses", () => {
  it.each([
    ["that does not trust the server's CA", { trusted: false }],
    ["with the wrong password", { password: "not-the-password" }],
  ] as const)("%s gets a store error (503) that never carries the password", async (_case, options) => {
    const store = new RedisIdempotencyStore({
      client: await ioredisClient(options),
      logger: silent,
      operationTimeoutMs: 500,
    });
    const failure = await store.claim("refused", "o", 10_000).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(IdempotencyStoreUnavailableError);
    let text = "";
    for (let error: unknown = failure; error instanceof Error; error = error.cause) {
      text += `${String(error)} ${error.stack ?? ""} ${JSON.stringify(error)}`;
    }
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain("not-the-password");
  });
});
