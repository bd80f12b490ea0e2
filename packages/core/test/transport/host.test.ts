import { describe, expect, it } from "vitest";
import { isWellFormedHost, malformedHostResponse } from "../../src/webhooks/transport/host.js";

describe("isWellFormedHost", () => {
  it.each(["shop.example", "shop.example:8443", "127.0.0.1:3000", "[::1]", "[::1]:65535", "a-b_c~d.e"])(
    "accepts %s",
    (host) => {
      expect(isWellFormedHost(host)).toBe(true);
    },
  );

  it.each(["", "a b", "[::1", "a@b", "shop.example/x", "shop?x", "shop#x", "shop:65536", "shop:123456", "[zz]"])(
    "refuses %j",
    (host) => {
      expect(isWellFormedHost(host)).toBe(false);
    },
  );
});

describe("malformedHostResponse", () => {
  it("is a fresh 400 in plain text, not cached, closing the connection", async () => {
    const answer = malformedHostResponse();
    expect(answer.status).toBe(400);
    expect(Object.fromEntries(answer.headers)).toEqual({
      "content-type": "text/plain; charset=utf-8",
      "cache-control": "no-store",
      connection: "close",
    });
    expect(await answer.text()).toBe("Bad request: malformed Host header");
    expect(malformedHostResponse()).not.toBe(answer);
  });
});
