import { describe, expect, it } from "vitest";
import { createFakeProvider, ManualClock, RealClock, SeededRandom, signCallbackBody } from "../src/index.js";

describe("SeededRandom", () => {
  it("is reproducible per seed and stays in range", () => {
    const a = new SeededRandom("seed");
    const b = new SeededRandom("seed");
    const drawsA = Array.from({ length: 50 }, () => a.int(1, 6));
    expect(drawsA).toEqual(Array.from({ length: 50 }, () => b.int(1, 6)));
    expect(drawsA.every((n) => n >= 1 && n <= 6)).toBe(true);
    expect(new Set(drawsA).size).toBeGreaterThan(3);
    expect(new SeededRandom("other").uuid()).not.toBe(new SeededRandom("seed").uuid());
    expect(() => a.pick([])).toThrow(RangeError);
  });
});

describe("ManualClock", () => {
  it("fires timers in due order during advance, including ones scheduled by other timers", async () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimer(() => fired.push(`b@${clock.now()}`), 200);
    clock.setTimer(() => {
      fired.push(`a@${clock.now()}`);
      clock.setTimer(() => fired.push(`c@${clock.now()}`), 50);
    }, 100);
    const cancelled = clock.setTimer(() => fired.push("never"), 10);
    clock.clearTimer(cancelled);
    await clock.advance(149);
    expect(fired).toEqual(["a@100"]);
    await clock.advance(100);
    expect(fired).toEqual(["a@100", "c@150", "b@200"]);
    expect(clock.now()).toBe(249);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
  });

  it("RealClock.advance skips ahead and fires what falls due", async () => {
    const clock = new RealClock();
    let fired = false;
    clock.setTimer(() => {
      fired = true;
    }, 3_600_000);
    const before = clock.now();
    await clock.advance(3_600_000);
    expect(fired).toBe(true);
    expect(clock.now() - before).toBeGreaterThanOrEqual(3_600_000);
  });
});

describe("signCallbackBody", () => {
  it("matches the well-known HMAC-SHA256 vector, in hex and base64", () => {
    const message = "The quick brown fox jumps over the lazy dog";
    expect(signCallbackBody(message, "key")).toBe("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
    expect(signCallbackBody(message, "key", "base64")).toBe("97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg=");
  });
});

describe("control API", () => {
  it("is off by default and drives the world when enabled", async () => {
    const closed = createFakeProvider();
    expect((await closed.fetch(`${closed.baseUrl}/__fake/deliveries`)).status).toBe(404);
    const provider = createFakeProvider({ controlApi: true });
    const order = await (
      await provider.fetch(`${provider.baseUrl}/__fake/orders`, {
        method: "POST",
        body: JSON.stringify({ courier: "tiki" }),
      })
    ).json();
    expect(order.courier).toBe("tiki");
    const moved = await provider.fetch(`${provider.baseUrl}/__fake/orders/status`, {
      method: "POST",
      body: JSON.stringify({ order_no: order.orderNo, status: "Dikirim" }),
    });
    expect((await moved.json()).status).toBe("Dikirim");
    const missing = await provider.fetch(`${provider.baseUrl}/__fake/qris/pay`, {
      method: "POST",
      body: JSON.stringify({ history_id: "nope" }),
    });
    expect(missing.status).toBe(404);
    const advanced = await provider.fetch(`${provider.baseUrl}/__fake/clock/advance`, {
      method: "POST",
      body: JSON.stringify({ ms: 60_000 }),
    });
    expect((await advanced.json()).now).toBe("2026-01-15T03:01:00.000Z");
  });
});
