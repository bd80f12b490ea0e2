import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { readNodeBody, readNodeBodyThen } from "../../src/webhooks/transport/read-node-body.js";

const limits = { maxBodyBytes: 10, bodyReadTimeoutMs: 200 };

describe("readNodeBody", () => {
  it("returns the bytes of a whole body, joined into one Uint8Array", async () => {
    const stream = new PassThrough();
    const read = readNodeBody(stream, limits);
    stream.write("hello ");
    stream.end("you!");
    const bytes = await read;
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(bytes as Uint8Array)).toBe("hello you!");
  });

  it("answers 413 past maxBodyBytes, but only once the client finished sending (it drains the rest)", async () => {
    const stream = new PassThrough();
    let settled = false;
    const read = readNodeBody(stream, limits).finally(() => {
      settled = true;
    });
    stream.write("0123456789abc");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    stream.end("more");
    const answer = await read;
    expect(answer).toMatchObject({ status: 413, headers: { connection: "close" } });
    expect(JSON.parse((answer as { body: string }).body).message).toBe("Body is larger than 10 bytes");
  });

  it("answers 408 when the body is not whole within the deadline, and 413 if it was already too large", async () => {
    vi.useFakeTimers();
    try {
      const stalled = new PassThrough();
      const read = readNodeBody(stalled, limits);
      stalled.write("{");
      await vi.advanceTimersByTimeAsync(199);
      const early = await Promise.race([read, Promise.resolve("pending")]);
      expect(early).toBe("pending");
      await vi.advanceTimersByTimeAsync(1);
      expect(await read).toMatchObject({ status: 408, headers: { connection: "close" } });

      const oversize = new PassThrough();
      const tooLong = readNodeBody(oversize, limits);
      oversize.write("0123456789abc");
      await vi.advanceTimersByTimeAsync(200);
      expect(await tooLong).toMatchObject({ status: 413 });
    } finally {
      vi.useRealTimers();
    }
  });

  it("arms no deadline for a body already received whole (Node's req.complete)", async () => {
    vi.useFakeTimers();
    try {
      const received = Object.assign(new PassThrough(), { complete: true });
      const read = readNodeBody(received, limits);
      expect(vi.getTimerCount()).toBe(0);
      received.end("{}");
      expect(new TextDecoder().decode((await read) as Uint8Array)).toBe("{}");
    } finally {
      vi.useRealTimers();
    }
  });

  it("answers 400 when the stream fails or closes before its end, and never throws on a later error", async () => {
    const failing = new PassThrough();
    const read = readNodeBody(failing, limits);
    failing.write("{");
    failing.destroy(new Error("aborted"));
    expect(await read).toMatchObject({ status: 400 });
    // An error after settling has a listener: no unhandled 'error' event.
    expect(() => failing.emit("error", new Error("again"))).not.toThrow();
  });
});

describe("readNodeBodyThen", () => {
  it("calls back once with the bytes, not again when the stream then closes or fails, and clears its deadline", async () => {
    vi.useFakeTimers();
    try {
      const stream = new PassThrough();
      const outcomes: unknown[] = [];
      readNodeBodyThen(stream, limits, (outcome) => outcomes.push(outcome));
      expect(vi.getTimerCount()).toBe(1);
      stream.end("{}");
      await vi.advanceTimersByTimeAsync(0);
      expect(outcomes).toHaveLength(1);
      expect(new TextDecoder().decode(outcomes[0] as Uint8Array)).toBe("{}");
      expect(vi.getTimerCount()).toBe(0);
      stream.emit("close");
      stream.emit("error", new Error("late"));
      await vi.advanceTimersByTimeAsync(limits.bodyReadTimeoutMs);
      expect(outcomes).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("calls back once with core's answer for a stalled body (408) and for one past maxBodyBytes (413)", async () => {
    vi.useFakeTimers();
    try {
      const stalled = new PassThrough();
      const answers: unknown[] = [];
      readNodeBodyThen(stalled, limits, (outcome) => answers.push(outcome));
      stalled.write("{");
      await vi.advanceTimersByTimeAsync(limits.bodyReadTimeoutMs);
      expect(answers).toEqual([expect.objectContaining({ status: 408 })]);
      stalled.end("}");
      await vi.advanceTimersByTimeAsync(0);
      expect(answers).toHaveLength(1);

      const oversize = new PassThrough();
      const tooLarge: unknown[] = [];
      readNodeBodyThen(oversize, limits, (outcome) => tooLarge.push(outcome));
      oversize.end("0123456789abc");
      await vi.advanceTimersByTimeAsync(0);
      expect(tooLarge).toEqual([expect.objectContaining({ status: 413 })]);
    } finally {
      vi.useRealTimers();
    }
  });
});
