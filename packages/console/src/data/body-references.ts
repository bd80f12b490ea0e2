// The references a person searches by, read out of a dead letter's body (which the console never shows).
import type { JournalReferences } from "../journal.js";

const NAMES = ["qris_history_id", "history_id", "payment_id", "order_id", "order_no", "cnote"] as const;

/** What a body says about itself: its references, its event and its state, when it is JSON that has them. */
export interface BodySummary {
  readonly references: JournalReferences;
  readonly event?: string;
  readonly state?: string;
}

function scalar(value: unknown): string | undefined {
  if (typeof value === "string" && value !== "") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** Reads references out of `body`, two levels deep (`{ event, data: { … } }` and flat payloads alike). */
export function summarizeBody(body: string): BodySummary {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { references: {} };
  }
  const found: Record<string, string> = {};
  let event: string | undefined;
  let state: string | undefined;
  const visit = (value: unknown, depth: number) => {
    if (typeof value !== "object" || value === null || Array.isArray(value) || depth > 2) return;
    for (const [name, member] of Object.entries(value)) {
      const text = scalar(member);
      if (text !== undefined) {
        if ((NAMES as readonly string[]).includes(name))
          found[name === "history_id" ? "qris_history_id" : name] ??= text;
        else if (name === "event") event ??= text;
        else if (name === "status" || name === "payment_status") state ??= text;
      } else visit(member, depth + 1);
    }
  };
  visit(parsed, 0);
  return {
    references: found as JournalReferences,
    ...(event === undefined ? {} : { event }),
    ...(state === undefined ? {} : { state }),
  };
}

/** Whether `references` hold `reference` under any name. */
export function mentions(references: JournalReferences, reference: string): boolean {
  return Object.values(references).some((value) => value === reference);
}
