// The second half of the forms' protection (with the CSRF token): a POST must come from a page of the same origin.

/**
 * Whether a POST comes from the console's own origin. `Sec-Fetch-Site`, where the browser sends it, decides (only a
 * browser sets it, and a cross-site page cannot change it): `same-origin` passes, anything else is refused. Without
 * it, `Origin` must equal the request's own origin or one of `allowed`. A request with neither is refused (every
 * current browser sends one of them with a form's POST).
 */
export function isSameOrigin(request: Request, allowed: ReadonlySet<string>): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return false;
  return origin === new URL(request.url).origin || allowed.has(origin);
}
