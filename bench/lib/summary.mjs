// What bench/run-all.mjs reads from the fragments besides their goal rows (bench/lib/stats.mjs): context rows
// (figures reported beside the goals but judged against none) and the date of the run that wrote each fragment, so a
// RESULTS.md composed from fragments of different runs says which figure comes from when.

/**
 * A row of the summary's context table: a figure worth keeping in view that is no goal (a former goal replaced by a
 * fairer comparison, or the mix a goal was split from).
 * `<!-- context: what | measured | interval | why -->`.
 */
export function contextComment({ what, measured, interval, why }) {
  return `<!-- context: ${what} | ${measured} | ${interval ?? ""} | ${why} -->`;
}

const CONTEXT_COMMENT = /<!--\s*context:\s*(.+?)\s*\|\s*(.+?)\s*\|\s*(.*?)\s*\|\s*(.+?)\s*-->/g;

/** The context rows a fragment declares (see {@link contextComment}), in order. */
export function parseContextComments(fragment) {
  return [...fragment.matchAll(CONTEXT_COMMENT)].map(([, what, measured, interval, why]) => ({
    what,
    measured,
    interval,
    why,
  }));
}

const RUN_STAMP = /<!--\s*run:\s*(\d{4}-\d{2}-\d{2})\s*-->/;

/** The date (`YYYY-MM-DD`) of the run that wrote `fragment`, from its run stamp; undefined without one. */
export function runDateOf(fragment) {
  return RUN_STAMP.exec(fragment)?.[1];
}

/** `fragment` with a run stamp for `date` at its end, unless it has one already. */
export function withRunStamp(fragment, date) {
  if (RUN_STAMP.test(fragment)) return fragment;
  return `${fragment.trimEnd()}\n\n<!-- run: ${date} -->\n`;
}

const DATED_WHAT = /^(.*?)\s*(?:;\s*run (\d{4}-\d{2}-\d{2})\)|\(run (\d{4}-\d{2}-\d{2})\))$/;

/**
 * A summary row's run date and label: a row that names its own run (`... (req/s; run 2026-11-25)`, as the adapters
 * fragment keeps one run per framework) keeps that date, every other row takes its fragment's.
 */
export function rowRun(what, fragmentDate) {
  const dated = DATED_WHAT.exec(what);
  if (dated === null) return { what, date: fragmentDate };
  return { what: dated[2] ? `${dated[1]})` : dated[1], date: dated[2] ?? dated[3] };
}
