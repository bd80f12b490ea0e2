import { deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { contentCodingOf, decodeBody, withoutDecodedCoding } from "../../src/webhooks/transport/content-coding.js";

describe("contentCodingOf", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["identity", "identity"],
    ["gzip", "gzip"],
    ["GZip", "gzip"],
    ["x-gzip", "gzip"],
    [" deflate ", "deflate"],
    ["br", "unsupported"],
    ["zstd", "unsupported"],
    ["gzip, gzip", "unsupported"],
  ])("%j is %s", (header, coding) => {
    expect(contentCodingOf(header === undefined ? {} : { "content-encoding": header })).toBe(coding);
  });
});

describe("decodeBody", () => {
  const json = JSON.stringify({ event: "payment.success", data: { amount: 100_001 } });

  it("decodes gzip and zlib-wrapped deflate to the exact bytes", async () => {
    for (const [coding, encoded] of [
      ["gzip", gzipSync(json)],
      ["deflate", deflateSync(json)],
    ] as const) {
      expect(new TextDecoder().decode((await decodeBody(encoded, coding, 1_000)) as Uint8Array)).toBe(json);
    }
  });

  it("stops a bomb at maxBodyBytes: 413 for 10 MB that compress to a few KB", async () => {
    const bomb = gzipSync(Buffer.alloc(10_000_000, 32));
    expect(bomb.byteLength).toBeLessThan(20_000);
    const answer = await decodeBody(bomb, "gzip", 65_536);
    expect(answer).toMatchObject({ status: 413 });
    expect(JSON.parse((answer as { body: string }).body).message).toBe("Body is larger than 65536 bytes");
  });

  it("answers 400 for bytes that are not valid for the coding (plain JSON, raw deflate, truncated gzip)", async () => {
    expect(await decodeBody(new TextEncoder().encode(json), "gzip", 1_000)).toMatchObject({ status: 400 });
    expect(await decodeBody(deflateRawSync(json), "deflate", 1_000)).toMatchObject({ status: 400 });
    const gz = gzipSync(json);
    expect(await decodeBody(gz.subarray(0, gz.byteLength - 6), "gzip", 1_000)).toMatchObject({ status: 400 });
  });
});

describe("withoutDecodedCoding", () => {
  it("drops a gzip or deflate Content-Encoding a parser already undid, keeps others and the rest", () => {
    expect(withoutDecodedCoding({ "Content-Encoding": "gzip", "x-a": "1" })).toEqual({ "x-a": "1" });
    const web = withoutDecodedCoding(new Headers({ "content-encoding": "deflate", "x-a": "1" }));
    expect([...web]).toEqual([["x-a", "1"]]);
    const brotli = { "content-encoding": "br" };
    expect(withoutDecodedCoding(brotli)).toBe(brotli);
  });
});
