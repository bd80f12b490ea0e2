import { describe, expect, it } from "vitest";
import { applyEvent } from "../src/index.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess } from "./support/webhook-requests.js";

const quiet = { warn: () => {}, error: () => {} };
const receiverOf = () =>
  createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: ["t"], in: "query" })], logger: quiet });

// applyEvent is what the reconciler calls with the event it built from a status response.
describe("applyEvent(receiver, payload)", () => {
  it("applies an event once, then answers already_applied under the same key", async () => {
    const applied: string[] = [];
    const receiver = receiverOf().on("payment.success", (event, ctx) => {
      applied.push(`${event.data.qris_history_id} ${ctx.origin}`);
    });
    const event = qrisSuccess({ qris_history_id: "h-1" });
    expect(await applyEvent(receiver, event)).toEqual({ outcome: "applied", key: "qris:payment.success:h-1" });
    expect(await applyEvent(receiver, event)).toEqual({ outcome: "already_applied", key: "qris:payment.success:h-1" });
    expect(applied).toEqual(["h-1 reconciliation"]);
  });

  it("refuses a prototype key anywhere in the event, before any handler runs", async () => {
    let ran = 0;
    const receiver = receiverOf().on("payment.success", () => {
      ran++;
    });
    // An own `__proto__` property, as JSON.parse makes from a provider's answer.
    const hostile = JSON.parse('{"__proto__":{"isAdmin":true}}') as Record<string, unknown>;
    for (const event of [
      { ...qrisSuccess({ qris_history_id: "h-2" }), ...hostile },
      qrisSuccess({ qris_history_id: "h-3", extra: { deep: [hostile] } }),
    ]) {
      const result = await applyEvent(receiver, event);
      expect(result.outcome).toBe("invalid");
      expect(String((result as { error?: Error }).error?.message)).toMatch(/__proto__/);
    }
    expect(ran).toBe(0);
  });

  it("gives each concurrent apply its own handler error, and none to the ones that succeeded", async () => {
    const failing = new Set(["bad-1", "bad-2"]);
    const receiver = receiverOf().on("payment.success", async (event) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (failing.has(String(event.data.qris_history_id))) {
        throw new Error(`handler failed for ${event.data.qris_history_id}`);
      }
    });
    const ids = ["ok-1", "bad-1", "ok-2", "bad-2", "ok-3"];
    const results = await Promise.all(ids.map((id) => applyEvent(receiver, qrisSuccess({ qris_history_id: id }))));
    expect(results.map((result) => result.outcome)).toEqual(["applied", "failed", "applied", "failed", "applied"]);
    expect(results.map((result) => (result as { error?: Error }).error?.message)).toEqual([
      undefined,
      "handler failed for bad-1",
      undefined,
      "handler failed for bad-2",
      undefined,
    ]);
    // A failed event was released: once the handler works, the next run applies it; a success stays applied.
    failing.clear();
    expect((await applyEvent(receiver, qrisSuccess({ qris_history_id: "bad-1" }))).outcome).toBe("applied");
    expect((await applyEvent(receiver, qrisSuccess({ qris_history_id: "ok-1" }))).outcome).toBe("already_applied");
  });

  it("refuses, naming the fix, anything that is not a receiver createWebhookReceiver made (a copy or a look-alike)", async () => {
    const receiver = createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: "t", in: "query" })] });
    const lookAlike = { ...receiver };
    await expect(applyEvent(lookAlike, qrisSuccess())).rejects.toThrow(
      "applyEvent: the receiver must be one createWebhookReceiver made",
    );
  });
});
