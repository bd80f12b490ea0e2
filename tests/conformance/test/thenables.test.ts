import {
  type ClaimResult,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  MemoryIdempotencyStore,
  type RequestVerifier,
  tokenVerifier,
  VERIFIED,
  type VerificationResult,
  verificationFailed,
  type WebhookContext,
  type WebhookReceiverOptions,
} from "@kirimbayar/core/webhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AdapterUnderTest, adapters, type Delivery, type RunningApp, type SourceOptions } from "./adapters.js";
import { json, qrisPaid, secrets, sourceOptions } from "./fixtures.js";
import { HandlerRecorder } from "./recorder.js";
import {
  EagerPromise,
  eagerAfter,
  ForeignPromise,
  foreignRejectAfter,
  foreignResolveAfter,
  type LazyThenable,
  lazyThenable,
  sleep,
  UnhandledRejections,
} from "./thenable-kinds.js";

// Issue 15 item 1, from the outside: handlers, verifiers and idempotency stores that return a thenable that is not
// a native promise of the receiver's realm must be awaited exactly as `await` would, through every adapter over
// real HTTP. Every test writes what happened, in order, to one log (`handler:<n>`, `work:end`, `store:<operation>`,
// `answered:<status>` when the adapter's answer reached the client) and checks the whole story.

/** What the QRIS handler returns on its `call`-th call (1-based). */
type QrisHandler = (call: number, log: string[]) => unknown;

/** The conformance apps' handlers, with the QRIS one replaced by `qrisHandler` (the other sources are unused). */
class ThenableRecorder extends HandlerRecorder {
  handlerCalls = 0;
  /** `ctx.signal` of each QRIS handler call. */
  readonly signals: AbortSignal[] = [];
  readonly #qrisHandler: QrisHandler;
  readonly #log: string[];

  constructor(qrisHandler: QrisHandler, log: string[]) {
    super();
    this.#qrisHandler = qrisHandler;
    this.#log = log;
  }

  override handle(source: string, event: unknown, ctx?: WebhookContext): Promise<void> {
    if (source !== "qris") return super.handle(source, event, ctx);
    this.handlerCalls++;
    if (ctx !== undefined) this.signals.push(ctx.signal);
    this.#log.push(`handler:${this.handlerCalls}`);
    // Returned to the receiver untouched: whatever the user's handler returns is what the receiver must adopt.
    return this.#qrisHandler(this.handlerCalls, this.#log) as Promise<void>;
  }
}

const delivery: Delivery = {
  source: "qris",
  query: `?token=${secrets.qrisToken}`,
  headers: json,
  body: qrisPaid("thenable-1"),
};

interface Booted {
  log: string[];
  recorder: ThenableRecorder;
  /** Sends the QRIS delivery and logs `answered:<status>` when the answer arrived; returns status and message. */
  send(): Promise<{ status: number; message: string }>;
}

let running: RunningApp | undefined;
const unhandled = new UnhandledRejections();

beforeEach(() => unhandled.install());
afterEach(async () => {
  unhandled.uninstall();
  await running?.close();
  running = undefined;
});

async function boot(
  adapter: AdapterUnderTest,
  qrisHandler: QrisHandler,
  qris: Partial<Omit<WebhookReceiverOptions<"qris">, "source">> = {},
  log: string[] = [],
): Promise<Booted> {
  const recorder = new ThenableRecorder(qrisHandler, log);
  const base = sourceOptions();
  // Silent logger: the failures these tests provoke on purpose would otherwise be logged to the console.
  const sources: SourceOptions = { ...base, qris: { ...(base.qris as typeof qris), logger: {}, ...qris } };
  running = await adapter.start(sources, recorder);
  const app = running;
  return {
    log,
    recorder,
    async send() {
      const result = await app.send(delivery);
      log.push(`answered:${result.status}`);
      let message = "";
      try {
        message = String(JSON.parse(result.body).message);
      } catch {
        message = result.body;
      }
      return { status: result.status, message };
    },
  };
}

/** Lets a late rejection or late work surface before the test looks at the log and the rejection listener. */
const settleLateWork = () => sleep(60);

it("the helpers make what they claim: none of them is a native promise of this realm", () => {
  const foreign = foreignResolveAfter(0, 1);
  expect(foreign).not.toBeInstanceOf(Promise);
  expect(Object.prototype.toString.call(foreign)).toBe("[object Promise]");
  expect(ForeignPromise).not.toBe(Promise);
  expect(new EagerPromise(() => {})).not.toBeInstanceOf(Promise);
  let started = false;
  const lazy = lazyThenable(async () => {
    started = true;
  });
  expect(lazy).not.toBeInstanceOf(Promise);
  expect(started).toBe(false);
  void foreign;
});

describe.each(adapters)("$name adapter: a handler returning", (adapter) => {
  it("a lazy thenable (Mongoose Query, knex builder): its work runs, once, before the 200", async () => {
    const thenables: LazyThenable<void>[] = [];
    const app = await boot(adapter, (_call, log) => {
      const query = lazyThenable(async () => {
        log.push("work:start");
        await sleep(20);
        log.push("work:end");
      });
      thenables.push(query);
      return query;
    });
    expect(await app.send()).toMatchObject({ status: 200 });
    await settleLateWork();
    expect(app.log).toEqual(["handler:1", "work:start", "work:end", "answered:200"]);
    expect(thenables.map((t) => t.thenCalls)).toEqual([1]);
  });

  it("an eager non-native promise failing 10 ms later: 500, and the redelivery runs the handler again", async () => {
    const app = await boot(adapter, (call, log) =>
      call === 1
        ? eagerAfter(10, { error: new Error("UPDATE orders failed (10 ms later)") })
        : eagerAfter(10, { value: undefined }).then(() => {
            log.push("work:end");
          }),
    );
    expect(await app.send()).toMatchObject({ status: 500 });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual(["handler:1", "answered:500", "handler:2", "work:end", "answered:200", "answered:200"]);
    expect(app.recorder.handlerCalls).toBe(2);
  });

  it("a vm-realm promise that rejects: 500, no unhandled rejection, and the redelivery runs the handler", async () => {
    const app = await boot(adapter, (call) =>
      call === 1 ? foreignRejectAfter(10, new Error("write failed in another realm")) : foreignResolveAfter(10, 1),
    );
    const { status } = await app.send();
    await settleLateWork();
    expect({ status, unhandledRejections: unhandled.reasons.map(String) }).toEqual({
      status: 500,
      unhandledRejections: [],
    });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual(["handler:1", "answered:500", "handler:2", "answered:200"]);
  });

  it("a vm-realm promise resolving after 300 ms: the 200 comes after the work ended", async () => {
    const app = await boot(adapter, (_call, log) => foreignResolveAfter(300, 1, () => log.push("work:end")));
    const started = performance.now();
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(app.log).toEqual(["handler:1", "work:end", "answered:200"]);
  });
});

describe.each(adapters)("$name adapter: a handler that hangs (handlerTimeoutMs)", (adapter) => {
  const limited = () => ({ idempotency: { store: new MemoryIdempotencyStore(), handlerTimeoutMs: 150 } });

  it("that never settles: 500 at the limit, and the claim is kept (409) rather than run a second time", async () => {
    const app = await boot(adapter, () => new Promise<void>(() => {}), limited());
    const started = performance.now();
    expect(await app.send()).toMatchObject({ status: 500, message: expect.stringMatching(/did not finish in time/) });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await app.send()).toMatchObject({ status: 409 });
    expect(app.recorder.handlerCalls).toBe(1);
    expect(app.recorder.signals.map((signal) => signal.aborted)).toEqual([true]);
  });

  it("that ends after the limit: 500 at the limit, its late success recorded, so the redelivery is a duplicate", async () => {
    const app = await boot(
      adapter,
      (_call, log) =>
        foreignResolveAfter(300, 1, () => {
          log.push("work:end");
        }),
      limited(),
    );
    expect(await app.send()).toMatchObject({ status: 500 });
    await sleep(250);
    expect(await app.send()).toMatchObject({ status: 200, message: expect.stringMatching(/Duplicate/) });
    expect(app.log).toEqual(["handler:1", "answered:500", "work:end", "answered:200"]);
  });

  it("that fails after the limit: the claim is released and the redelivery runs the handler again", async () => {
    const app = await boot(
      adapter,
      (call) => (call === 1 ? eagerAfter(300, { error: new Error("UPDATE orders failed late") }) : undefined),
      limited(),
    );
    expect(await app.send()).toMatchObject({ status: 500 });
    await sleep(250);
    expect(await app.send()).toMatchObject({ status: 200, message: expect.not.stringMatching(/Duplicate/) });
    expect(app.log).toEqual(["handler:1", "answered:500", "handler:2", "answered:200"]);
    expect(unhandled.reasons).toEqual([]);
  });
});

/** A custom request verifier (run after the token verifier) whose verdict is whatever `verdict` returns. */
function customVerifier(log: string[], verdict: () => unknown): RequestVerifier {
  return {
    kind: "request",
    name: "thenable-verifier",
    verify: () => {
      log.push("verifier");
      return verdict() as Promise<VerificationResult>;
    },
  };
}

/** Boots `adapter` with the token verifier plus a custom verifier returning `verdict()`, and a plain handler. */
async function bootWithVerifier(adapter: AdapterUnderTest, verdict: (log: string[]) => unknown): Promise<Booted> {
  const log: string[] = [];
  const token = tokenVerifier({ secrets: [secrets.qrisToken], in: "query", name: "token" });
  return boot(adapter, () => undefined, { verify: [token, customVerifier(log, () => verdict(log))] }, log);
}

describe.each(adapters)("$name adapter: a request verifier returning", (adapter) => {
  it("a lazy thenable of { ok: true }: the delivery is let in and handled, `then` called once", async () => {
    let check: LazyThenable<VerificationResult> | undefined;
    const app = await bootWithVerifier(adapter, (log) => {
      check = lazyThenable(async () => {
        await sleep(5);
        log.push("verified");
        return VERIFIED;
      });
      return check;
    });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual(["verifier", "verified", "handler:1", "answered:200"]);
    expect(check?.thenCalls).toBe(1);
  });

  it("a lazy thenable of { ok: false, reason }: 401 with that reason, handler not run", async () => {
    const app = await bootWithVerifier(adapter, () =>
      lazyThenable(async () => verificationFailed("signature looked up lazily did not match")),
    );
    const answer = await app.send();
    expect(answer.status).toBe(401);
    expect(answer.message).toMatch(/signature looked up lazily did not match/);
    expect(app.log).toEqual(["verifier", "answered:401"]);
  });

  it("an eager non-native promise of { ok: true } settling 10 ms later: the delivery is handled", async () => {
    const app = await bootWithVerifier(adapter, () => eagerAfter(10, { value: VERIFIED }));
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual(["verifier", "handler:1", "answered:200"]);
  });

  it("a vm-realm promise of { ok: true } after 30 ms: the delivery is handled", async () => {
    const app = await bootWithVerifier(adapter, (log) => foreignResolveAfter(30, VERIFIED, () => log.push("verified")));
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual(["verifier", "verified", "handler:1", "answered:200"]);
  });

  it("a vm-realm promise that rejects: 500, handler not run, no unhandled rejection", async () => {
    const app = await bootWithVerifier(adapter, () => foreignRejectAfter(10, new Error("key service unreachable")));
    const { status } = await app.send();
    await settleLateWork();
    expect({ status, unhandledRejections: unhandled.reasons.map(String) }).toEqual({
      status: 500,
      unhandledRejections: [],
    });
    expect(app.log).toEqual(["verifier", "answered:500"]);
  });
});

type StoreOperation = "claim" | "complete" | "release";

/**
 * A user's own store: a MemoryIdempotencyStore behind methods that return what `wrap` makes of each answer (a lazy
 * thenable, a vm-realm promise). Each operation logs `store:<operation>` when it is really applied.
 */
class WrappedStore implements IdempotencyStore {
  readonly #inner = new MemoryIdempotencyStore();
  readonly #log: string[];
  readonly #wrap: (operation: StoreOperation, answer: () => unknown) => unknown;

  constructor(log: string[], wrap: (operation: StoreOperation, answer: () => unknown) => unknown) {
    this.#log = log;
    this.#wrap = wrap;
  }

  #apply<T>(operation: StoreOperation, answer: () => T | Promise<T>): Promise<T> {
    return this.#wrap(operation, () => {
      this.#log.push(`store:${operation}`);
      return answer();
    }) as Promise<T>;
  }

  claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    return this.#apply("claim", () => this.#inner.claim(key, owner, leaseMs));
  }

  complete(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return this.#apply("complete", () => this.#inner.complete(key, owner, retentionMs));
  }

  release(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return this.#apply("release", () => this.#inner.release(key, owner, retentionMs));
  }
}

async function bootWithStore(
  adapter: AdapterUnderTest,
  qrisHandler: QrisHandler,
  wrap: (operation: StoreOperation, answer: () => unknown) => unknown,
): Promise<Booted> {
  const log: string[] = [];
  return boot(adapter, qrisHandler, { idempotency: { store: new WrappedStore(log, wrap) } }, log);
}

describe.each(adapters)("$name adapter: an idempotency store returning", (adapter) => {
  it("lazy thenables: claim, release and complete are applied before the answer, so an event runs once", async () => {
    const thenables: LazyThenable<unknown>[] = [];
    const app = await bootWithStore(
      adapter,
      (call) => {
        if (call === 1) throw new Error("handler failed on purpose");
      },
      (_operation, answer) => {
        const thenable = lazyThenable(async () => answer());
        thenables.push(thenable);
        return thenable;
      },
    );
    expect(await app.send()).toMatchObject({ status: 500 });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual([
      ...["store:claim", "handler:1", "store:release", "answered:500"],
      ...["store:claim", "handler:2", "store:complete", "answered:200"],
      ...["store:claim", "answered:200"],
    ]);
    expect(thenables.map((t) => t.thenCalls)).toEqual([1, 1, 1, 1, 1]);
  });

  it("vm-realm promises settling 20 ms later: the duplicate is recognised and not run again", async () => {
    const app = await bootWithStore(
      adapter,
      () => undefined,
      (_operation, answer) => foreignResolveAfter(20, undefined).then(answer),
    );
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(await app.send()).toMatchObject({ status: 200 });
    expect(app.log).toEqual([
      "store:claim",
      "handler:1",
      "store:complete",
      "answered:200",
      "store:claim",
      "answered:200",
    ]);
  });

  it("a vm-realm claim that rejects: 503, handler not run, no unhandled rejection", async () => {
    const app = await bootWithStore(
      adapter,
      () => undefined,
      (operation, answer) =>
        operation === "claim"
          ? foreignRejectAfter(10, new IdempotencyStoreUnavailableError("store timed out"))
          : foreignResolveAfter(0, undefined).then(answer),
    );
    const { status } = await app.send();
    await settleLateWork();
    expect({ status, unhandledRejections: unhandled.reasons.map(String) }).toEqual({
      status: 503,
      unhandledRejections: [],
    });
    expect(app.log).toEqual(["answered:503"]);
  });
});
