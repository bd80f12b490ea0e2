// What bench/run-all.mjs keeps of a benchmark's fragment after a run, and how long it lets a benchmark run. Pure
// functions, so the rules are tested without running a benchmark (bench/lib/fragments.test.mjs) and once end to end
// (bench/lib/run-all.test.mjs).

const DURATION_STAMP = /<!--\s*duration:\s*(\d+)\s*s\s*-->/;

/** How long (ms) the run that wrote `fragment` took, from its duration stamp; undefined without one. */
export function durationOf(fragment) {
  const match = fragment === undefined ? null : DURATION_STAMP.exec(fragment);
  return match === null ? undefined : Number(match[1]) * 1000;
}

/** `fragment` with its run's duration stamped at its end (replacing an older stamp). */
export function withDurationStamp(fragment, ms) {
  const stamp = `<!-- duration: ${Math.round(ms / 1000)} s -->`;
  return DURATION_STAMP.test(fragment)
    ? fragment.replace(DURATION_STAMP, stamp)
    : `${fragment.trimEnd()}\n\n${stamp}\n`;
}

/** Margin over a benchmark's last full run: machines and loads differ from run to run. */
export const DURATION_MARGIN = 1.5;

/**
 * The time limit of one benchmark's run: what it declares (`timeoutMs`), or its last full run's duration with a
 * margin when that is longer, so a benchmark that grew (more rounds, longer warm-ups) is not stopped half-way the
 * next time. Quick runs keep the declared limit: their duration says nothing of a full run's.
 */
export function timeLimitOf(benchmark, previousFragment, quick) {
  const last = quick ? undefined : durationOf(previousFragment);
  return Math.max(benchmark.timeoutMs, last === undefined ? 0 : Math.ceil(last * DURATION_MARGIN));
}

/**
 * What the fragment file holds after a run: the one this run wrote when it ended normally (merged with the previous
 * one where the benchmark merges its rows); the previous one, untouched, when the run was stopped by its limit,
 * failed before writing, or wrote nothing. A stopped run's half-written fragment is never kept: its figures would be
 * reported as a full run's. `undefined`: nothing to write (no fragment ever).
 */
export function settledFragment({ previous, written, outcome, merge }) {
  const usable = written !== undefined && outcome.status !== "timeout";
  if (!usable) return previous;
  return merge !== undefined && previous !== undefined ? merge(previous, written) : written;
}
