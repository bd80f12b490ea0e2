import type { ClaimResult } from "../types.js";

/** What the transactional claim statement's row says. */
export function transactionalClaimOf(row: Record<string, unknown> | undefined): ClaimResult {
  // Another open transaction holds the event (its advisory lock): the duplicate is answered at once (409).
  // Drivers answer a boolean as `true`, or as 1 / "t" where they pass PostgreSQL's text through.
  const got = row?.got;
  if (got !== true && got !== 1 && got !== "t") return { state: "in_progress" };
  return row?.attempts === null || row?.attempts === undefined
    ? { state: "completed" }
    : { state: "claimed", attempt: Number(row?.attempts) };
}
