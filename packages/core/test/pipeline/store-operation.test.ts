import { describe, expect, it } from "vitest";
import { IdempotencyStoreUnavailableError } from "../../src/idempotency/types.js";
import { storeOperation } from "../../src/webhooks/pipeline/store-operation.js";
import { lazyThenable, otherRealmPromise } from "../support/thenables.js";

describe("storeOperation (each store call under its own time limit)", () => {
  it("stays synchronous for a store answering synchronously", () => {
    expect(storeOperation(() => true, 50, "complete")).toBe(true);
  });

  it("turns a synchronous throw into a rejection", async () => {
    const result = storeOperation(
      () => {
        throw new Error("down");
      },
      50,
      "claim",
    );
    await expect(result).rejects.toThrow("down");
  });

  it("adopts lazy thenables and promises of another realm", async () => {
    await expect(storeOperation(() => lazyThenable(async () => true).thenable, 100, "complete")).resolves.toBe(true);
    await expect(storeOperation(() => otherRealmPromise(5, { value: "ok" }), 100, "claim")).resolves.toBe("ok");
    await expect(storeOperation(() => otherRealmPromise(5, { error: "refused" }), 100, "claim")).rejects.toThrow(
      "refused",
    );
  });

  it("rejects with a typed error when the store does not answer in time", async () => {
    const started = performance.now();
    const hanging = storeOperation(() => new Promise<boolean>(() => {}), 40, "release");
    await expect(hanging).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
    await expect(hanging).rejects.toThrow(/release did not answer in 40 ms/);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("hands a value that arrives after the time limit to lateResult, and only then", async () => {
    const late: string[] = [];
    let answer!: (value: string) => void;
    const slow = storeOperation(
      () => new Promise<string>((resolve) => (answer = resolve)),
      20,
      "begin",
      (value) => late.push(value),
    );
    await expect(slow).rejects.toBeInstanceOf(IdempotencyStoreUnavailableError);
    answer("transaction opened late");
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(late).toEqual(["transaction opened late"]);
    const inTime = storeOperation(
      async () => "in time",
      100,
      "begin",
      (value) => late.push(value),
    );
    await expect(inTime).resolves.toBe("in time");
    expect(late).toEqual(["transaction opened late"]);
  });
});
