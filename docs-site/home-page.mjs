// The site's home page: which release it documents (the packages' versions, read at build time), then the guides'
// introduction (docs/guides/index.md, without its front matter) so the site opens on where to start, not on a
// package list. The introduction stays written once, in docs/guides; this page is generated and never committed.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** Relative markdown links of `markdown`, written from `fromDir`, rewritten to work from `toDir`. */
export function rebaseLinks(markdown, fromDir, toDir) {
  return markdown.replace(/\]\(([^)\s]+)\)/g, (link, target) => {
    if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(target)) return link;
    const [path, fragment] = target.split("#", 2);
    const rebased = relative(toDir, resolve(fromDir, path)).replaceAll("\\", "/");
    return `](${rebased}${fragment === undefined ? "" : `#${fragment}`})`;
  });
}

/** The release line: one version when every package shares it, else each package's own. */
export function releaseLine(packages) {
  const versions = new Set(packages.map((pkg) => pkg.version));
  if (versions.size === 1) {
    return `This site documents kirimbayar **${[...versions][0]}**: every \`@kirimbayar/*\` package at that version.`;
  }
  const list = packages.map((pkg) => `\`${pkg.name}\` ${pkg.version}`).join(", ");
  return `This site documents the kirimbayar release made of ${list}.`;
}

/** The markdown of the home page, to be written at `homePath`. */
export function homePageMarkdown({ packages, guidesDir, homePath }) {
  const introPath = join(guidesDir, "index.md");
  const intro = existsSync(introPath)
    ? readFileSync(introPath, "utf8")
        .replace(/^---\n[\s\S]*?\n---\n/, "")
        .replace(/^\s*# .*\n/, "")
    : "";
  // TypeDoc titles the page with the project's name: the page starts with the release it documents.
  return [
    `> ${releaseLine(packages)} The menu lists the guides by task, then the API reference of each package and entry`,
    "> point; the search box covers both.",
    "",
    rebaseLinks(intro, guidesDir, dirname(homePath)).trim(),
    "",
  ].join("\n");
}
