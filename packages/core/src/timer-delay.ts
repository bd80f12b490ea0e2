/** The longest delay a timer can wait: 2^31 - 1 ms, about 24.8 days. A longer one fires at once, with a warning. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

/** `ms` as a timer can wait it: a delay beyond the longest one becomes the longest one, never an immediate firing. */
export function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_DELAY_MS);
}
