import { connect } from "node:net";
import { callbackKeyVerifier, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import type { FastifyInstance } from "fastify";
import type { WebhookPluginOptions } from "../src/index.js";

/** The secrets of the test apps; no response may ever show one. */
export const secrets = {
  qrisToken: "qris-token-7c41e9",
  ordersToken: "orders-token-51ab0d",
  callbackKey: "callback-key-9f2c3e",
} as const;

/** Receiver options of the three sources as a shop writes them; `limits` go to every source. */
export function sourceOptions(
  limits: { maxBodyBytes?: number; bodyReadTimeoutMs?: number } = {},
): Required<Pick<WebhookPluginOptions, "qris" | "payment" | "orders">> {
  return {
    qris: {
      verify: [tokenVerifier({ secrets: [secrets.qrisToken], in: "query", name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore() },
      ...limits,
    },
    payment: {
      verify: [callbackKeyVerifier({ secrets: [secrets.callbackKey] })],
      idempotency: { store: new MemoryIdempotencyStore() },
      ...limits,
    },
    orders: {
      verify: [tokenVerifier({ secrets: [secrets.ordersToken], in: "query", name: "token" })],
      idempotency: { store: new MemoryIdempotencyStore() },
      ...limits,
    },
  };
}

/** Every response body the tests received, to check at the end that none shows a secret. */
export const seenBodies: string[] = [];

/** A fetch that records the response body (read as text) for the secrets check. */
export async function send(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(url, init);
  const text = await response.text();
  seenBodies.push(text);
  return { status: response.status, headers: response.headers, text };
}

/** Listens on a free loopback port; returns the base URL and the port. */
export async function listen(app: FastifyInstance): Promise<{ base: string; port: number }> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return { base: `http://127.0.0.1:${address.port}`, port: address.port };
}

/** An answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from the first byte written to the whole answer. */
  elapsedMs: number;
  /** Whether the server closed the connection after answering (the client never closes it). */
  closedByServer: boolean;
}

/**
 * Writes `head` (and `body`, if any) on a raw socket that the client keeps open and never finishes, then waits for
 * the server to answer and close the connection. Rejects if the server has not closed it within 8 s.
 */
export function exchangeOnSocket(port: number, head: string, body = ""): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    let received = "";
    let answeredAt: number | undefined;
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not answer and close within 8 s: ${JSON.stringify(received)}`));
    }, 8_000);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
      if (answeredAt === undefined && parseAnswer(received) !== undefined) answeredAt = performance.now();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(giveUp);
      const answer = parseAnswer(received);
      if (answer === undefined) {
        reject(new Error(`connection closed without a whole answer: ${JSON.stringify(received)}`));
        return;
      }
      seenBodies.push(answer.body);
      resolve({ ...answer, elapsedMs: (answeredAt ?? performance.now()) - started, closedByServer: true });
    });
    // The client never half-closes: only the server can end the exchange.
    socket.write(`${head}\r\n${body}`);
  });
}

function parseAnswer(text: string): Omit<RawAnswer, "elapsedMs" | "closedByServer"> | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(end + 4);
  const length = Number(headers["content-length"] ?? 0);
  if (Buffer.byteLength(body) < length) return undefined;
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}
