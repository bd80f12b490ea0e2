/** Name of this package, for diagnostics. */
export const packageName = "@kirimbayar/hono";
