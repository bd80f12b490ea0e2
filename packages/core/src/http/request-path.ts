// A path made only of characters the URL parser keeps as they are (nothing to percent-encode, no `?` or `#`, no
// backslash) and with no segment starting with a dot (so no `.`/`..` to resolve) comes out of parsing unchanged.
const VERBATIM_PATH = /^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@%]*)+$/;
const DOT_SEGMENT_START = /\/(?:\.|%2e)/i;

/**
 * Returns a function giving the `pathname` that `${baseUrl}${path}` has once parsed as a URL, i.e. the path actually
 * requested. Common paths are answered by concatenation; anything the parser could rewrite is parsed.
 *
 * @example
 * const pathOf = requestPathReader("https://api.example.id/v2");
 * pathOf("/status/KPAY-1%2FKM"); // "/v2/status/KPAY-1%2FKM"
 */
export function requestPathReader(baseUrl: string): (path: string) => string {
  const basePathname = new URL(baseUrl).pathname;
  // `normalizeBaseUrl` strips trailing slashes, so a bare host's "/" is not part of what paths are appended to.
  const prefix = basePathname === "/" && !baseUrl.endsWith("/") ? "" : basePathname;
  return (path) =>
    VERBATIM_PATH.test(path) && !DOT_SEGMENT_START.test(path) ? prefix + path : new URL(baseUrl + path).pathname;
}
