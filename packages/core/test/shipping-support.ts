import { vi } from "vitest";

/** One canned reply of the fake provider. */
export interface Reply {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What the client sent, decoded for exact assertions. */
export interface SentRequest {
  method: string;
  url: URL;
  path: string;
  query: Record<string, string>;
  headers: Headers;
  body: string | undefined;
}

/**
 * A fetch that answers with the given replies in order (the last one repeats) and records every request.
 */
export function fakeFetch(...replies: Reply[]) {
  const sent: SentRequest[] = [];
  const fetch = vi.fn(async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    sent.push({
      method: init?.method ?? "GET",
      url,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : undefined,
    });
    const reply = replies[Math.min(sent.length - 1, replies.length - 1)];
    if (reply === undefined) throw new Error("no reply configured");
    const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
    return new Response(text, {
      status: reply.status ?? 200,
      headers: { "Content-Type": "application/json", ...reply.headers },
    });
  });
  return { fetch, sent };
}

/** The `{ meta, data }` envelope of the current interface. */
export const meta = (code: number, message: string, data: unknown = null) => ({
  meta: { message, code, status: code < 300 ? "success" : "error" },
  data,
});

/** The legacy `{ rajaongkir: { ... } }` wrapper. */
export const rajaongkir = (inner: Record<string, unknown>, code = 200, description = "OK") => ({
  rajaongkir: { status: { code, description }, ...inner },
});

/** Runs `fn` and returns what it threw (fails when it did not throw). */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected an error");
}

/** Common options: no real waiting between retries, fixed jitter and clock. */
export const testTiming = { sleep: async () => {}, random: () => 0.5 };
