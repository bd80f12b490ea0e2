import type { InboxAttempt } from "../../types.js";
import type { JobData, PgBossJob } from "./types.js";

/** A try that ended without a verdict: its job's hold ran out (worker killed, or it lost the database too long). */
export const UNFINISHED =
  "no verdict: the worker stopped or crashed during this try, or lost its hold (no heartbeat for expireInSeconds)";

/**
 * The tries recorded before this one (the job's data; its output for a job failed by an older version), with an
 * entry for each try in between that never reported.
 */
export function previousAttempts(job: PgBossJob, attempt: number, now: number): InboxAttempt[] {
  const kept = (job.data as JobData).attempts ?? (job.output as { attempts?: unknown } | null | undefined)?.attempts;
  const attempts = Array.isArray(kept) ? [...(kept as InboxAttempt[])] : [];
  for (let missing = (attempts.at(-1)?.attempt ?? 0) + 1; missing < attempt; missing++) {
    attempts.push({ at: now, attempt: missing, error: UNFINISHED });
  }
  return attempts;
}
