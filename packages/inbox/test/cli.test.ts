// `kirimbayar inbox list|show|replay|stats` against a pg-boss inbox on a real PostgreSQL server, through the real
// command parser and the real engine opener (the same path as the installed binary).

import { createWebhookReceiver, type InboxMessage } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kirimbayarProgram } from "../src/cli/inbox-commands.js";
import { engineOf } from "../src/cli/open-inbox.js";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import { startInboxWorker } from "../src/worker.js";

const quiet = { warn: () => {}, error: () => {} };
let server: TestPostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await server?.destroy();
});

async function cli(...args: string[]): Promise<string[]> {
  const lines: string[] = [];
  await kirimbayarProgram({ out: (line) => lines.push(line) }).parseAsync(["node", "kirimbayar", ...args]);
  return lines;
}

const message = (id: string): InboxMessage => ({
  key: `qris:payment.success:${id}`,
  source: "qris",
  body: JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 5_000 },
  }),
  receivedAt: Date.now(),
});

describe("kirimbayar inbox", () => {
  it("lists, shows and replays dead letters", async () => {
    // The app (its own pg-boss, which installs the schema) and a worker whose handler is broken turn two events into
    // dead letters; the CLI opens the same inbox on its own.
    const boss = new PgBoss({ connectionString: server.url, max: 4 });
    boss.on("error", () => {});
    await boss.start();
    const close = () => boss.stop({ graceful: false, wait: true, timeout: 2_000 });
    const inbox = await createPgBossInbox({ boss, name: "cli-inbox", pollingIntervalMs: 100 });
    let broken = true;
    const applied: string[] = [];
    const receiver = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet }).on(
      "payment.success",
      (event) => {
        if (broken) throw new Error("orders table is locked");
        applied.push(String(event.data.qris_history_id));
      },
    );
    await inbox.enqueue(message("c1"));
    await inbox.enqueue(message("c2"));
    const worker = await startInboxWorker({
      inbox,
      receivers: { qris: receiver },
      retry: { periodMs: 500 },
      logger: quiet,
    });
    try {
      for (let i = 0; i < 200 && (await inbox.stats()).deadLetters < 2; i++)
        await new Promise((r) => setTimeout(r, 100));
      const target = ["--url", server.url, "--queue", "cli-inbox"];

      const listed = await cli("inbox", "list", ...target);
      expect(listed).toHaveLength(2);
      expect(listed.join("\n")).toMatch(/qris:payment\.success:c1 .* last error: orders table is locked/);
      const json = JSON.parse((await cli("inbox", "list", ...target, "--json"))[0] as string);
      const first = json.find((letter: { key: string }) => letter.key.endsWith(":c1"));
      expect(first).toMatchObject({ source: "qris", lastError: "orders table is locked" });

      const shown = (await cli("inbox", "show", first.id, ...target)).join("\n");
      expect(shown).toContain("key:      qris:payment.success:c1");
      expect(shown).toMatch(/#1 .* orders table is locked/);
      expect(shown).toContain('"qris_history_id":"c1"');

      expect((await cli("inbox", "stats", ...target))[0]).toMatch(/dead letters 2/);

      broken = false;
      expect(await cli("inbox", "replay", first.id, ...target)).toEqual([`Replayed ${first.id}.`]);
      expect(await cli("inbox", "replay", "--all", ...target)).toEqual(["Replayed 1 dead letters."]);
      for (let i = 0; i < 200 && applied.length < 2; i++) await new Promise((r) => setTimeout(r, 100));
      expect(applied.sort()).toEqual(["c1", "c2"]);
      expect(await cli("inbox", "list", ...target)).toEqual(["No dead letters."]);
      await expect(cli("inbox", "show", first.id, ...target)).rejects.toThrow(`no dead letter ${first.id}`);
    } finally {
      await worker.stop();
      await close();
    }
  });

  it("says what is missing instead of guessing", async () => {
    const saved = process.env.KIRIMBAYAR_INBOX_URL;
    delete process.env.KIRIMBAYAR_INBOX_URL;
    try {
      await expect(cli("inbox", "list")).rejects.toThrow(/give --url/);
    } finally {
      if (saved !== undefined) process.env.KIRIMBAYAR_INBOX_URL = saved;
    }
    expect(() => engineOf({ url: "mysql://x" })).toThrow(/--engine pg-boss\|bullmq/);
    expect(engineOf({ url: "postgresql://u@h/db" })).toBe("pg-boss");
    expect(engineOf({ url: "rediss://h:6380" })).toBe("bullmq");
  });
});
