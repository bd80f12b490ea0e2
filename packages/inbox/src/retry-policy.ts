/** How long and how often the worker retries a failing event before it becomes a dead letter. */
export interface InboxRetryPolicy {
  /** Delay before the second try (default 1,000 ms); each later delay doubles. */
  baseDelayMs?: number;
  /** Longest delay between two tries (default 1 hour). */
  maxDelayMs?: number;
  /** How long an event is retried, from its arrival or replay (default 72 hours); then it is a dead letter. */
  periodMs?: number;
}

/** {@link InboxRetryPolicy} with every default filled in. */
export type ResolvedRetryPolicy = Required<InboxRetryPolicy>;

/** The retry policy an inbox uses where its options leave one out: from 1 s, at most 1 hour apart, for 72 hours. */
export const DEFAULT_RETRY_POLICY: ResolvedRetryPolicy = {
  baseDelayMs: 1_000,
  maxDelayMs: 60 * 60_000,
  periodMs: 72 * 60 * 60_000,
};

/**
 * `policy` with every missing field taken from {@link DEFAULT_RETRY_POLICY}.
 *
 * @throws TypeError when a field is not a positive, finite number of milliseconds.
 */
export function resolveRetryPolicy(policy: InboxRetryPolicy = {}): ResolvedRetryPolicy {
  const resolved = { ...DEFAULT_RETRY_POLICY, ...policy };
  for (const [name, value] of Object.entries(resolved)) {
    if (!(Number.isFinite(value) && value > 0)) throw new TypeError(`retry.${name} must be a positive number of ms`);
  }
  return resolved;
}

/**
 * The delay after failed try number `attempt` (1-based): exponential from `baseDelayMs`, capped at `maxDelayMs`,
 * with ±20 % jitter so events that failed together do not all come back at once. `undefined` when the next try
 * would start after the retry period: the event is then a dead letter.
 */
export function nextRetryDelay(
  policy: ResolvedRetryPolicy,
  attempt: number,
  periodStartedAt: number,
  now: number,
  random: () => number = Math.random,
): number | undefined {
  const exponential = policy.baseDelayMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40);
  const delay = Math.round(Math.min(exponential, policy.maxDelayMs) * (0.8 + 0.4 * random()));
  return now + delay - periodStartedAt > policy.periodMs ? undefined : delay;
}
