// "Reconcile now" with the real reconciler against the stateful fake provider: a QR payment whose every webhook
// delivery failed (the shop's database was down longer than the provider retries) is applied once from the console,
// and its story says so.
import { createReconciler, QrisClient } from "@kirimbayar/core";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createFakeProvider } from "@kirimbayar/testing";
import { expect, it } from "vitest";
import { createWebhookConsole } from "../src/index.js";
import { authorizeByHeader, BASE, get, post, tokenOf, WEBHOOK_TOKEN } from "./helpers.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page's visible text, roughly. */
const textOf = (page: string) =>
  page
    .replace(/<style>[\s\S]*?<\/style>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

it("applies a payment whose webhooks all failed from the console, once, and tells its story", async () => {
  const journal = new MemoryDeliveryJournal({ instance: "web-1" });
  const store = new MemoryIdempotencyStore();
  const state = { databaseDown: false, paid: [] as string[] };
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [WEBHOOK_TOKEN], in: "query", name: "token" })],
    idempotency: { store },
    journal,
    logger: { error: () => {}, warn: () => {} },
  }).on("payment.success", async (event) => {
    if (state.databaseDown) throw new Error("database is down");
    state.paid.push(String(event.data.qris_history_id));
  });
  const provider = createFakeProvider({
    webhooks: {
      qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${WEBHOOK_TOKEN}`,
      fetch: (request) => qris.fetch(request),
    },
  });
  const client = new QrisClient({
    apiKey: provider.apiKeys.qris[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const reconciler = createReconciler({ receivers: { qris }, clients: { qris: client }, minIntervalPerIdMs: 1 });
  const webhookConsole = createWebhookConsole({
    journal,
    authorize: authorizeByHeader,
    basePath: BASE,
    stores: { qris: store },
    reconciler,
    secrets: [provider.apiKeys.qris[0] ?? ""],
  });

  const missed = await client.generateQris({ qris_id: 1, amount: 75_000, output_type: "string" });
  const historyId = String(missed.data.history_id);
  state.databaseDown = true;
  await provider.qris.pay(historyId);
  await provider.clock.advance(30 * 60_000); // past every retry: now, +1, +5, +15 min
  state.databaseDown = false;
  expect(provider.deliveries.filter((delivery) => delivery.status === 500)).toHaveLength(4);
  // The receiver's journal writes are not awaited by it: wait (bounded) for the four failures.
  for (let tries = 0; (await journal.search({ reference: historyId })).length < 4; tries++) {
    if (tries > 200) throw new Error("the failed deliveries were not journalled");
    await sleep(10);
  }

  const before = await (await webhookConsole.fetch(get(`${BASE}/search?q=${historyId}`))).text();
  expect(textOf(before)).toContain("is not processed yet: 4 tries failed, the last one answered 500.");
  // The form is prefilled with the payment the story is about.
  expect(before).toContain(`name="reference" value="${historyId}"`);
  const answer = await webhookConsole.fetch(
    post(`${BASE}/actions/reconcile`, { csrf: tokenOf(before), source: "qris", reference: historyId }),
  );
  expect(answer.headers.get("location")).toBe(`${BASE}/search?q=${historyId}&notice=reconcile_applied`);
  expect(state.paid).toEqual([historyId]);

  for (
    let tries = 0;
    !(await journal.search({ reference: historyId })).some((e) => e.origin === "reconciliation");
    tries++
  ) {
    if (tries > 200) throw new Error("the reconciliation was not journalled");
    await sleep(10);
  }
  const after = textOf(await (await webhookConsole.fetch(get(answer.headers.get("location") ?? ""))).text());
  expect(after).toContain("Reconciled: the provider reports it moved on, and the event was applied now");
  expect(after).toContain(
    "The payment.success event was applied by reconciliation after 4 failed tries: none of its 4 webhook deliveries got through.",
  );
  expect(after).toContain("completed: a new delivery of this event is a duplicate");
  expect(after).not.toContain(provider.apiKeys.qris[0] ?? "no key");

  // Again: nothing runs twice.
  await sleep(5);
  const again = await webhookConsole.fetch(
    post(`${BASE}/actions/reconcile`, { csrf: tokenOf(before), source: "qris", reference: historyId }),
  );
  expect(again.headers.get("location")).toBe(`${BASE}/search?q=${historyId}&notice=reconcile_already_applied`);
  expect(state.paid).toEqual([historyId]);
}, 20_000);
