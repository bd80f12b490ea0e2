import type { RequestBody } from "../body.js";
import type { WebhookHttpResponse } from "../contract.js";
import { findKeyProblemIn } from "../json.js";
import { webhookResponse } from "../response.js";
import type { SourceDefinition } from "../sources.js";
import type { WebhookSource } from "../verifiers/types.js";

/** The parse stage's answer: the typed event, or the 400 to send. */
export type ParseResult =
  | { readonly ok: true; readonly event: unknown }
  | { readonly ok: false; readonly response: WebhookHttpResponse };

/**
 * Which keys the parse stage refuses besides prototype keys (`__proto__`, `constructor`, `prototype`), always
 * refused: the reason to refuse the parsed `value` of `text`, or `undefined`. A function rather than a name, so that
 * a bundle holds only the checks it uses:
 * - {@link rejectDuplicateKeys}: a key repeated in one object too (a webhook, unless `rejectDuplicateKeys: false`);
 * - {@link allowDuplicateKeys}: no more (`rejectDuplicateKeys: false`, and queued inbox bodies);
 * - `findPrototypeKeyIn`: no more, for text `JSON.stringify` wrote (`applyEvent`), which cannot repeat a key, so the
 *   text is not scanned for repeats.
 */
export type KeyCheck = (value: unknown, text: string) => string | undefined;

export const rejectDuplicateKeys: KeyCheck = (value, text) => findKeyProblemIn(value, text, true);
export const allowDuplicateKeys: KeyCheck = (value, text) => findKeyProblemIn(value, text, false);

/**
 * The parse stage, run only once the request verifiers passed: strict UTF-8, JSON, no prototype keys and no
 * duplicate keys (as `keyCheck` says), then the source's tolerant schema. Every refusal is a 400 naming the problem.
 */
export function parseEvent(
  body: RequestBody,
  source: WebhookSource,
  definition: SourceDefinition,
  keyCheck: KeyCheck,
): ParseResult {
  const text = body.text();
  if (text === undefined) return refuse("Invalid body: not valid UTF-8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return refuse(`Invalid body: ${/\S/.test(text) ? "body is not valid JSON" : "the body is empty"}`);
  }
  const keyProblem = keyCheck(json, text);
  if (keyProblem !== undefined) return refuse(`Invalid body: ${keyProblem}`);
  const parsed = definition.schemaFor(json).safeParse(json);
  if (!parsed.success) return refuse(`Invalid ${source} webhook body: ${describeIssues(parsed.error.issues)}`);
  return { ok: true, event: parsed.data };
}

function refuse(message: string): ParseResult {
  return { ok: false, response: webhookResponse(400, message) };
}

function describeIssues(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? "(body)" : issue.path.map(String).join(".")}: ${issue.message}`)
    .join("; ");
}
