import { describe, expect, it } from "vitest";
import { bullMqIdOfKey, uuidOfKey } from "../src/engines/job-ids.js";
import { DEFAULT_RETRY_POLICY, nextRetryDelay, resolveRetryPolicy } from "../src/retry-policy.js";

const HOUR = 60 * 60_000;

describe("retry policy", () => {
  it("defaults to 1 s doubling up to 1 h, for 72 h", () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({ baseDelayMs: 1_000, maxDelayMs: HOUR, periodMs: 72 * HOUR });
  });

  it("doubles from the base delay, caps at maxDelayMs, with ±20 % jitter", () => {
    const policy = resolveRetryPolicy();
    const middle = () => 0.5;
    expect([1, 2, 3, 4].map((attempt) => nextRetryDelay(policy, attempt, 0, 0, middle))).toEqual([
      1_000, 2_000, 4_000, 8_000,
    ]);
    expect(nextRetryDelay(policy, 30, 0, 0, middle)).toBe(HOUR);
    expect(nextRetryDelay(policy, 1, 0, 0, () => 0)).toBe(800);
    expect(nextRetryDelay(policy, 1, 0, 0, () => 1)).toBe(1_200);
  });

  it("gives up (a dead letter) once the next try would start after the retry period", () => {
    const policy = resolveRetryPolicy({ periodMs: 10_000 });
    const middle = () => 0.5;
    expect(nextRetryDelay(policy, 1, 0, 8_000, middle)).toBe(1_000);
    expect(nextRetryDelay(policy, 1, 0, 9_500, middle)).toBeUndefined();
    // The period counts from the replay when there was one.
    expect(nextRetryDelay(policy, 1, 9_000, 9_500, middle)).toBe(1_000);
  });

  it("refuses delays that are not positive numbers", () => {
    expect(() => resolveRetryPolicy({ periodMs: 0 })).toThrow(/retry.periodMs/);
    expect(() => resolveRetryPolicy({ baseDelayMs: Number.NaN })).toThrow(/retry.baseDelayMs/);
  });
});

describe("job ids", () => {
  it("derives one UUID per key for pg-boss", () => {
    const id = uuidOfKey("qris:payment.success:1");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidOfKey("qris:payment.success:1")).toBe(id);
    expect(uuidOfKey("qris:payment.success:2")).not.toBe(id);
  });

  it("escapes the colons BullMQ refuses, without two keys sharing an id", () => {
    expect(bullMqIdOfKey("qris:payment.success:1")).toBe("qris%3Apayment.success%3A1");
    expect(bullMqIdOfKey("a%3Ab")).not.toBe(bullMqIdOfKey("a:b"));
  });
});
