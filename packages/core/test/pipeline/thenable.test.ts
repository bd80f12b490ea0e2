import { describe, expect, it } from "vitest";
import { adopt } from "../../src/webhooks/pipeline/thenable.js";
import { eagerForeignPromise, lazyThenable, otherRealmPromise } from "../support/thenables.js";

describe("adopt (the pipeline's await)", () => {
  it("returns plain values, null, functions and objects without then unchanged and synchronously", () => {
    const object = { a: 1 };
    const fn = () => 1;
    for (const value of [undefined, null, 0, "x", object, fn, { then: 1 }]) expect(adopt(value)).toBe(value);
  });

  it("returns a native promise of this realm as it is", () => {
    const promise = Promise.resolve(1);
    expect(adopt(promise)).toBe(promise);
  });

  it("starts a lazy thenable by calling then exactly once, and follows its value", async () => {
    const { thenable, calls } = lazyThenable(async () => 42);
    const adopted = adopt(thenable);
    expect(adopted).toBeInstanceOf(Promise);
    expect(calls.started).toBe(true);
    await expect(adopted).resolves.toBe(42);
    expect(calls.then).toBe(1);
  });

  it("reads a then getter once, as await does", async () => {
    let reads = 0;
    const thenable = {
      get then() {
        reads++;
        return (resolve: (value: string) => void) => resolve("ok");
      },
    } as unknown as PromiseLike<string>;
    await expect(adopt(thenable)).resolves.toBe("ok");
    expect(reads).toBe(1);
  });

  it("rejects when then throws or its getter throws", async () => {
    const throwing = {
      then: () => {
        throw new Error("then threw");
      },
    };
    await expect(adopt(throwing)).rejects.toThrow("then threw");
    const getter = Object.defineProperty({}, "then", {
      get: () => {
        throw new Error("getter threw");
      },
    });
    await expect(adopt(getter)).rejects.toThrow("getter threw");
  });

  it("follows an eager non-native promise that fails later", async () => {
    const adopted = adopt(eagerForeignPromise(10, { error: new Error("late failure") }));
    await expect(adopted).rejects.toThrow("late failure");
  });

  it("follows a native promise of another realm, resolving or rejecting, and leaves no rejection unhandled", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      await expect(adopt(otherRealmPromise(5, { value: "late" }))).resolves.toBe("late");
      await expect(adopt(otherRealmPromise(5, { error: "realm failure" }))).rejects.toThrow("realm failure");
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
