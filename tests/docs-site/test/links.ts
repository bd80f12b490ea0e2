// A link checker for the built site: every internal href/src of every HTML page must name a file of the site, and
// its fragment an id (or name) on that page. External links (http:, mailto:, ...) are listed, never fetched.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One broken link: where it is written and why it does not resolve. */
export interface BrokenLink {
  page: string;
  link: string;
  problem: string;
}

/** What the checker saw: pages, internal links checked, external links skipped, and the broken ones. */
export interface LinkReport {
  pages: number;
  internalLinks: number;
  externalLinks: number;
  broken: BrokenLink[];
}

/** Every `.html` file under `dir`, as absolute paths. */
export function htmlFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".html"))
    .map((path) => join(dir, path));
}

const ATTRIBUTE = /\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** The link targets of one page's markup (attribute values, entities decoded). */
export function linksOf(html: string): string[] {
  return [...html.matchAll(ATTRIBUTE)].map((match) => (match[1] ?? match[2] ?? "").replaceAll("&amp;", "&"));
}

/** The ids (and legacy `name` anchors) a page defines. */
function anchorsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\s(?:id|name)\s*=\s*"([^"]+)"/g)].map((match) => match[1] ?? ""));
}

/** Checks every page under `root`. */
export function checkLinks(root: string): LinkReport {
  const pages = htmlFiles(root);
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let found = anchorCache.get(file);
    if (found === undefined) {
      found = anchorsOf(readFileSync(file, "utf8"));
      anchorCache.set(file, found);
    }
    return found;
  };
  const report: LinkReport = { pages: pages.length, internalLinks: 0, externalLinks: 0, broken: [] };
  for (const page of pages) {
    const html = readFileSync(page, "utf8");
    const name = relative(root, page).split(sep).join("/");
    for (const link of linksOf(html)) {
      if (EXTERNAL.test(link) || link.startsWith("//")) {
        report.externalLinks += 1;
        continue;
      }
      report.internalLinks += 1;
      const problem = problemOf(root, page, link, anchors);
      if (problem !== undefined) report.broken.push({ page: name, link, problem });
    }
  }
  return report;
}

/** Why `link`, written on `page`, does not resolve inside `root`; `undefined` when it does. */
function problemOf(
  root: string,
  page: string,
  link: string,
  anchors: (file: string) => Set<string>,
): string | undefined {
  const hashAt = link.indexOf("#");
  const pathPart = (hashAt === -1 ? link : link.slice(0, hashAt)).replace(/\?.*$/, "");
  const fragment = hashAt === -1 ? "" : decodeURIComponent(link.slice(hashAt + 1));
  let target = pathPart === "" ? page : resolve(dirname(page), decodeURIComponent(pathPart));
  if (!target.startsWith(root)) return "points outside the site";
  if (existsSync(target) && statSync(target).isDirectory()) target = join(target, "index.html");
  if (!existsSync(target)) return `no file ${relative(root, target)}`;
  // TypeDoc writes `#` alone for "top of page" links; any other fragment must exist on the target page.
  if (fragment !== "" && target.endsWith(".html") && !anchors(target).has(fragment)) {
    return `no id "${fragment}" on ${relative(root, target)}`;
  }
  return undefined;
}
