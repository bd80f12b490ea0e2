// The adapters fragment (bench/results/adapters.md) holds each framework's figures from that framework's latest run.
// A run of some frameworks (`--frameworks fastify`, or a run that failed half-way) must never drop the others' last
// figures, so the fragment is merged per framework: the new run's frameworks replace their old rows, the others keep
// theirs, and every row, verdict and goal carries the date of the run it comes from.
import { goalComment, parseGoalComments } from "./stats.mjs";

/** The frameworks in report order; a framework the fragment names that is not here goes last, in its own order. */
export const FRAMEWORK_ORDER = ["express", "hono", "nestjs", "fastify"];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
// `<!-- adapters-run: fastify | 2026-11-27 | Node v20.20.2, 2 cores, ... -->`: how that framework's run was made.
const RUN_COMMENT = /^<!--\s*adapters-run:\s*(\S+)\s*\|\s*(\d{4}-\d{2}-\d{2})\s*\|\s*(.*?)\s*-->$/;
// Fragments written before rows carried their date: one run for every framework, dated in the intro.
const LEGACY_INTRO = /Written by `[^`]+` on (\d{4}-\d{2}-\d{2}): (.+?)\. Medians over rounds\./s;
const DATED_WHAT = /;\s*run \d{4}-\d{2}-\d{2}\)$/;

/**
 * One framework's figures from one run.
 * @typedef {object} FrameworkRun
 * @property {string} framework
 * @property {string} date `YYYY-MM-DD` of the run.
 * @property {string} settings How the run was made (Node, cores, rounds, seconds...).
 * @property {string[][]} rows The table cells after the framework and date: route, req/s, CPU and the ratios.
 * @property {string | undefined} verdict The verdict line's text after `- framework (run date): `.
 * @property {{ what: string, measured: string, target: string, result: string, interval: string } | undefined} goal
 *   The goal row, `what` without its date.
 */

function cellsOf(line) {
  return line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((cell) => cell.trim());
}

const METHOD_TAIL = " Each framework's figures come from its latest run";

/**
 * An adapters fragment taken apart: its title, its method paragraph (how the benchmark measures, without dates),
 * its table's columns after Framework and Run, and every framework's run. Reads both the dated format
 * ({@link renderAdapterRuns}) and the earlier one-run format, whose rows take the date of its intro.
 * @param {string} fragment
 * @returns {{ title: string, method: string, header: string[], runs: Map<string, FrameworkRun> }}
 */
export function parseAdapterFragment(fragment) {
  const legacy = LEGACY_INTRO.exec(fragment);
  const lines = fragment.split("\n");
  const title = lines.find((line) => line.startsWith("## ")) ?? "## Adapters";
  const tableAt = lines.findIndex((line) => line.trim().startsWith("| Framework |"));
  if (tableAt === -1) throw new Error("adapters fragment: no table");
  const headerCells = cellsOf(lines[tableAt]).slice(1);
  const header = headerCells[0] === "Run" ? headerCells.slice(1) : headerCells;
  const paragraph = lines
    .slice(lines.indexOf(title) + 1, tableAt)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  const method = legacy
    ? paragraph.slice(paragraph.indexOf("Medians over rounds."))
    : paragraph.includes(METHOD_TAIL)
      ? paragraph.slice(0, paragraph.indexOf(METHOD_TAIL))
      : paragraph;
  const runs = new Map();
  const runOf = (framework) => {
    let run = runs.get(framework);
    if (run === undefined) {
      run = {
        framework,
        date: legacy?.[1] ?? "",
        settings: legacy?.[2].replace(/\s+/g, " ") ?? "",
        rows: [],
        verdict: undefined,
        goal: undefined,
      };
      runs.set(framework, run);
    }
    return run;
  };
  for (const line of lines.slice(tableAt + 1)) {
    const trimmed = line.trim();
    const run = RUN_COMMENT.exec(trimmed);
    if (run) {
      Object.assign(runOf(run[1]), { date: run[2], settings: run[3] });
      continue;
    }
    if (trimmed.startsWith("|") && !trimmed.startsWith("|---")) {
      const [framework, ...rest] = cellsOf(trimmed);
      if (framework === undefined || rest.length === 0) continue;
      const dated = DATE.test(rest[0] ?? "");
      const entry = runOf(framework);
      if (dated && entry.date === "") entry.date = rest[0];
      entry.rows.push(dated ? rest.slice(1) : rest);
      continue;
    }
    const verdict = /^- (\S+?)(?: \(run (\d{4}-\d{2}-\d{2})\))?: (.*)$/.exec(trimmed);
    if (verdict && runs.has(verdict[1])) {
      const entry = runOf(verdict[1]);
      entry.verdict = verdict[3];
      if (verdict[2] && entry.date === "") entry.date = verdict[2];
    }
  }
  for (const goal of parseGoalComments(fragment)) {
    const framework = goal.what.split(" ")[0];
    if (runs.has(framework)) runOf(framework).goal = { ...goal, what: goal.what.replace(DATED_WHAT, ")") };
  }
  for (const [framework, entry] of runs) {
    if (!DATE.test(entry.date)) throw new Error(`adapters fragment: no run date for ${framework}`);
  }
  return { title, method, header, runs };
}

/**
 * The previous runs with `current`'s frameworks replaced by the new figures: a framework the new run did not
 * measure keeps its last run, date and all.
 * @param {Map<string, FrameworkRun>} previous
 * @param {Map<string, FrameworkRun>} current
 * @returns {Map<string, FrameworkRun>}
 */
export function mergeAdapterRuns(previous, current) {
  const merged = new Map(previous);
  for (const [framework, run] of current) merged.set(framework, run);
  const rank = (framework) => {
    const at = FRAMEWORK_ORDER.indexOf(framework);
    return at === -1 ? FRAMEWORK_ORDER.length : at;
  };
  return new Map([...merged].sort(([a], [b]) => rank(a) - rank(b)));
}

/** A goal's `what` with the date of its run, as the summary table of RESULTS.md shows it. */
function datedWhat(what, date) {
  return what.endsWith(")") ? `${what.slice(0, -1)}; run ${date})` : `${what} (run ${date})`;
}

/**
 * The fragment for `runs`: `title` and `method` (how the benchmark measures, no date), one table with a Run column,
 * each framework's verdict and goal row dated, and how each run was made.
 * @param {Map<string, FrameworkRun>} runs
 * @param {{ title: string, method: string, header: string[] }} text `header`: the table's columns after Framework and
 *   Run.
 */
export function renderAdapterRuns(runs, { title, method, header }) {
  const all = [...runs.values()];
  const dates = [...new Set(all.map((run) => run.date))].sort();
  const lines = [
    title,
    "",
    `${method}${METHOD_TAIL} (the Run column): a run of some frameworks keeps ` +
      `the others' last figures.${dates.length > 1 ? ` Runs of different days compare less well than the rows of one run.` : ""}`,
    "",
    `| Framework | Run | ${header.join(" | ")} |`,
    `|---|---|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
  ];
  for (const run of all)
    for (const cells of run.rows) lines.push(`| ${run.framework} | ${run.date} | ${cells.join(" | ")} |`);
  lines.push("");
  for (const run of all)
    if (run.verdict !== undefined) lines.push(`- ${run.framework} (run ${run.date}): ${run.verdict}`);
  lines.push("", "Runs:");
  const bySettings = new Map();
  for (const run of all) {
    const key = `${run.date}: ${run.settings}`;
    bySettings.set(key, [...(bySettings.get(key) ?? []), run.framework]);
  }
  for (const [key, frameworks] of bySettings) lines.push(`- ${frameworks.join(", ")}, ${key}.`);
  lines.push("");
  for (const run of all) lines.push(`<!-- adapters-run: ${run.framework} | ${run.date} | ${run.settings} -->`);
  for (const run of all) {
    if (run.goal !== undefined) lines.push(goalComment({ ...run.goal, what: datedWhat(run.goal.what, run.date) }));
  }
  lines.push("");
  return lines.join("\n");
}

/**
 * `current` (the fragment a new run wrote) merged into `previous` (the fragment before it, if any): see
 * {@link mergeAdapterRuns}. Title, method and columns are the new run's.
 * @param {string | undefined} previous
 * @param {string} current
 */
export function mergeAdapterFragments(previous, current) {
  const { runs, ...text } = parseAdapterFragment(current);
  return renderAdapterRuns(
    previous === undefined ? runs : mergeAdapterRuns(parseAdapterFragment(previous).runs, runs),
    text,
  );
}
