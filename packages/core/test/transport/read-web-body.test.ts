import { describe, expect, it } from "vitest";
import { readWebBody } from "../../src/webhooks/transport/read-web-body.js";

const limits = { maxBodyBytes: 10, bodyReadTimeoutMs: 150 };

function streamOf(chunks: string[], close = true): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean } {
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      if (close) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

describe("readWebBody", () => {
  it("returns the bytes of a whole body, joined, and an empty body for null", async () => {
    const bytes = await readWebBody(streamOf(["ab", "cd"]).stream, limits);
    expect(new TextDecoder().decode(bytes as Uint8Array)).toBe("abcd");
    expect(await readWebBody(null, limits)).toEqual(new Uint8Array(0));
  });

  it("answers 413 as soon as the count passes maxBodyBytes and cancels the stream", async () => {
    const source = streamOf(["0123456", "789abc"], false);
    expect(await readWebBody(source.stream, limits)).toMatchObject({ status: 413, headers: { connection: "close" } });
    expect(source.cancelled()).toBe(true);
  });

  it("answers 408 for a stream that stalls, within the deadline, and cancels it", async () => {
    const source = streamOf(["{"], false);
    const started = performance.now();
    const answer = await readWebBody(source.stream, limits);
    expect(answer).toMatchObject({ status: 408 });
    expect(JSON.parse((answer as { body: string }).body).message).toMatch(/150 ms/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(source.cancelled()).toBe(true);
  });

  it("answers 400 for a stream that errors", async () => {
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.error(new Error("reset"));
      },
    });
    expect(await readWebBody(stream, limits)).toMatchObject({ status: 400 });
  });
});
