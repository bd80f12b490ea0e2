import { WebhookConfigurationError } from "../../../webhooks/errors.js";

/**
 * The error of a binding given something other than its library's object, thrown when the binding is built (so the
 * receiver fails at start, never on the first payment). Names what was expected and what came instead (`found`,
 * see {@link kindOf}).
 */
export function wrongLibraryObject(binding: string, expected: string, found: string): WebhookConfigurationError {
  return new WebhookConfigurationError(`${binding}: expected ${expected}, got ${found}`);
}

/** The kind of a value, never its contents (a connection object may hold a password). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "function") return "a function";
  if (typeof value !== "object") return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? `a ${name}` : "an object";
}
