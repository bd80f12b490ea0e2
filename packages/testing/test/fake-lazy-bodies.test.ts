// The fake's requests (what provider.fetch hands its app) and answers keep their body as text and make the stream only
// when asked (src/fake/lazy-text-body.ts). Read whichever way, in whichever order, they must behave as the real
// `Request` or `Response` holding the same body: each case below runs on both and compares what comes out.
import { describe, expect, it } from "vitest";
import { inProcessRequest } from "../src/fake/in-process-request.js";
import { jsonReply } from "../src/fake/json-reply.js";

type Holder = Request | Response;
/** What one way of reading gave: the value, or the kind of error it threw or rejected with. */
type Outcome = { value: unknown } | { error: string };

async function outcome(read: () => unknown): Promise<Outcome> {
  try {
    return { value: await read() };
  } catch (error) {
    return { error: (error as Error).constructor.name };
  }
}

async function streamText(body: ReadableStream<Uint8Array> | null): Promise<string | null> {
  if (body === null) return null;
  const chunks: Uint8Array[] = [];
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

/** Ways of reading a body one after the other; each step's outcome and `bodyUsed` after it are compared. */
const READS: Record<string, (holder: Holder) => unknown> = {
  text: (h) => h.text(),
  json: (h) => h.json(),
  arrayBuffer: async (h) => new TextDecoder().decode(await h.arrayBuffer()),
  blob: async (h) => (await h.blob()).text(),
  formData: async (h) => [...(await h.formData()).entries()],
  body: (h) => streamText(h.body),
  clone: async (h) => {
    const copy = h.clone();
    return { status: (copy as Response).status ?? null, text: await copy.text() };
  },
  bytes: async (h) => {
    const bytes = (h as Holder & { bytes?: () => Promise<Uint8Array> }).bytes;
    if (typeof bytes !== "function") throw new TypeError("no bytes() on this Node");
    return new TextDecoder().decode(await bytes.call(h));
  },
};

const SEQUENCES: string[][] = [
  ["text", "text"],
  ["json", "json"],
  ["text", "arrayBuffer"],
  ["text", "clone"],
  ["text", "body"],
  ["arrayBuffer", "text"],
  ["arrayBuffer", "json"],
  ["blob", "blob"],
  ["formData", "text"],
  ["body", "text"],
  ["body", "body"],
  ["clone", "text"],
  ["clone", "clone", "json"],
  ["bytes", "text"],
];

async function trace(holder: Holder, sequence: string[]): Promise<unknown[]> {
  const steps: unknown[] = [{ bodyUsed: holder.bodyUsed }];
  for (const name of sequence) {
    const read = READS[name] as (holder: Holder) => unknown;
    steps.push({ [name]: await outcome(() => read(holder)), bodyUsed: holder.bodyUsed });
  }
  return steps;
}

const JSON_TEXT = JSON.stringify({ qris_id: 1, amount: 50_000 });
const FORM_TEXT = "courier=jne&weight=1200";
const URL_ = "https://fake.kirimbayar.test/user/api/v1/qr/generate-qris";

describe("the requests provider.fetch hands the fake's app", () => {
  const bodies = [
    { name: "a JSON body", text: JSON_TEXT, headers: { "content-type": "application/json" } },
    { name: "a form body", text: FORM_TEXT, headers: { "content-type": "application/x-www-form-urlencoded" } },
    { name: "a body with no content type", text: JSON_TEXT, headers: {} },
  ];
  for (const body of bodies) {
    it.each(SEQUENCES.map((sequence) => [sequence.join(" then "), sequence]))(
      `read like a real Request (${body.name}): %s`,
      async (_, sequence) => {
        const init = { method: "POST", headers: new Headers(body.headers), body: body.text };
        const standIn = inProcessRequest(URL_, init);
        expect(standIn).not.toBeInstanceOf(Request); // the stand-in itself, not a Request made for a body it could not keep
        const real = new Request(URL_, { method: "POST", headers: new Headers(body.headers), body: body.text });
        expect(await trace(standIn, sequence as string[])).toEqual(await trace(real, sequence as string[]));
      },
    );
  }

  it("read a GET's missing body as a real Request does", async () => {
    for (const sequence of [
      ["text", "text"],
      ["body", "text"],
      ["clone", "arrayBuffer"],
    ]) {
      const standIn = inProcessRequest(URL_, { method: "GET" });
      expect(await trace(standIn, sequence)).toEqual(await trace(new Request(URL_, { method: "GET" }), sequence));
    }
  });
});

describe("the fake's JSON answers", () => {
  it.each(SEQUENCES.map((sequence) => [sequence.join(" then "), sequence]))(
    "read like a real Response: %s",
    async (_, sequence) => {
      const payload = { success: true, data: { payment_status: "unpaid" } };
      const reply = jsonReply(payload, 201, { "x-ratelimit-remaining": "599" });
      const real = new Response(JSON.stringify(payload), {
        status: 201,
        headers: { "content-type": "application/json", "x-ratelimit-remaining": "599" },
      });
      expect(await trace(reply, sequence as string[])).toEqual(await trace(real, sequence as string[]));
    },
  );
});
