// The console's routes (a stable API: bookmarks and the adapters' docs name them) and the URLs of its own pages.

/** The paths under the base path. */
export const ROUTES = {
  overview: "/",
  search: "/search",
  deadLetters: "/dead-letters",
  replay: "/actions/replay",
  reconcile: "/actions/reconcile",
} as const;

/** A route's name. */
export type RouteName = keyof typeof ROUTES;

/** The methods each route answers (GET routes answer HEAD too). */
export const ROUTE_METHODS: Readonly<Record<RouteName, readonly string[]>> = {
  overview: ["GET", "HEAD"],
  search: ["GET", "HEAD"],
  deadLetters: ["GET", "HEAD"],
  replay: ["POST"],
  reconcile: ["POST"],
};

/** Which route `pathname` names under `base`, if any (the base itself counts as the overview). */
export function routeOf(base: string, pathname: string): RouteName | undefined {
  if (pathname !== base && !pathname.startsWith(`${base}/`)) return undefined;
  const rest = pathname.slice(base.length);
  if (rest === "" || rest === "/") return "overview";
  for (const [name, path] of Object.entries(ROUTES) as [RouteName, string][]) {
    if (path !== "/" && (rest === path || rest === `${path}/`)) return name;
  }
  return undefined;
}

/**
 * The URL of one of the console's own pages: the base path, a fixed route, and query values URL-encoded. The only
 * way a value from outside (a searched reference) gets into a URL.
 */
export function urlOf(base: string, route: RouteName, query: Record<string, string | undefined> = {}): string {
  const params = Object.entries(query)
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return `${base}${ROUTES[route]}${params.length === 0 ? "" : `?${params.join("&")}`}`;
}
