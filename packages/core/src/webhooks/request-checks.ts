// Cheap checks on the request line and headers, run before any body work.

/** True for `application/json` (any case, with parameters such as `charset`) and `application/<x>+json`. */
export function isJsonContentType(value: string): boolean {
  if (value === "application/json") return true;
  const semicolon = value.indexOf(";");
  const media = (semicolon < 0 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  return media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
}

/** Upper-cases configured methods and refuses an empty list. */
export function normaliseMethods(methods: readonly string[]): string[] {
  return methods.map((method) => method.trim().toUpperCase()).filter((method) => method !== "");
}
