import { ShippingClient, ShippingProClient, ShippingStarterClient } from "@kirimbayar/core";
import type { FakeProvider } from "../src/index.js";

export const GAMBIR = 1_520_101; // Gambir, Jakarta Pusat
export const BRAGA = 230_201; // Braga, Bandung
export const DARAT = 2_780_101; // Darat, Medan
export const FIVE = ["jne", "sicepat", "jnt", "pos", "anteraja"] as const;

/** Every cost call a client sent: the couriers it named, in order. */
export interface CallLog {
  calls: string[][];
  /** Calls that named `courier`. */
  of(courier: string): number;
}

/**
 * The fake's in-process fetch, recording the courier list of every cost call (the fake's own request log has no
 * bodies).
 */
export function recordingFetch(
  provider: FakeProvider,
  base: typeof fetch = provider.fetch,
): { fetch: typeof fetch; log: CallLog } {
  const calls: string[][] = [];
  const recording: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? new URLSearchParams(init.body) : undefined;
    const courier = body?.get("courier");
    if (courier) calls.push(courier.split(":"));
    return base(input, init);
  };
  return { fetch: recording, log: { calls, of: (courier) => calls.filter((c) => c.includes(courier)).length } };
}

/** A current-interface client on the fake, with its calls recorded. */
export function shippingOn(provider: FakeProvider, apiKey = provider.apiKeys.shipping[0] ?? "") {
  const { fetch, log } = recordingFetch(provider);
  return { client: new ShippingClient({ apiKey, baseUrl: provider.baseUrl, fetch }), log };
}

/** A Pro client on the fake, with its calls recorded. */
export function proOn(provider: FakeProvider) {
  const { fetch, log } = recordingFetch(provider);
  return {
    client: new ShippingProClient({ apiKey: provider.apiKeys.pro[0] ?? "", baseUrl: provider.baseUrl, fetch }),
    log,
  };
}

/** A Starter client on the fake, with its calls recorded. */
export function starterOn(provider: FakeProvider) {
  const { fetch, log } = recordingFetch(provider);
  return {
    client: new ShippingStarterClient({ apiKey: provider.apiKeys.starter[0] ?? "", baseUrl: provider.baseUrl, fetch }),
    log,
  };
}

/** Waits real milliseconds. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long `work` took, in ms, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}
