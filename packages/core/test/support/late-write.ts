// A handler past its time limit that writes again through ctx.transaction right after its library sends the
// transaction's ROLLBACK: the narrowest window in which a library could still run the write, after the ROLLBACK and
// outside any transaction. The tests hook their driver (`rollbackSent`) so that the write goes out exactly then.
import { expect, vi } from "vitest";
import { createWebhookReceiver, tokenVerifier } from "../../src/webhooks.js";
import type { BoundStore } from "./transactional-contract.js";
import { qrisSuccess, webhookRequest } from "./webhook-requests.js";

const TOKEN = "late-write-token";
const quiet = { warn: () => {}, error: () => {} };

let armed: (() => void) | undefined;

/**
 * For the drivers' hooks: call with the text of every statement a connection is about to send. The first ROLLBACK
 * after a handler ran out of time triggers its late write, a moment later (before the ROLLBACK's answer can come).
 */
export function statementSent(text: unknown): void {
  if (armed === undefined || typeof text !== "string" || !/^\s*rollback\b/i.test(text)) return;
  const write = armed;
  armed = undefined;
  setImmediate(write);
}

/**
 * A delivery whose handler writes, outlives its 300 ms limit, and writes again through ctx.transaction as the
 * ROLLBACK goes out. Resolves with the answer, what became of the late write, and the order's committed count.
 */
export async function lateWriteAtRollback<Tx>(
  store: BoundStore<Tx>,
  id: string,
  markPaid: (tx: Tx, id: string) => Promise<unknown>,
  paidCount: (id: string) => Promise<number>,
): Promise<{ status: number; late: "committed" | "refused"; paid: number }> {
  await store.ensureSchema();
  let late: Promise<"committed" | "refused"> | undefined;
  let release!: () => void;
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, transactional: true, handlerTimeoutMs: 300 },
    logger: quiet,
  }).on("payment.success", async (_event, ctx) => {
    await markPaid(ctx.transaction, id);
    ctx.signal.addEventListener("abort", () => {
      armed = () => {
        late = Promise.resolve(markPaid(ctx.transaction, id)).then(
          () => "committed" as const,
          () => "refused" as const,
        );
      };
    });
    await hold;
  });
  const request = webhookRequest({
    url: `/hook?token=${TOKEN}`,
    rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })),
  });
  const { status } = await receiver.handle(request);
  try {
    await vi.waitFor(() => expect(late).toBeDefined(), { timeout: 5_000, interval: 10 });
    return { status, late: await (late as Promise<"committed" | "refused">), paid: await paidCount(id) };
  } finally {
    armed = undefined;
    release();
  }
}
