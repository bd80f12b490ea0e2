// The `Host` a request names, checked before anything else: the console builds its links and its same-origin check
// from the request's URL, which a malformed Host makes wrong (`a@b` names host `b`, `shop/x` moves the path) or
// impossible (`a b`, `[::1`). Such a request is answered 400 before `authorize` runs, on every mount.

// A name of letters, digits and `-._~`, or a bracketed IPv6 (or IPvFuture) literal, then an optional port.
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Za-z:.]+\])(?::(\d{1,5}))?$/;

/**
 * Whether `host` is a Host header a URL can stand on as it is: a name or an address and an optional port up to
 * 65535, nothing the URL parser would read as user info, a path, a query or a fragment.
 *
 * @example
 * isWellFormedHost("shop.example:8443") // true
 * isWellFormedHost("a b") // false
 */
export function isWellFormedHost(host: string): boolean {
  const match = HOST.exec(host);
  if (match === null || Number(match[1] ?? 0) > 65_535) return false;
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}
