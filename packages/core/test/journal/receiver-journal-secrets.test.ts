// The receiver's own verifier secrets (webhook tokens, callback keys, HMAC secrets) never reach a journal entry, where
// they are recorded: not in the error (whole or cut at its length limit, as in issue 38 where 15 of a token's 22
// characters were shown), the body, the references, nor a URL's query or path in a message. And the secrets are not
// given out by the verifiers in any public way.
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { type JournalEntry, MemoryDeliveryJournal, MIN_SECRET_FRAGMENT } from "../../src/journal.js";
import {
  callbackKeyVerifier,
  createWebhookReceiver,
  hmacVerifier,
  tokenVerifier,
  type WebhookReceiver,
  type WebhookVerifier,
} from "../../src/webhooks.js";
import { hmacHex, orderStatus, paymentCallback, qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

// Secrets with no shape that the journal's name patterns would catch (no `token=`, short of a long key).
const TOKEN = "q7Hx2vK9pLmN4sR8wZ1yBc";
const CALLBACK_KEY = "Ck4yT7mQ2xW9pZ3vR6nL8s";
const PLAIN_KEY = "Pk3sV8nQ1wX6yT4mZ9rB2d";
const HMAC_SECRET = "Hm9rT2xL5vQ8pW1nZ4sK7c";
const SECRETS = [TOKEN, CALLBACK_KEY, PLAIN_KEY, HMAC_SECRET];
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function entriesOf(journal: MemoryDeliveryJournal, count: number): Promise<JournalEntry[]> {
  for (let tries = 0; tries < 400; tries++) {
    const found = await journal.search({ limit: 1_000 });
    if (found.length >= count) return found;
    await sleep(5);
  }
  return journal.search({ limit: 1_000 });
}

/** Every piece of every secret at least MIN_SECRET_FRAGMENT long that `text` shows. */
function leaks(text: string): string[] {
  const found: string[] = [];
  for (const secret of SECRETS) {
    for (let start = 0; start + MIN_SECRET_FRAGMENT <= secret.length; start++) {
      const piece = secret.slice(start, start + MIN_SECRET_FRAGMENT);
      if (text.includes(piece)) found.push(piece);
    }
  }
  return found;
}

/** Words (no run a key pattern would mask) filling `length` characters. */
const filler = (length: number) => "the shop's order ".repeat(Math.ceil(length / 17)).slice(0, length);

/** A handler error carrying `secret` at `at` (0-based) of its summary ("Error: " counts 7), then more text. */
const failingWith = (secret: string, at: number) => () => {
  throw new Error(`${filler(at - 7)}${secret} was rejected downstream, and the message goes on for a while`);
};

describe("a journal entry as the receiver records it", () => {
  it("masks the token of a tokenVerifier, whole or cut at the error's length limit, in errors, bodies and URLs", async () => {
    const journal = new MemoryDeliveryJournal({ recordBodies: true });
    let at = 470;
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "path" })],
      logger: quiet,
      journal,
    }).on("payment.success", () => failingWith(TOKEN, at++)());
    const delivery = (id: string) =>
      webhookRequest({
        url: `/webhooks/qris/${TOKEN}`,
        rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id, note: `from /webhooks/qris/${TOKEN}?x=1` })),
      });
    // The token at every position around the 500-character cut (the case: at 484).
    for (let n = 0; n < 31; n++) expect((await receiver.handle(delivery(`h-${n}`))).status).toBe(500);
    const entries = await entriesOf(journal, 31);
    expect(entries).toHaveLength(31);
    for (const entry of entries) {
      expect(entry.error).toMatch(/^Error: the shop's order /);
      expect(leaks(JSON.stringify(entry)), entry.error).toEqual([]);
    }
    expect(entries.some((entry) => entry.body?.includes("/webhooks/qris/[redacted]?x=1"))).toBe(true);
  });

  it("masks callback keys (HMAC and plain) and HMAC secrets, and secrets in references", async () => {
    const journal = new MemoryDeliveryJournal({ recordBodies: true });
    const hmacBody = JSON.stringify(paymentCallback({ payment_id: `P-${CALLBACK_KEY}`, status: "PAID" }));
    const payment = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: [CALLBACK_KEY] })],
      logger: quiet,
      journal,
    }).onAny(failingWith(CALLBACK_KEY, 484));
    const signed = await payment.handle(
      webhookRequest({ rawBody: hmacBody, headers: { "x-callback-api-key": hmacHex(CALLBACK_KEY, hmacBody) } }),
    );
    expect(signed.status).toBe(500);
    const plain = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: PLAIN_KEY, mode: "plain" })],
      logger: quiet,
      journal,
    }).onAny(failingWith(PLAIN_KEY, 490));
    const plainBody = JSON.stringify(paymentCallback({ payment_id: "P-2", order_id: PLAIN_KEY }));
    expect(
      (await plain.handle(webhookRequest({ rawBody: plainBody, headers: { "x-callback-api-key": PLAIN_KEY } }))).status,
    ).toBe(500);
    const ordersBody = JSON.stringify(orderStatus({ order_no: "SO-1", cnote: HMAC_SECRET }));
    const orders = createWebhookReceiver({
      source: "orders",
      verify: [hmacVerifier({ secrets: [HMAC_SECRET], header: "x-signature" })],
      logger: quiet,
      journal,
    }).onAny(() => {
      throw new Error(`signature check upstream failed with secret=${HMAC_SECRET.slice(0, 12)}`);
    });
    const signedOrder = webhookRequest({
      rawBody: ordersBody,
      headers: { "x-signature": hmacHex(HMAC_SECRET, ordersBody) },
    });
    expect((await orders.handle(signedOrder)).status).toBe(500);
    const entries = await entriesOf(journal, 3);
    expect(entries).toHaveLength(3);
    for (const entry of entries) expect(leaks(JSON.stringify(entry)), JSON.stringify(entry)).toEqual([]);
    expect(entries.map((entry) => entry.references)).toEqual(
      expect.arrayContaining([
        { payment_id: "P-[redacted]", order_id: "ORD-77" },
        { payment_id: "P-2", order_id: "[redacted]" },
        { order_no: "SO-1", cnote: "[redacted]" },
      ]),
    );
  });

  it("keeps the secrets out of every public view of a verifier", () => {
    const verifiers: WebhookVerifier[] = [
      tokenVerifier({ secrets: TOKEN, in: "query" }),
      callbackKeyVerifier({ secrets: CALLBACK_KEY }),
      callbackKeyVerifier({ secrets: PLAIN_KEY, mode: "plain" }),
      hmacVerifier({ secrets: HMAC_SECRET, header: "x-signature" }),
    ];
    for (const verifier of verifiers) {
      const views = [
        JSON.stringify(verifier),
        JSON.stringify({ ...verifier }),
        Object.keys(verifier).join(","),
        inspect(verifier, { depth: 5 }),
        String(Object.values(verifier)),
      ];
      for (const view of views) expect(leaks(view), view).toEqual([]);
    }
  });

  it("leaves entries as they were for a receiver whose verifiers hold no secret", async () => {
    const journal = new MemoryDeliveryJournal();
    const receiver: WebhookReceiver = createWebhookReceiver({
      source: "qris",
      insecureNoVerification: true,
      logger: quiet,
      journal,
    }).onAny(() => {
      throw new Error("plain failure SO-1");
    });
    await receiver.handle(webhookRequest({ rawBody: JSON.stringify(qrisSuccess({ qris_history_id: "h-9" })) }));
    const [entry] = await entriesOf(journal, 1);
    expect(entry).toMatchObject({ error: "Error: plain failure SO-1", references: { qris_history_id: "h-9" } });
  });
});
