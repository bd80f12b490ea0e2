// Issue 38's two console defects, over real HTTP: a handler error carrying the webhook token at character 484 showed
// 15 of its 22 characters (the journal cut the error at 500 before the secret was masked), and a malformed Host was
// answered 500 with a stack trace before authorize ran.
import { connect } from "node:net";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { describe, expect, it } from "vitest";
import { createWebhookConsole } from "../src/index.js";
import { BASE, entry, filler, NOW, ORIGIN, piecesOf, SHORT_TOKEN } from "./helpers.js";
import { serve } from "./node-server.js";

const quiet = { warn: () => {}, error: () => {} };

/** A QR receiver on `journal` whose handler fails with the token at `at` of the error summary (for history `h-<at>`). */
function leakyReceiver(journal: MemoryDeliveryJournal) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: SHORT_TOKEN, in: "query" })],
    logger: quiet,
    journal,
  }).on("payment.success", (event) => {
    const at = Number(String(event.data.qris_history_id).slice(2));
    // "Error: " is 7 characters of the summary.
    throw new Error(`${filler(at - 7)}${SHORT_TOKEN} was refused by the orders service, and the message goes on`);
  });
}

const delivery = (at: number) => ({
  method: "POST",
  url: `/webhooks/qris?token=${SHORT_TOKEN}`,
  headers: { "content-type": "application/json" },
  rawBody: JSON.stringify({
    event: "payment.success",
    timestamp: "2026-11-27T12:00:00Z",
    data: { qris_history_id: `h-${at}`, amount: 10_000, status: "paid" },
  }),
});

/** Sends raw bytes (fetch would refuse a malformed Host) and reads the answer, bounded by 5 s. */
function rawRequest(origin: string, head: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.setTimeout(5_000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
  });
}

describe("a webhook token cut at the journal's limit", () => {
  it("never shows a piece of it, wherever the cut falls, even when the console is not given the token", async () => {
    const journal = new MemoryDeliveryJournal();
    const receiver = leakyReceiver(journal);
    for (let at = 470; at <= 500; at++) expect((await receiver.handle(delivery(at))).status).toBe(500);
    await journal.flush();
    // No `secrets`: the receiver's journal masked its own token when it recorded the entries.
    const webConsole = createWebhookConsole({ journal, basePath: BASE, authorize: () => "alice" });
    const server = await serve((request) => webConsole.fetch(request));
    try {
      for (let at = 470; at <= 500; at++) {
        const page = await fetch(`${server.origin}${BASE}/search?q=h-${at}`);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain('<dt>Error</dt><dd class="bad">Error: the shop&#39;s order');
        expect(piecesOf(SHORT_TOKEN, html), `token at ${at}`).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });

  it("masks a piece of a secret it is given at the cut of an entry written before (as issue 38's journal wrote it)", async () => {
    const journal = new MemoryDeliveryJournal({ clock: () => NOW });
    // Cut at 500 first, then masked by patterns only: 15 of the token's 22 characters, then the ellipsis.
    const error = `Error: ${filler(477)}${SHORT_TOKEN.slice(0, 15)}…`;
    await journal.record([
      entry({ at: NOW, references: { qris_history_id: "h-old" }, outcome: "failed", httpStatus: 500, error }),
      entry({
        at: NOW,
        references: { qris_history_id: "h-old" },
        outcome: "failed",
        httpStatus: 500,
        error: `…${SHORT_TOKEN.slice(-9)} was refused`,
      }),
    ]);
    const webConsole = createWebhookConsole({
      journal,
      basePath: BASE,
      authorize: () => "alice",
      secrets: [SHORT_TOKEN],
      clock: () => NOW,
    });
    const server = await serve((request) => webConsole.fetch(request));
    try {
      const html = await (await fetch(`${server.origin}${BASE}/search?q=h-old`)).text();
      expect(piecesOf(SHORT_TOKEN, html)).toEqual([]);
      expect(html).toContain("[REDACTED]…");
      expect(html).toContain("…[REDACTED] was refused");
    } finally {
      await server.close();
    }
  });
});

/** Hosts no console can stand on: spaces, an unclosed IPv6 literal, user info, a path, a bad port, escapes. */
const MALFORMED_HOSTS = ["a b", "[::1", "a@b", "evil.example/x", "a:99999", "[zz]", "a\\b", "%41", "a#b", "a?b"];

/** A console on an empty journal whose `authorize` lets "alice" in and counts how often it was asked. */
function countingConsole() {
  let asked = 0;
  const webConsole = createWebhookConsole({
    journal: new MemoryDeliveryJournal(),
    basePath: BASE,
    authorize: () => {
      asked++;
      return "alice";
    },
  });
  return { webConsole, asked: () => asked };
}

describe("a malformed Host", () => {
  it("is answered 400, before authorize runs, on every route and method", async () => {
    const { webConsole, asked } = countingConsole();
    for (const host of MALFORMED_HOSTS) {
      for (const [method, path] of [
        ["GET", BASE],
        ["GET", `${BASE}/search?q=x`],
        ["POST", `${BASE}/actions/reconcile`],
        ["GET", "/elsewhere"],
      ] as const) {
        const answer = await webConsole.fetch(new Request(`${ORIGIN}${path}`, { method, headers: { host } }));
        expect(answer.status, `${method} ${path} Host: ${host}`).toBe(400);
        expect(await answer.text()).toBe("Bad request: malformed Host header");
        expect(answer.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
      }
    }
    expect(asked()).toBe(0);
    for (const host of ["shop.example", "shop.example:8443", "127.0.0.1:3000", "[::1]:8080", "localhost"]) {
      const answer = await webConsole.fetch(new Request(`${ORIGIN}${BASE}`, { headers: { host } }));
      expect(answer.status, host).toBe(200);
    }
    expect(asked()).toBe(5);
  });

  it("is answered 400 with no stack trace over real HTTP", async () => {
    const { webConsole, asked } = countingConsole();
    const server = await serve((request) => webConsole.fetch(request));
    try {
      for (const host of MALFORMED_HOSTS) {
        const answer = await rawRequest(
          server.origin,
          `GET ${BASE} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        );
        expect(answer.status, `Host: ${host}\n${answer.text}`).toBe(400);
        expect(answer.text).toContain("Bad request: malformed Host header");
        expect(answer.text).not.toMatch(/\bat \S+ \(|node_modules|\.[cm]?[jt]s:\d+/);
      }
      expect(asked()).toBe(0);
    } finally {
      await server.close();
    }
  });
});
