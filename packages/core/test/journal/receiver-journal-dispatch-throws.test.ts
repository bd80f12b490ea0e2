// A delivery whose dispatch throws (an app's idempotency `key` function that throws, or an internal error) is
// answered 500 as without a journal, and journalled once, with the error that failed it.
import { describe, expect, it } from "vitest";
import { MemoryDeliveryJournal } from "../../src/journal.js";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "journal-secret-token";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function receiverWith(journal: MemoryDeliveryJournal | undefined, key: () => string) {
  const logged: string[] = [];
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: new MemoryIdempotencyStore(), key },
    logger: { warn: () => {}, error: (message: string) => logged.push(message) },
    ...(journal === undefined ? {} : { journal }),
  });
  receiver.on("payment.success", async () => {});
  return { receiver, logged };
}

const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

describe("journal: a dispatch that throws", () => {
  it("answers as the receiver without a journal does, and journals the delivery once with its error", async () => {
    const failingKey = () => {
      throw new Error("key function broke");
    };
    const plain = receiverWith(undefined, failingKey);
    const expected = await plain.receiver.handle(delivery("QH-THROW-0"));

    const journal = new MemoryDeliveryJournal({ instance: "test" });
    const journalled = receiverWith(journal, failingKey);
    const response = await journalled.receiver.handle(delivery("QH-THROW-1"));
    expect(response.status).toBe(500);
    expect(response.status).toBe(expected.status);
    expect(response.body).toBe(expected.body);
    expect(journalled.logged).toEqual(plain.logged);

    await sleep(20);
    await journal.flush?.();
    const entries = await journal.search({ reference: "QH-THROW-1" });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ httpStatus: 500, outcome: "failed", origin: "webhook" });
    expect(entries[0]?.error).toContain("key function broke");
  });
});
