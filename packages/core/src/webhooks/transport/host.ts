// The `Host` a request names, checked before a URL is built from it: the webhook console's links and same-origin
// check stand on the request's URL, which a malformed Host makes wrong (`a@b` names host `b`, `shop/x` moves the
// path) or impossible (`a b`, `[::1`: the URL constructor throws, a 500 in most frameworks). The console and every
// adapter that mounts it answer such a request 400 with the same rule.

// A name of letters, digits and `-._~`, or a bracketed IPv6 (or IPvFuture) literal, then an optional port.
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Za-z:.]+\])(?::(\d{1,5}))?$/;

/**
 * Whether `host` is a `Host` header a URL can stand on as it is: a name or an address and an optional port up to
 * 65535, nothing the URL parser would read as user info, a path, a query or a fragment.
 *
 * @example
 * isWellFormedHost("shop.example:8443"); // true
 * isWellFormedHost("a b"); // false
 * if (!isWellFormedHost(req.headers.host ?? "localhost")) return malformedHostResponse();
 */
export function isWellFormedHost(host: string): boolean {
  const match = HOST.exec(host);
  if (match === null || Number(match[1] ?? 0) > 65_535) return false;
  // The constructor rather than `URL.canParse`, which older edge runtimes lack.
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * The answer to a request whose `Host` header is malformed (see {@link isWellFormedHost}): `400 Bad request:
 * malformed Host header`, plain text, not cached, the connection closed (the request's body is never read).
 *
 * @example
 * if (!isWellFormedHost(host)) return malformedHostResponse();
 */
export function malformedHostResponse(): Response {
  return new Response("Bad request: malformed Host header", {
    status: 400,
    headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", connection: "close" },
  });
}
