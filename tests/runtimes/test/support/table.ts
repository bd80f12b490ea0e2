import { gzipSync } from "node:zlib";
import { createFixtures } from "@kirimbayar/testing";

/** The QRIS webhook token every shop is configured with. */
export const QRIS_TOKEN = "runtimes-qris-token-2026";
const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/** One HTTP request of the table, sent by the Node test process to a shop's base URL. */
export interface Step {
  name: string;
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** A function for bodies that can be sent once only (a stream). */
  body?: Uint8Array<ArrayBuffer> | string | (() => ReadableStream<Uint8Array<ArrayBuffer>>);
  /**
   * The server may answer before it read the whole body and then close the connection (RFC 9112 §9.6), which the
   * client can see as a reset instead of the answer; such a step is sent again, at most 3 times in all, on a reset.
   */
  earlyAnswer?: boolean;
}

/** What the table compares between runtimes: status, the headers that matter, and the JSON body. */
export interface Answer {
  step: string;
  status: number;
  contentType: string | null;
  allow: string | null;
  body: unknown;
}

/** Step names the tests refer to. */
export const CLIENT_CALL_WRAPPER = "client call: generateQris, fetch option wrapping the global fetch";
export const CLIENT_CALL_DEFAULT = "client call: generateQris, default (global) fetch as documented";

const fixtures = createFixtures({ seed: "runtimes" });
const paid = JSON.stringify(fixtures.qrisPaymentSuccess({ amount: 100_123 }));
const paidGzipped = JSON.stringify(fixtures.qrisPaymentSuccess({ amount: 250_077 }));
/** History ids of the two verified deliveries, in the order the table sends them. */
export const TABLE_HISTORY_IDS = [paid, paidGzipped].map((body) => String(JSON.parse(body).data.qris_history_id));

const json = { "content-type": "application/json" };
const webhook = `/webhooks/qris?token=${QRIS_TOKEN}`;
const tooLarge = `{"pad":"${"x".repeat(DEFAULT_MAX_BODY_BYTES)}"}`;

/** A body without Content-Length (chunked): core counts the bytes while they stream. */
function chunked(text: string, chunkBytes = 8 * 1024): () => ReadableStream<Uint8Array<ArrayBuffer>> {
  const bytes = new TextEncoder().encode(text);
  return () => {
    let offset = 0;
    return new ReadableStream({
      pull(controller) {
        if (offset >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(offset, offset + chunkBytes));
        offset += chunkBytes;
      },
    });
  };
}

/**
 * The requests, in order: each runtime gets exactly these and must answer exactly like Node. The client call with
 * the wrapper comes first so that the fake's seeded answers do not depend on whether the default-fetch call got
 * through.
 */
export const steps: Step[] = [
  { name: "verified payment.success", path: webhook, headers: json, body: paid },
  { name: "handler ran once", method: "GET", path: "/events" },
  { name: "same delivery again", path: webhook, headers: json, body: paid },
  { name: "forged token", path: "/webhooks/qris?token=forged-token", headers: json, body: paid },
  { name: "no token", path: "/webhooks/qris", headers: json, body: paid },
  { name: "GET", method: "GET", path: webhook },
  { name: "wrong content type", path: webhook, headers: { "content-type": "text/plain" }, body: paid },
  { name: "invalid JSON", path: webhook, headers: json, body: '{"event": "payment.success",' },
  {
    name: "not UTF-8",
    path: webhook,
    headers: json,
    body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
  },
  { name: "too large (Content-Length)", path: webhook, headers: json, body: tooLarge, earlyAnswer: true },
  {
    name: "too large (chunked, no Content-Length)",
    path: webhook,
    headers: json,
    body: chunked(tooLarge),
    earlyAnswer: true,
  },
  {
    name: "verified delivery, gzip-encoded",
    path: webhook,
    headers: { ...json, "content-encoding": "gzip" },
    body: new Uint8Array(gzipSync(paidGzipped)),
  },
  { name: "handler ran for both, once each", method: "GET", path: "/events" },
  { name: CLIENT_CALL_WRAPPER, method: "GET", path: "/client/qris?amount=75000&fetch=wrapper" },
  { name: CLIENT_CALL_DEFAULT, method: "GET", path: "/client/qris?amount=50000" },
];

const MAX_ATTEMPTS = 3;

function isConnectionReset(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return ["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"].includes(cause?.code ?? "");
}

async function send(baseUrl: string, step: Step): Promise<{ response: Response; text: string }> {
  for (let attempt = 1; ; attempt++) {
    const body = typeof step.body === "function" ? step.body() : step.body;
    const init: RequestInit & { duplex?: "half" } = {
      method: step.method ?? "POST",
      headers: step.headers ?? {},
      signal: AbortSignal.timeout(10_000),
    };
    if (body !== undefined) init.body = body;
    if (body instanceof ReadableStream) init.duplex = "half";
    try {
      const response = await fetch(`${baseUrl}${step.path}`, init);
      return { response, text: await response.text() };
    } catch (error) {
      if (step.earlyAnswer && attempt < MAX_ATTEMPTS && isConnectionReset(error)) continue;
      throw new Error(`step "${step.name}": ${init.method} ${step.path} failed (attempt ${attempt})`, {
        cause: error,
      });
    }
  }
}

/** Sends the table in order and returns every answer. */
export async function runTable(baseUrl: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (const step of steps) {
    const { response, text } = await send(baseUrl, step);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { notJson: text };
    }
    answers.push({
      step: step.name,
      status: response.status,
      contentType: response.headers.get("content-type"),
      allow: response.headers.get("allow"),
      body: parsed,
    });
  }
  return answers;
}
