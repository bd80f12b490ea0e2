// The graceful shutdown's settings of the example shops (issue 37), their probes, and the deploy drill's delay.
import { describe, expect, it } from "vitest";
import { loadShopConfig, ShopConfigError } from "../src/config.js";
import { liveness, readiness } from "../src/health.js";
import { drillDelay } from "../src/receivers.js";
import { VALID_ENV } from "./support/env.js";

describe("the shops' shutdown settings", () => {
  it("default to a 10 s grace period, no not-ready delay, no drill delay and no inbox", () => {
    expect(loadShopConfig(VALID_ENV)).toMatchObject({
      shutdown: { graceMs: 10_000, unreadyDelayMs: 0 },
      webhookDelayMs: 0,
      inbox: undefined,
    });
  });

  it("read SHOP_SHUTDOWN_GRACE_MS, SHOP_SHUTDOWN_UNREADY_DELAY_MS, SHOP_WEBHOOK_DELAY_MS and SHOP_INBOX", () => {
    const config = loadShopConfig({
      ...VALID_ENV,
      SHOP_SHUTDOWN_GRACE_MS: "400",
      SHOP_SHUTDOWN_UNREADY_DELAY_MS: "800",
      SHOP_WEBHOOK_DELAY_MS: "250",
      SHOP_INBOX: "pg-boss",
      DATABASE_URL: "postgres://shop@127.0.0.1:5432/shop",
    });
    expect(config).toMatchObject({
      shutdown: { graceMs: 400, unreadyDelayMs: 800 },
      webhookDelayMs: 250,
      inbox: "pg-boss",
    });
  });

  it("refuse a negative grace period, an unknown inbox, and an inbox without a PostgreSQL server", () => {
    expect(() => loadShopConfig({ ...VALID_ENV, SHOP_SHUTDOWN_GRACE_MS: "-1" })).toThrow(ShopConfigError);
    expect(() => loadShopConfig({ ...VALID_ENV, SHOP_INBOX: "sqs" })).toThrow(/SHOP_INBOX must be pg-boss/);
    expect(() => loadShopConfig({ ...VALID_ENV, SHOP_INBOX: "pg-boss" })).toThrow(/set DATABASE_URL to a postgres/);
  });
});

describe("the probes", () => {
  it("answer readiness 503 once the shutdown began, liveness 200 throughout", () => {
    expect(readiness({ ready: true })).toEqual({ status: 200, body: { status: "ready" } });
    expect(readiness({ ready: false })).toEqual({ status: 503, body: { status: "shutting_down" } });
    expect(liveness().status).toBe(200);
  });
});

describe("drillDelay", () => {
  it("waits at most its delay, and fails at once when the shutdown's signal is aborted", async () => {
    const startedAt = performance.now();
    await drillDelay({ delayMs: 50 }, new AbortController().signal);
    expect(performance.now() - startedAt).toBeLessThan(500);
    const shutdown = new AbortController();
    const waiting = drillDelay({ delayMs: 60_000, signal: shutdown.signal }, new AbortController().signal);
    shutdown.abort(new Error("grace period over"));
    await expect(waiting).rejects.toThrow("grace period over");
    await expect(drillDelay(undefined, new AbortController().signal)).resolves.toBeUndefined();
  });
});
