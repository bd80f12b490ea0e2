// How every benchmark turns repeated paired measurements into a goal verdict. These machines are noisy (the same
// route's req/s moves by 20 % from one minute to the next), so a single median can land on either side of a goal
// by chance. Each benchmark therefore pairs its two contenders round by round, takes the median of the per-round
// ratios, and gives a distribution-free confidence interval for that median. The verdict is "met" or "not met" only
// when the whole interval is on one side of the goal, and "unsettled" otherwise.

/** Median of a list of numbers (mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// P(X <= k) for X ~ Binomial(n, 1/2).
function binomialHalfCdf(n, k) {
  let term = 0.5 ** n; // P(X = 0)
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * A confidence interval for the median of `values`, from order statistics: the sorted values at ranks j and
 * n + 1 - j, where j is the largest rank whose interval still covers the median with probability `level`
 * (a sign-test interval; it assumes only independent samples). Returns the actual coverage, which is at least
 * `level`. With fewer than 5 values no interval reaches 90 %; the whole range is returned with its coverage.
 *
 * @example
 * medianInterval([0.91, 0.97, 0.94, 1.02, 0.96, 0.93, 0.99, 0.95, 0.98, 0.92]) // { low: 0.92, high: 0.99, coverage: 0.979 }
 */
export function medianInterval(values, level = 0.9) {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let rank = 1; // 1-based rank of the lower bound
  while (rank + 1 <= n / 2 && 1 - 2 * binomialHalfCdf(n, rank) >= level) rank++;
  const coverage = 1 - 2 * binomialHalfCdf(n, rank - 1);
  return { low: sorted[rank - 1], high: sorted[n - rank], coverage };
}

/**
 * The verdict on a goal: `at-least` goals are met when the whole interval is at or above `target`, `at-most`
 * goals when it is at or below; the opposite side means not met; an interval across the target is unsettled, and
 * so is any interval from too few rounds to reach `minCoverage` (e.g. a quick smoke run).
 */
export function verdict(interval, target, direction, minCoverage = 0.9) {
  if (interval.coverage < minCoverage) return "unsettled";
  const [good, bad] =
    direction === "at-least"
      ? [interval.low >= target, interval.high < target]
      : [interval.high <= target, interval.low > target];
  return good ? "pass" : bad ? "fail" : "unsettled";
}

/** How a verdict reads in a fragment's prose. */
export const VERDICT_WORDS = { pass: "met", fail: "NOT met", unsettled: "unsettled (the interval straddles the goal)" };

/**
 * The summary-table row a fragment declares for bench/run-all.mjs:
 * `<!-- goal: what | measured | target | pass|fail|unsettled | interval -->`.
 */
export function goalComment({ what, measured, target, result, interval }) {
  return `<!-- goal: ${what} | ${measured} | ${target} | ${result} | ${interval ?? ""} -->`;
}

const GOAL_COMMENT =
  /<!--\s*goal:\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(pass|fail|unsettled)\s*(?:\|\s*(.*?)\s*)?-->/g;

/** The goal rows a fragment declares (see {@link goalComment}), in order; `interval` is "" where none was given. */
export function parseGoalComments(fragment) {
  return [...fragment.matchAll(GOAL_COMMENT)].map(([, what, measured, target, result, interval = ""]) => ({
    what,
    measured,
    target,
    result,
    interval,
  }));
}

/** An interval as the reports print it, e.g. `0.92–0.99x (98 %)`. */
export function formatInterval(interval, digits = 2, unit = "x") {
  return `${interval.low.toFixed(digits)}–${interval.high.toFixed(digits)}${unit} (${Math.round(interval.coverage * 100)} %)`;
}
