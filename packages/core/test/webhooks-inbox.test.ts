// Inbox mode (`createWebhookReceiver({ inbox })`): a verified event is written to the queue under its idempotency
// key and answered 200 once written; 503 when the queue cannot take it. Workers run queued events through
// `processInboxMessage`, with the same handlers and idempotency store.
import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { inboxStage, processInboxMessage } from "../src/index.js";
import {
  createWebhookReceiver,
  type InboxMessage,
  InboxUnavailableError,
  MemoryIdempotencyStore,
  tokenVerifier,
  type WebhookInbox,
} from "../src/webhooks.js";
import { bodyOf, orderStatus, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "inbox-token";
const quiet = { warn: () => {}, error: () => {} };
const deliver = (body: unknown, token = TOKEN) =>
  webhookRequest({ url: `/hook?token=${token}`, rawBody: typeof body === "string" ? body : JSON.stringify(body) });

/** An in-memory inbox with a unique key, as the engines behave. */
function memoryInbox() {
  const messages = new Map<string, InboxMessage>();
  const inbox: WebhookInbox = {
    inboxStage,
    enqueue(message) {
      if (messages.has(message.key)) return "duplicate";
      messages.set(message.key, message);
      return "queued";
    },
  };
  return { inbox, messages };
}

// Fakes give only `enqueue`; the stage every inbox carries is added here.
function qrisReceiver(
  inbox: Omit<WebhookInbox, "inboxStage">,
  extra: { operationTimeoutMs?: number; store?: MemoryIdempotencyStore } = {},
) {
  const errors: { error: unknown; stage: string; status: number }[] = [];
  const ran: { id: unknown; origin: string; key: string }[] = [];
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    inbox: { ...inbox, inboxStage },
    idempotency: {
      ...(extra.store ? { store: extra.store } : {}),
      operationTimeoutMs: extra.operationTimeoutMs ?? 5_000,
    },
    logger: quiet,
    clock: () => 1_700_000_000_000,
  })
    .on("payment.success", (event, ctx) => {
      ran.push({ id: event.data.qris_history_id, origin: ctx.origin, key: ctx.idempotencyKey });
    })
    .onError((error, ctx) => {
      errors.push({ error, stage: ctx.stage, status: ctx.status });
    });
  return { receiver, errors, ran };
}

describe("inbox mode: the request writes the event and answers", () => {
  it("queues a verified event under its idempotency key and answers 200 without running the handler", async () => {
    const { inbox, messages } = memoryInbox();
    const { receiver, ran } = qrisReceiver(inbox);
    const body = JSON.stringify(qrisSuccess({ qris_history_id: "h-1" }));
    const response = await receiver.handle(deliver(body));
    expect(response.status).toBe(200);
    expect(bodyOf(response).message).toBe("Webhook queued");
    expect(ran).toEqual([]);
    expect([...messages.values()]).toEqual([
      { key: "qris:payment.success:h-1", source: "qris", body, receivedAt: 1_700_000_000_000 },
    ]);
  });

  it("answers a redelivery as a duplicate of a queued event and adds nothing", async () => {
    const { inbox, messages } = memoryInbox();
    const { receiver } = qrisReceiver(inbox);
    await receiver.handle(deliver(qrisSuccess({ qris_history_id: "h-2" })));
    const again = await receiver.handle(deliver(qrisSuccess({ qris_history_id: "h-2" })));
    expect(again.status).toBe(200);
    expect(bodyOf(again).message).toBe("Duplicate of an event already queued");
    expect(messages.size).toBe(1);
  });

  it("queues nothing for a forged or malformed delivery (401, 400)", async () => {
    const enqueue = vi.fn(() => "queued" as const);
    const { receiver } = qrisReceiver({ enqueue });
    expect((await receiver.handle(deliver(qrisSuccess(), "forged"))).status).toBe(401);
    expect((await receiver.handle(deliver("{not json"))).status).toBe(400);
    expect((await receiver.handle(deliver({ event: "payment.success", data: "nope" }))).status).toBe(400);
    expect(enqueue).not.toHaveBeenCalled();
  });

  it("queues even when no handler is registered in this process (the workers have them)", async () => {
    const { inbox, messages } = memoryInbox();
    const receiver = createWebhookReceiver({
      source: "orders",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
      logger: quiet,
    });
    expect((await receiver.handle(deliver(orderStatus()))).status).toBe(200);
    expect(messages.size).toBe(1);
  });

  it("queues the decoded text of a gzip body", async () => {
    const { inbox, messages } = memoryInbox();
    const { receiver } = qrisReceiver(inbox);
    const text = JSON.stringify(qrisSuccess({ qris_history_id: "gz" }));
    const response = await receiver.handle(
      webhookRequest({
        url: `/hook?token=${TOKEN}`,
        headers: { "content-type": "application/json", "content-encoding": "gzip" },
        rawBody: new Uint8Array(gzipSync(text)),
      }),
    );
    expect(response.status).toBe(200);
    expect([...messages.values()][0]?.body).toBe(text);
  });

  it.each([
    ["rejects", () => Promise.reject(new Error("ECONNREFUSED 127.0.0.1:6379"))],
    [
      "throws",
      () => {
        throw new Error("queue closed");
      },
    ],
    ["answers something else", () => Promise.resolve("ok")],
  ])("answers 503 and reports stage inbox when the queue %s", async (_, enqueue) => {
    const { receiver, errors, ran } = qrisReceiver({ enqueue: enqueue as WebhookInbox["enqueue"] });
    const response = await receiver.handle(deliver(qrisSuccess()));
    expect(response.status).toBe(503);
    expect(bodyOf(response).message).toBe("Inbox unavailable; retry later");
    expect(errors).toHaveLength(1);
    expect(errors[0]?.stage).toBe("inbox");
    expect(errors[0]?.error).toBeInstanceOf(InboxUnavailableError);
    expect(ran).toEqual([]);
  });

  it("answers 503 when the queue does not answer within operationTimeoutMs", async () => {
    const { receiver, errors } = qrisReceiver({ enqueue: () => new Promise(() => {}) }, { operationTimeoutMs: 50 });
    const started = Date.now();
    expect((await receiver.handle(deliver(qrisSuccess()))).status).toBe(503);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(String((errors[0]?.error as Error | undefined)?.message)).toMatch(/did not take the event in 50 ms/);
  });

  it("waits for a lazy thenable from the queue (it runs only when then() is called)", async () => {
    let written = false;
    const lazy = {
      then(resolve: (value: "queued") => void) {
        setTimeout(() => {
          written = true;
          resolve("queued");
        }, 20);
      },
    };
    // Typed as the promise it stands for: a lazy thenable has no onRejected, as some clients' builders.
    const { receiver } = qrisReceiver({ enqueue: () => lazy as unknown as PromiseLike<"queued"> });
    const response = await receiver.handle(deliver(qrisSuccess()));
    expect(response.status).toBe(200);
    expect(written).toBe(true);
  });

  it("refuses an inbox without enqueue when built", () => {
    expect(() =>
      createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet, inbox: {} as WebhookInbox }),
    ).toThrow(/inbox must have enqueue\(\) and inboxStage$/);
  });

  it("refuses an inbox without its inboxStage when built, naming where to get it", () => {
    const inbox = { enqueue: () => "queued" } as unknown as WebhookInbox;
    expect(() => createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet, inbox })).toThrow(
      /inboxStage is missing: set it to inboxStage of "@kirimbayar\/core"/,
    );
  });
});

describe("processInboxMessage: what a worker runs", () => {
  async function queuedMessage(body: unknown) {
    const { inbox, messages } = memoryInbox();
    const web = qrisReceiver(inbox);
    expect((await web.receiver.handle(deliver(body))).status).toBe(200);
    return [...messages.values()][0] as InboxMessage;
  }

  it("runs the handlers once under the queued key, with ctx.origin inbox; a second run is already applied", async () => {
    const message = await queuedMessage(qrisSuccess({ qris_history_id: "w-1" }));
    const { receiver, ran } = qrisReceiver(memoryInbox().inbox);
    expect(await processInboxMessage(receiver, message)).toEqual({ outcome: "applied", key: message.key });
    expect(await processInboxMessage(receiver, message)).toEqual({ outcome: "already_applied", key: message.key });
    expect(ran).toEqual([{ id: "w-1", origin: "inbox", key: message.key }]);
  });

  it("shares the idempotency store with direct deliveries and the reconciler: an event applied directly is not applied again", async () => {
    const store = new MemoryIdempotencyStore();
    const message = await queuedMessage(qrisSuccess({ qris_history_id: "w-2" }));
    const direct = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store },
      logger: quiet,
    }).on("payment.success", () => {});
    expect((await direct.handle(deliver(qrisSuccess({ qris_history_id: "w-2" })))).status).toBe(200);
    const { receiver, ran } = qrisReceiver(memoryInbox().inbox, { store });
    expect((await processInboxMessage(receiver, message)).outcome).toBe("already_applied");
    expect(ran).toEqual([]);
  });

  it("reports a failing handler as failed with its error, and runs it again on the next try", async () => {
    const message = await queuedMessage(qrisSuccess({ qris_history_id: "w-3" }));
    let fail = true;
    const receiver = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet }).on(
      "payment.success",
      () => {
        if (fail) throw new Error("database down");
      },
    );
    const first = await processInboxMessage(receiver, message);
    expect(first.outcome).toBe("failed");
    expect((first.error as Error).message).toBe("database down");
    fail = false;
    expect((await processInboxMessage(receiver, message)).outcome).toBe("applied");
  });

  it("calls a message invalid when its body fails the schema or it belongs to another source", async () => {
    const { receiver, ran } = qrisReceiver(memoryInbox().inbox);
    const base = { key: "k", source: "qris" as const, receivedAt: 1 };
    expect((await processInboxMessage(receiver, { ...base, body: "{}" })).outcome).toBe("invalid");
    expect((await processInboxMessage(receiver, { ...base, body: "not json" })).outcome).toBe("invalid");
    const other = { ...base, source: "orders" as const, body: JSON.stringify(orderStatus()) };
    expect((await processInboxMessage(receiver, other)).outcome).toBe("invalid");
    expect((await processInboxMessage(receiver, null as unknown as InboxMessage)).outcome).toBe("invalid");
    expect(ran).toEqual([]);
  });

  it("keeps a body-hash key as queued (a payment callback without an id): the worker claims the same key", async () => {
    const { inbox, messages } = memoryInbox();
    const options = { source: "payment" as const, insecureNoVerification: true, logger: quiet };
    // Spaces the re-serialised JSON would not have: a key hashed from anything but these bytes would differ.
    const body = '{ "order_id" : "O-1",  "status": "PAID" }';
    expect((await createWebhookReceiver({ ...options, inbox }).handle(webhookRequest({ rawBody: body }))).status).toBe(
      200,
    );
    const message = [...messages.values()][0] as InboxMessage;
    expect(message.key).toMatch(/^payment:sha256:[0-9a-f]{64}$/);
    const seen: string[] = [];
    const worker = createWebhookReceiver(options).on("payment.callback", (_, ctx) => {
      seen.push(ctx.idempotencyKey);
    });
    expect((await processInboxMessage(worker, message)).outcome).toBe("applied");
    expect(seen).toEqual([message.key]);
    // A direct delivery of the same bytes is a duplicate of the event the worker applied.
    const direct = await worker.handle(webhookRequest({ rawBody: body }));
    expect(bodyOf(direct).message).toBe("Duplicate of an event already processed");
  });
});
