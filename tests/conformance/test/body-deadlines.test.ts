// The half of the HTTP contract a request table over supertest cannot show: answers given *before* the body is
// read. A declared `Content-Length` over `maxBodyBytes` gets 413 at once (nothing of the body needed), and a body
// that stalls or is shorter than declared gets 408 within the receiver's `bodyReadTimeoutMs`, on every adapter and
// on `receiver.fetch`. Servers are spoken to over raw sockets, so the client can stall exactly as a broken peer does.
import { connect } from "node:net";
import { createWebhookReceiver } from "@kirimbayar/core/webhooks";
import { afterEach, describe, expect, inject, it } from "vitest";
import { adapters, attachRecorder, type RunningApp } from "./adapters.js";
import { json, qrisPaid, secrets, sourceOptions } from "./fixtures.js";
import { HandlerRecorder } from "./recorder.js";

const DEADLINE_MS = 600;
const path = `/webhooks/qris?token=${secrets.qrisToken}`;

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  elapsedMs: number;
}

/** One stalled delivery: the head, the body bytes that are sent, and the `Content-Length` (none: chunked). */
interface StalledDelivery {
  sent: string;
  declaredLength?: number;
}

/** How each kind of app is sent a stalled request. */
type Send = (delivery: StalledDelivery) => Promise<RawAnswer>;

/**
 * Writes the request head and part of its body on a socket that stays open, and reads the answer. The body never
 * ends: only the server can settle the exchange, and it must do so by itself.
 */
function sendOnSocket(port: number, delivery: StalledDelivery): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, "127.0.0.1");
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error("no answer within 8 s"));
    }, 8_000);
    let received = "";
    const done = () => {
      const answer = parseAnswer(received);
      if (answer === undefined) return;
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ ...answer, elapsedMs: performance.now() - started });
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
      done();
    });
    socket.on("close", () => {
      clearTimeout(giveUp);
      const answer = parseAnswer(received);
      if (answer) resolve({ ...answer, elapsedMs: performance.now() - started });
      else reject(new Error(`connection closed without a full answer: ${JSON.stringify(received)}`));
    });
    socket.on("error", () => {});
    const length =
      delivery.declaredLength === undefined
        ? "transfer-encoding: chunked\r\n"
        : `content-length: ${delivery.declaredLength}\r\n`;
    const body =
      delivery.declaredLength === undefined
        ? `${Buffer.byteLength(delivery.sent).toString(16)}\r\n${delivery.sent}\r\n`
        : delivery.sent;
    socket.write(`POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n${length}\r\n${body}`);
  });
}

function parseAnswer(text: string): Omit<RawAnswer, "elapsedMs"> | undefined {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const status = Number(statusLine?.split(" ")[1]);
  const rest = text.slice(end + 4);
  if (headers["transfer-encoding"] === "chunked") {
    const body = dechunk(rest);
    return body === undefined ? undefined : { status, headers, body };
  }
  const length = Number(headers["content-length"]);
  if (!Number.isFinite(length) || Buffer.byteLength(rest) < length) return undefined;
  return { status, headers, body: rest };
}

// The body of a chunked answer once its last (empty) chunk arrived; `undefined` until then.
function dechunk(text: string): string | undefined {
  let body = "";
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf("\r\n", at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (size === 0) return body;
    if (text.length < lineEnd + 2 + size + 2) return undefined;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/** A Web `Request` whose body stream hands over `sent` and then, unless that is the whole body, never closes. */
function stalledRequest(delivery: StalledDelivery): Request {
  const headers: Record<string, string> = { ...json };
  if (delivery.declaredLength !== undefined) headers["content-length"] = String(delivery.declaredLength);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(delivery.sent);
      controller.enqueue(bytes);
      // A body as long as declared is whole: only then does the stream end.
      if (delivery.declaredLength === bytes.byteLength) controller.close();
    },
  });
  return new Request(`http://127.0.0.1${path}`, { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

async function answerOf(response: Response, started: number): Promise<RawAnswer> {
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
    elapsedMs: performance.now() - started,
  };
}

interface Target {
  name: string;
  start(recorder: HandlerRecorder): Promise<{ send: Send; close(): Promise<void> }>;
}

const selected = inject("conformanceAdapters");
const adapterTargets: Target[] = adapters
  .filter((adapter) => !selected || selected.includes(adapter.name))
  .map((adapter) => ({
    name: adapter.name,
    async start(recorder) {
      const options = sourceOptions(undefined, { bodyReadTimeoutMs: DEADLINE_MS });
      const app: RunningApp = await adapter.start(options, recorder);
      const { server, fetch } = app;
      if (server !== undefined) {
        const { port } = server.address() as { port: number };
        return { send: (delivery) => sendOnSocket(port, delivery), close: () => app.close() };
      }
      if (fetch === undefined) throw new Error(`${adapter.name}: neither a server nor a Web entry to test`);
      // Hono without a server: `app.request()` takes the Request as a Web runtime hands it over.
      return {
        send: async (delivery) => {
          const started = performance.now();
          return answerOf(await fetch(stalledRequest(delivery)), started);
        },
        close: () => app.close(),
      };
    },
  }));

// `receiver.fetch`, the entry Bun, Deno and Workers mount directly.
const fetchTarget: Target = {
  name: "receiver.fetch",
  async start(recorder) {
    const options = sourceOptions(undefined, { bodyReadTimeoutMs: DEADLINE_MS });
    const qris = createWebhookReceiver({ ...options.qris, source: "qris" });
    attachRecorder({ qris }, recorder);
    return {
      send: async (delivery) => {
        const started = performance.now();
        return answerOf(await qris.fetch(stalledRequest(delivery)), started);
      },
      close: async () => {},
    };
  },
};

const targets = selected ? adapterTargets : [...adapterTargets, fetchTarget];
// Half the deadline: "at once" must not be the deadline firing.
const AT_ONCE_MS = DEADLINE_MS / 2;

describe.each(targets)("$name", (target) => {
  let running: { close(): Promise<void> } | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  async function start() {
    const recorder = new HandlerRecorder();
    const app = await target.start(recorder);
    running = app;
    return { recorder, send: app.send };
  }

  it("answers a declared Content-Length over maxBodyBytes with 413 at once, before any body byte", async () => {
    const { recorder, send } = await start();
    const answer = await send({ sent: "", declaredLength: 10_000_000 });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ success: false, message: "Body is larger than 65536 bytes" });
    expect(answer.elapsedMs).toBeLessThan(AT_ONCE_MS);
    expect(recorder.calls).toEqual([]);
  });

  it("answers a body shorter than its Content-Length with 408 when the body-read deadline passes", async () => {
    const { recorder, send } = await start();
    const body = qrisPaid("h-stall");
    const answer = await send({ sent: body.slice(0, 40), declaredLength: Buffer.byteLength(body) });
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, message: expect.stringMatching(/600 ms/) });
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS + 2_000);
    expect(recorder.calls).toEqual([]);
  });

  it("answers a chunked body that stalls mid-way with 408 when the body-read deadline passes", async () => {
    const { recorder, send } = await start();
    const answer = await send({ sent: qrisPaid("h-chunk").slice(0, 40) });
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(answer.elapsedMs).toBeLessThan(DEADLINE_MS + 2_000);
    expect(recorder.calls).toEqual([]);
  });

  it("still takes a whole delivery (the deadline is for the body only, not the handler)", async () => {
    const { recorder, send } = await start();
    const body = qrisPaid("h-whole");
    const answer = await send({ sent: body, declaredLength: Buffer.byteLength(body) });
    expect(answer.status).toBe(200);
    expect(recorder.calls).toEqual(["qris:payment.success:h-whole"]);
  });
});
