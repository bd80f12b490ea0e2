// Every answer of the console carries the same strict headers, errors and redirects included.
import { styleHash } from "../render/style.js";

/** The Content-Security-Policy of every answer: no script at all, the one inline stylesheet by its hash. */
export async function contentSecurityPolicy(): Promise<string> {
  return [
    "default-src 'none'",
    `style-src ${await styleHash()}`,
    "img-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
}

async function secured(headers: Record<string, string>): Promise<Headers> {
  return new Headers({
    "content-security-policy": await contentSecurityPolicy(),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    ...headers,
  });
}

/** An HTML page (`head`: the same headers, no body). */
export async function page(status: number, body: string, head = false, headers: Record<string, string> = {}) {
  const all = await secured({ "content-type": "text/html; charset=utf-8", ...headers });
  return new Response(head ? null : body, { status, headers: all });
}

/** A short plain-text answer (refusals, 404, 405): it says what, never why in detail. */
export async function text(status: number, body: string, headers: Record<string, string> = {}) {
  return new Response(body, {
    status,
    headers: await secured({ "content-type": "text/plain; charset=utf-8", ...headers }),
  });
}

/** 303 See Other to `location`, a path of the console's own (post/redirect/get). */
export async function seeOther(location: string) {
  return new Response(null, { status: 303, headers: await secured({ location }) });
}
