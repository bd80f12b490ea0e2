import type { InboxQueue } from "../types.js";

/** Where the CLI finds the inbox. */
export interface InboxTarget {
  /** `pg-boss` (a `postgres://` URL) or `bullmq` (a `redis://` URL); inferred from the URL when left out. */
  engine?: string;
  url: string;
  /** Queue name (default `kirimbayar-inbox`). */
  queue?: string;
  /** pg-boss's schema (default `pgboss`). */
  schema?: string;
}

/** An open inbox and how to let go of it. */
export interface OpenInbox {
  inbox: InboxQueue;
  close(): Promise<void>;
}

/** The engine a URL names: `postgres://`/`postgresql://` → pg-boss, `redis://`/`rediss://` → BullMQ. */
export function engineOf(target: InboxTarget): "pg-boss" | "bullmq" {
  const engine =
    target.engine ?? (/^rediss?:/i.test(target.url) ? "bullmq" : /^postgres(ql)?:/i.test(target.url) ? "pg-boss" : "");
  if (engine !== "pg-boss" && engine !== "bullmq") {
    throw new Error("say which engine with --engine pg-boss|bullmq (or give a postgres:// or redis:// URL)");
  }
  return engine;
}

/** Opens the inbox behind `target` with the engine's library (an optional peer: the app installed it). */
export async function openInbox(target: InboxTarget): Promise<OpenInbox> {
  const name = target.queue;
  if (engineOf(target) === "pg-boss") {
    const { default: PgBoss } = await import("pg-boss");
    const boss = new PgBoss({
      connectionString: target.url,
      schema: target.schema ?? "pgboss",
      supervise: false,
      schedule: false,
      migrate: false,
    });
    boss.on("error", () => {});
    await boss.start();
    const { createPgBossInbox } = await import("../engines/pg-boss.js");
    const inbox = await createPgBossInbox({
      boss,
      ...(name ? { name } : {}),
      ...(target.schema ? { schema: target.schema } : {}),
    });
    return { inbox, close: () => boss.stop({ graceful: false, wait: true }) };
  }
  const { Redis } = await import("ioredis");
  const redis = new Redis(target.url, { maxRetriesPerRequest: null, lazyConnect: true });
  await redis.connect();
  const { createBullMqInbox } = await import("../engines/bullmq.js");
  const inbox = await createBullMqInbox({ connection: redis, ...(name ? { name } : {}) });
  return {
    inbox,
    close: async () => {
      await inbox.close();
      await redis.quit();
    },
  };
}
