// What the pages show: a payment's story from real deliveries through a real receiver and journal, the overview,
// the dead letters, the actions' redirects, and hostile values rendered inert.
import { applyEvent } from "@kirimbayar/core";
import { type JournalEntry, MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import {
  BASE,
  entry,
  get,
  HOSTILE,
  HOUR,
  inspectableStore,
  MINUTE,
  NOW,
  post,
  setup,
  tokenOf,
  WEBHOOK_TOKEN,
} from "./helpers.js";

const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function qrisBody(historyId: string) {
  return JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: {
      qris_history_id: historyId,
      qris_id: "0c6b1a2e-7a7e-4f7e-9d59-1f1f0e5c4b3a",
      amount: 100_001,
      original_amount: 100_000,
      status: "paid",
      paid_at: "2026-03-01T02:59:58Z",
      payment_method: "QRIS",
      payment_provider: "DANA",
      created_at: "2026-03-01T02:50:00Z",
    },
  });
}

function delivery(historyId: string) {
  return {
    method: "POST",
    url: `/webhooks/qris?token=${WEBHOOK_TOKEN}`,
    headers: { "content-type": "application/json" },
    rawBody: qrisBody(historyId),
  };
}

/** The journal's entries for `reference` once the receiver's writes (never awaited by it) landed; bounded. */
async function journalled(journal: MemoryDeliveryJournal, reference: string, count: number): Promise<JournalEntry[]> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const found = await journal.search({ reference });
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`${reference}: ${found.length} of ${count} entries journalled`);
    await sleep(5);
  }
}

/** A page's visible text, roughly: tags dropped, entities of the escapes decoded, whitespace collapsed. */
function textOf(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>/, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

async function html(console: ReturnType<typeof setup>["console"], path: string): Promise<string> {
  const response = await console.fetch(get(path));
  expect(response.status, path).toBe(200);
  return response.text();
}

describe("the search page, from real deliveries", () => {
  async function shop() {
    const journal = new MemoryDeliveryJournal({ instance: "web-1" });
    const failures = new Map<string, number>([["h-flaky", 2]]);
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [WEBHOOK_TOKEN], in: "query", name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore() },
      logger: quiet,
      journal,
    }).on("payment.success", (event) => {
      const id = String(event.data.qris_history_id);
      const left = failures.get(id) ?? 0;
      if (left > 0) {
        failures.set(id, left - 1);
        throw new Error(`orders db timeout (callback ${`https://shop.test/hook?token=${WEBHOOK_TOKEN}`})`);
      }
    });
    const context = setup({
      journal,
      clock: Date.now,
      stores: {
        qris: inspectableStore({
          "qris:payment.success:h-flaky": {
            key: "qris:payment.success:h-flaky",
            state: "completed",
            attempt: 3,
            completedAt: Date.now(),
          },
        }),
      },
    });
    return { ...context, journal, receiver };
  }

  it("tells a delivery that failed twice and then succeeded, with its errors redacted and its record", async () => {
    const { console, receiver, journal } = await shop();
    for (let index = 0; index < 3; index++) await receiver.handle(delivery("h-flaky"));
    await journalled(journal, "h-flaky", 3);
    const page = await html(console, `${BASE}/search?q=h-flaky`);
    const text = textOf(page);
    expect(text).toContain(
      "The payment.success event was processed by a webhook delivery (attempt 3) after 2 failed tries.",
    );
    expect(text.match(/orders db timeout/g)).toHaveLength(2);
    expect(text).toContain("token=[REDACTED]");
    expect(page).not.toContain(WEBHOOK_TOKEN);
    expect(text).toContain("completed: a new delivery of this event is a duplicate");
    expect(text).toMatch(/Attempts 3/);
    // Newest first: processed, then the two failures.
    const outcomes = [...page.matchAll(/<span class="badge (\w+)">/g)].map((match) => match[1]);
    expect(outcomes).toEqual(["processed", "failed", "failed"]);
  });

  it("tells a duplicate delivery, and a payment found only by reconciliation", async () => {
    const { console, receiver, journal } = await shop();
    await receiver.handle(delivery("h-twice"));
    await receiver.handle(delivery("h-twice"));
    await applyEvent(receiver, JSON.parse(qrisBody("h-missed")));
    await journalled(journal, "h-twice", 2);
    await journalled(journal, "h-missed", 1);
    const twice = textOf(await html(console, `${BASE}/search?q=h-twice`));
    expect(twice).toContain("was processed by a webhook delivery (attempt 1).");
    expect(twice).toContain("1 duplicate delivery was ignored (answered 200, nothing ran twice).");
    const missed = textOf(await html(console, `${BASE}/search?q=h-missed`));
    expect(missed).toContain("The payment.success event was applied by reconciliation: its webhook never arrived.");
    expect(missed).toContain("applied by reconciliation reconciliation");
    // The reconcile form is prefilled with the payment the timeline is about.
    expect(missed).toMatch(/Reconcile now/);
    expect(await html(console, `${BASE}/search?q=qris:payment.success:h-missed`)).toContain(
      "applied by reconciliation: its webhook never arrived",
    );
  });

  it("says so when nothing matches, and shows the empty search page without a reference", async () => {
    const { console } = await shop();
    expect(textOf(await html(console, `${BASE}/search?q=nothing-here`))).toContain(
      "Nothing in the journal matches this reference.",
    );
    expect(textOf(await html(console, `${BASE}/search`))).toContain("Search by a reference to see its whole story.");
  });
});

describe("hostile values", () => {
  const hostileEntries = () =>
    Object.entries(HOSTILE).map(([name, value], index) =>
      entry({
        at: NOW - (index + 1) * MINUTE,
        source: "orders",
        event: value,
        state: value,
        references: { order_no: value, cnote: `${name}-cnote`, order_id: HOSTILE.javascriptUrl },
        idempotencyKey: `orders:${value}`,
        httpStatus: 500,
        outcome: "failed",
        error: `${value} password=hunter2 "token": "${WEBHOOK_TOKEN}"`,
        instance: value,
        body: JSON.stringify({ order_no: value, callback_api_key: "ck_live_abc", token: WEBHOOK_TOKEN }),
      }),
    );

  it("renders every field from a webhook as inert text, wherever it appears", async () => {
    const { console, journal, inbox } = setup();
    await journal.record(hostileEntries());
    inbox.letters = [
      {
        id: HOSTILE.quotes,
        message: {
          key: HOSTILE.script,
          source: "qris",
          body: JSON.stringify({ data: { qris_history_id: HOSTILE.script } }),
          receivedAt: NOW - HOUR,
        },
        attempts: [{ at: NOW - HOUR, attempt: 1, error: `${HOSTILE.script} token=${WEBHOOK_TOKEN}` }],
        deadAt: NOW - HOUR,
      },
    ];
    for (const value of Object.values(HOSTILE)) {
      const pages = [
        await html(console, `${BASE}/search?q=${encodeURIComponent(value)}`),
        await html(console, `${BASE}/`),
        await html(console, `${BASE}/dead-letters`),
      ];
      for (const page of pages) {
        expect(page).not.toMatch(/<script/i);
        expect(page).not.toMatch(/<img/i);
        // No event handler attribute in any real tag (escaped text has no tags; quoted values are inert text).
        for (const [tag] of page.matchAll(/<[a-z][^>]*>/gi)) {
          expect(tag.replace(/"[^"]*"/g, '""')).not.toMatch(/\son\w+=/i);
        }
        expect(page).not.toContain(WEBHOOK_TOKEN);
        expect(page).not.toContain("hunter2");
        expect(page).not.toContain("ck_live_abc");
        // Every link and form goes to the console's own routes; no value from outside starts a URL.
        for (const [, url] of page.matchAll(/(?:href|action)="([^"]*)"/g)) {
          expect(url?.startsWith(BASE) || url?.startsWith("#"), url).toBe(true);
        }
      }
    }
    const search = await html(console, `${BASE}/search?q=${encodeURIComponent(HOSTILE.script)}`);
    expect(search).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(textOf(search)).toContain(HOSTILE.script);
    const quotes = await html(console, `${BASE}/search?q=${encodeURIComponent(HOSTILE.quotes)}`);
    expect(quotes).toContain("&quot;&#39;&gt;&lt;img src=x onerror=alert(1)&gt;");
    // The searched value is only ever echoed escaped into the form's value attribute.
    expect(quotes).toContain(`value="&quot;&#39;&gt;&lt;img`);
    const rtl = await html(console, `${BASE}/search?q=${encodeURIComponent(HOSTILE.rtl)}`);
    expect(rtl).toContain("🧾💸 مرحبا");
    // Long values are cut: the page stays readable (and small).
    const long = await html(console, `${BASE}/search?q=${encodeURIComponent(HOSTILE.long.slice(0, 256))}`);
    expect(long.length).toBeLessThan(60_000);
  });

  it("never reflects a notice code it does not know", async () => {
    const { console } = setup();
    const page = await html(console, `${BASE}/?notice=${encodeURIComponent(HOSTILE.script)}`);
    expect(page).not.toContain("alert(1)");
    expect(page).not.toContain('class="notice');
    expect(await html(console, `${BASE}/?notice=__proto__`)).not.toContain('class="notice');
    expect(await html(console, `${BASE}/?notice=toString`)).not.toContain('class="notice');
  });

  it("URL-encodes a hostile reference in the redirect of a reconcile", async () => {
    const { console, reconciler } = setup();
    const token = tokenOf(await html(console, `${BASE}/`));
    const response = await console.fetch(
      post(`${BASE}/actions/reconcile`, { csrf: token, source: "payment", reference: HOSTILE.quotes }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(
      `${BASE}/search?q=${encodeURIComponent(HOSTILE.quotes)}&notice=reconcile_applied`,
    );
    expect(reconciler.asked).toEqual([{ source: "payment", payment_id: HOSTILE.quotes }]);
  });
});

describe("the overview", () => {
  it("shows per source the last 24 hours, the last success with a silence warning, runs and the inbox", async () => {
    const { console, journal } = setup({ stores: { payment: inspectableStore({}) } });
    await journal.record([
      entry({ at: NOW - 5 * HOUR, source: "qris", references: { qris_history_id: "h-1" } }),
      entry({ at: NOW - 4 * HOUR, source: "qris", outcome: "duplicate", references: { qris_history_id: "h-1" } }),
      entry({
        at: NOW - 3 * HOUR,
        source: "qris",
        outcome: "failed",
        httpStatus: 500,
        references: { qris_history_id: "h-2" },
      }),
      entry({ at: NOW - 2 * HOUR, source: "qris", outcome: "refused", httpStatus: 401, references: {} }),
      entry({ at: NOW - 10 * MINUTE, source: "payment", references: { payment_id: "P-1" } }),
    ]);
    await journal.recordReconcileRun({
      startedAt: NOW - 30 * MINUTE,
      finishedAt: NOW - 30 * MINUTE + 2_000,
      references: 4,
      outcomes: { applied: 1, already_applied: 2, pending: 1, failed: 0 },
      instance: "worker-1",
    });
    const text = textOf(await html(console, `${BASE}/`));
    // The duplicate (answered 200) is the last successful webhook delivery.
    expect(text).toContain("QR payments (qris) Silent for 4 h: no successful webhook delivery since.");
    expect(text).toMatch(/QR payments \(qris\).*Deliveries \(24 h\) 4 Failed \(5xx\) 1 Refused \(4xx\) 1 Duplicates 1/);
    expect(text).toContain("Last successful webhook 2026-11-27 08:00:00 UTC (4 h ago)");
    expect(text).toMatch(/Payment gateway \(payment\) Deliveries/);
    expect(text).toContain("2026-11-27 11:50:00 UTC (10 min ago)");
    expect(text).not.toContain("Order status (orders)");
    expect(text).toContain("took 2 s: asked about 4 references — 1 payment found only by reconciliation");
    expect(text).toContain("1 applied: found only by reconciliation (their webhooks never arrived)");
    expect(text).toContain("2 already applied by a webhook");
    expect(text).not.toContain("0 failed");
    expect(text).toMatch(/Inbox Waiting 3 Being processed 1 Oldest waiting 7 min old Dead letters 0/);
  });

  it("flags a configured source that had no successful webhook at all", async () => {
    const { console } = setup({ sources: ["orders"] });
    const text = textOf(await html(console, `${BASE}/`));
    expect(text).toContain("Order status (orders) No successful webhook delivery in the last 24 h");
    expect(text).not.toContain("QR payments (qris)");
  });

  it("shows what it could read when the journal or an inbox fails, and reports why to onError only", async () => {
    const failing = new MemoryDeliveryJournal();
    failing.summarize = async () => {
      throw new Error("connect ECONNREFUSED postgres://app:pw@db");
    };
    failing.search = failing.summarize as never;
    const { console, inbox, errors } = setup({ journal: failing });
    inbox.stats = async () => {
      throw new Error("redis down");
    };
    const overview = await html(console, `${BASE}/`);
    expect(textOf(overview)).toContain("Could not be read right now");
    expect(overview).not.toMatch(/ECONNREFUSED|redis down|pw@db/);
    const search = await html(console, `${BASE}/search?q=h-1`);
    expect(textOf(search)).toContain("The journal could not be read right now");
    expect(errors.map((error) => error.operation).sort()).toEqual(
      ["inboxes.qris.stats", "journal.search", "journal.summarize"].sort(),
    );
  });
});

describe("dead letters and actions", () => {
  function letter(id: string, historyId: string) {
    return {
      id,
      message: {
        key: `qris:payment.success:${historyId}`,
        source: "qris" as const,
        body: qrisBody(historyId),
        receivedAt: NOW - 2 * HOUR,
      },
      attempts: [
        { at: NOW - 2 * HOUR, attempt: 1, error: "handler: stock service 503" },
        { at: NOW - HOUR, attempt: 2, error: "handler: stock service 503" },
      ],
      deadAt: NOW - HOUR,
    };
  }

  it("lists dead letters with their references, tries and a Replay form, never their body", async () => {
    const { console, inbox } = setup();
    inbox.letters = [letter("dl-7", "h-dead")];
    const page = await html(console, `${BASE}/dead-letters`);
    const text = textOf(page);
    expect(text).toContain("qris_history_id h-dead");
    expect(text).toContain("Try 2, 2026-11-27 11:00:00 UTC (1 h ago) : handler: stock service 503");
    expect(text).toContain("Replay dead letter dl-7");
    expect(page).not.toContain("payment_provider");
    // Searching the reference finds the dead letter too (by its body's reference, no journal entry needed).
    const search = await html(console, `${BASE}/search?q=h-dead`);
    expect(textOf(search)).toContain("dead letter");
    const token = tokenOf(search);
    const response = await console.fetch(
      post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "dl-7", q: "h-dead" }),
    );
    expect(response.headers.get("location")).toBe(`${BASE}/search?q=h-dead&notice=replayed`);
    expect(inbox.replayed).toEqual(["dl-7"]);
    const again = await console.fetch(post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "dl-7" }));
    expect(again.headers.get("location")).toBe(`${BASE}/dead-letters?notice=replay_missing`);
    const noInbox = await console.fetch(post(`${BASE}/actions/replay`, { csrf: token, source: "orders", id: "dl-7" }));
    expect(noInbox.headers.get("location")).toBe(`${BASE}/dead-letters?notice=replay_unavailable`);
    expect(inbox.replayed).toEqual(["dl-7"]);
  });

  it("reconciles one reference through the reconciler and tells its outcome", async () => {
    const { console, reconciler } = setup();
    const token = tokenOf(await html(console, `${BASE}/`));
    const qris = await console.fetch(
      post(`${BASE}/actions/reconcile`, { csrf: token, source: "qris", reference: "h-9" }),
    );
    expect(qris.headers.get("location")).toBe(`${BASE}/search?q=h-9&notice=reconcile_applied`);
    expect(textOf(await html(console, qris.headers.get("location") ?? ""))).toContain(
      "Reconciled: the provider reports it moved on, and the event was applied now",
    );
    reconciler.outcome = "pending";
    const payment = await console.fetch(
      post(`${BASE}/actions/reconcile`, { csrf: token, source: "payment", reference: "KPAY-1/KM/2026" }),
    );
    expect(payment.headers.get("location")).toBe(`${BASE}/search?q=KPAY-1%2FKM%2F2026&notice=reconcile_pending`);
    const orders = await console.fetch(
      post(`${BASE}/actions/reconcile`, { csrf: token, source: "orders", reference: "O-1" }),
    );
    expect(orders.headers.get("location")).toBe(`${BASE}/search?q=O-1&notice=reconcile_invalid`);
    expect(reconciler.asked).toEqual([
      { source: "qris", history_id: "h-9" },
      { source: "payment", payment_id: "KPAY-1/KM/2026" },
    ]);
  });

  it("offers no reconcile form without a reconciler, and refuses the action", async () => {
    const { console } = setup({ reconciler: undefined as never });
    const page = await html(console, `${BASE}/search?q=h-1`);
    expect(page).not.toContain("Reconcile now");
  });
});
