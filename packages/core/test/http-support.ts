// Test doubles shared by the client tests: a scripted fetch that records every call, and a fake clock/sleep.
import type { FetchLike } from "../src/http/options.js";

export interface RecordedCall {
  url: URL;
  method: string;
  headers: Headers;
  body: string | FormData | undefined;
  signal: AbortSignal | undefined;
}

export type Scripted = Response | Error | ((call: RecordedCall) => Response | Promise<Response>);

/** JSON response helper. */
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A fetch that answers from `script` in order (the last entry repeats) and records each call. */
export function scriptedFetch(...script: Scripted[]): FetchLike & { calls: RecordedCall[] } {
  const calls: RecordedCall[] = [];
  const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
    const call: RecordedCall = {
      url: new URL(String(input)),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: init?.body as string | FormData | undefined,
      signal: init?.signal ?? undefined,
    };
    calls.push(call);
    const next = script[Math.min(calls.length - 1, script.length - 1)];
    if (next === undefined) throw new Error("script is empty");
    if (next instanceof Error) throw next;
    if (typeof next === "function") return next(call);
    return next.clone();
  };
  return Object.assign(fetchImpl, { calls });
}

/** A fetch that never answers until its signal aborts. */
export const hangingFetch: FetchLike = (_input, init) =>
  new Promise((_, reject) => {
    init?.signal?.addEventListener("abort", () => reject(init.signal?.reason), { once: true });
  });

/** Fake clock + sleep: sleeping advances the clock and records the delay. */
export function fakeTime(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    clock: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/** A sentinel secret that must never leak. */
export const SENTINEL_KEY = "SENTINEL-kb-9f8e7d6c5b4a-DO-NOT-LEAK";
