// The retry of a pg-boss inbox worker's calls to the database: bounded exponential backoff with jitter, each try
// time-limited (a connection that died silently must not hang a settle), and an end when the worker gives up.
import { expect, it } from "vitest";
import {
  backoffDelay,
  DATABASE_BACKOFF,
  DatabaseCallTimeoutError,
  untilAnswered,
} from "../src/engines/pg-boss/backoff.js";

it("waits 100 ms doubling to 5 s, between half and all of it", () => {
  const at = (failures: number, random: number) => backoffDelay(DATABASE_BACKOFF, failures, () => random);
  expect([1, 2, 3, 4, 5, 6, 7, 100].map((n) => at(n, 0.999_999))).toEqual([100, 200, 400, 800, 1600, 3200, 5000, 5000]);
  expect([1, 7, 100].map((n) => at(n, 0))).toEqual([50, 2500, 2500]);
});

it("makes a failing call again until it answers", async () => {
  let tries = 0;
  const failures: number[] = [];
  const ok = await untilAnswered(
    async () => {
      tries += 1;
      if (tries < 4) throw new Error("Connection terminated unexpectedly");
    },
    { what: "complete", backoff: { firstMs: 1, maxMs: 5 }, onFailure: (_, __, n) => failures.push(n) },
  );
  expect(ok).toBe(true);
  expect(tries).toBe(4);
  expect(failures).toEqual([1, 2, 3]);
});

it("gives a hanging try up at its time limit and tries again", async () => {
  let tries = 0;
  const errors: unknown[] = [];
  const ok = await untilAnswered(
    () => {
      tries += 1;
      return tries === 1 ? new Promise(() => {}) : Promise.resolve();
    },
    { what: "retry", backoff: { firstMs: 1, maxMs: 1 }, tryTimeoutMs: 50, onFailure: (error) => errors.push(error) },
  );
  expect(ok).toBe(true);
  expect(tries).toBe(2);
  expect(errors[0]).toBeInstanceOf(DatabaseCallTimeoutError);
});

it("ends after the current try once the worker gives up", async () => {
  const giveUp = new AbortController();
  let tries = 0;
  const result = untilAnswered(
    async () => {
      tries += 1;
      throw new Error("the database is away");
    },
    { what: "complete", backoff: { firstMs: 10_000, maxMs: 10_000 }, signal: giveUp.signal },
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  giveUp.abort();
  expect(await result).toBe(false);
  expect(tries).toBe(1);
});
