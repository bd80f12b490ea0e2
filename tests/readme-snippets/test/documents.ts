// The repository's Markdown as a reader meets it: which documents there are, their fenced blocks (what language
// each is, whether it is code the tests check, why one is left out), their install lines and the documents they send
// the reader to for installation. Pure text work: nothing here compiles or runs.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";

/** Fenced code in these languages is TypeScript the snippet test compiles. */
export const TS_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ["ts", ".ts"],
  ["typescript", ".ts"],
  ["tsx", ".tsx"],
  ["mts", ".mts"],
  ["cts", ".cts"],
]);
/** Fenced code in these languages is JavaScript the snippet test compiles (`checkJs`). */
export const JS_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ["js", ".js"],
  ["javascript", ".js"],
  ["jsx", ".jsx"],
  ["mjs", ".mjs"],
  ["cjs", ".cjs"],
]);
/** Shells: their blocks hold the install lines. */
export const SHELL_LANGUAGES: ReadonlySet<string> = new Set(["sh", "bash", "shell", "zsh", "console"]);
/** Not code a compiler can check: commands, data, schemas, output. */
export const OTHER_LANGUAGES: ReadonlySet<string> = new Set([
  ...SHELL_LANGUAGES,
  "text",
  "txt",
  "sql",
  "json",
  "jsonc",
  "json5",
  "yaml",
  "yml",
  "toml",
  "ini",
  "env",
  "dotenv",
  "prisma",
  "http",
  "diff",
  "html",
  "xml",
  "css",
  "graphql",
  "mermaid",
  "csv",
  "log",
  "nginx",
  "dockerfile",
]);

/** Markdown the tests never read: dependencies, build output, generated changelogs and release notes. */
const SKIPPED_DIRECTORIES = new Set(["node_modules", ".git", "dist", ".turbo", "coverage", ".snippets", ".changeset"]);
const SKIPPED_FILES = new Set(["CHANGELOG.md"]);

/** Every Markdown document of the repository (relative, `/`-separated, sorted). */
export function markdownDocuments(repo: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) walk(join(dir, entry.name));
      } else if (entry.isFile() && entry.name.endsWith(".md") && !SKIPPED_FILES.has(entry.name)) {
        found.push(relative(repo, join(dir, entry.name)).split("\\").join("/"));
      }
    }
  };
  walk(repo);
  return found.sort();
}

export type BlockKind = "ts" | "js" | "other" | "none" | "unknown";

export interface FencedBlock {
  readonly doc: string;
  /** Line of the opening fence (1-based). */
  readonly fenceLine: number;
  /** Line of the first line of code (1-based). */
  readonly line: number;
  /** The info string's first word, lower case; "" when the fence names none. */
  readonly language: string;
  readonly kind: BlockKind;
  /** The code, with the fence's indentation taken off. */
  readonly code: string;
  /** The reason given by a `<!-- snippet-check: skip ... -->` marker right above the fence, if any. */
  readonly skipReason: string | undefined;
  /** A skip marker is there but gives no reason (or too short a one). */
  readonly skipWithoutReason: boolean;
}

const kindOf = (language: string): BlockKind =>
  language === ""
    ? "none"
    : TS_LANGUAGES.has(language)
      ? "ts"
      : JS_LANGUAGES.has(language)
        ? "js"
        : OTHER_LANGUAGES.has(language)
          ? "other"
          : "unknown";

/** `<!-- snippet-check: skip: why -->` on a line of its own: the one way to leave a block in a checked language out. */
const SKIP_MARKER = /^\s*<!--\s*snippet-check:\s*skip\b[\s:—–-]*([\s\S]*?)\s*-->\s*$/;
/** A reason is a sentence, not a word: at least this many characters. */
const MIN_REASON_LENGTH = 20;

/**
 * The fenced blocks of a document, as CommonMark reads them: backtick or tilde fences of 3 or more, indented or not
 * (a fence under a list item is a block too), closed by a fence of the same character at least as long.
 */
export function fencedBlocks(doc: string, text: string): FencedBlock[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`]*)$/.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, indent = "", fence = "", info = ""] = open;
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    let end = i + 1;
    while (end < lines.length && !close.test(lines[end] ?? "")) end++;
    const code = lines
      .slice(i + 1, end)
      .map((codeLine) => (codeLine.startsWith(indent) ? codeLine.slice(indent.length) : codeLine.trimStart()))
      .join("\n");
    const language = (info.trim().split(/[\s{]/)[0] ?? "").toLowerCase();
    let above = i - 1;
    while (above >= 0 && (lines[above] ?? "").trim() === "") above--;
    const marker = above >= 0 ? SKIP_MARKER.exec(lines[above] ?? "") : null;
    const reason = marker?.[1]?.trim();
    blocks.push({
      doc,
      fenceLine: i + 1,
      line: i + 2,
      language,
      kind: kindOf(language),
      code,
      skipReason: reason !== undefined && reason.length >= MIN_REASON_LENGTH ? reason : undefined,
      skipWithoutReason: marker !== null && (reason === undefined || reason.length < MIN_REASON_LENGTH),
    });
    i = end;
  }
  return blocks;
}

/** Skip markers that stand above no block in a checked language (left behind, or above a shell block). */
export function strayMarkers(doc: string, text: string, blocks: readonly FencedBlock[]): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const honoured = new Set<number>();
  for (const block of blocks) {
    if (block.skipReason === undefined && !block.skipWithoutReason) continue;
    let above = block.fenceLine - 2;
    while (above >= 0 && (lines[above] ?? "").trim() === "") above--;
    if (block.kind === "ts" || block.kind === "js") honoured.add(above + 1);
  }
  return lines.flatMap((line, index) =>
    SKIP_MARKER.test(line) && !honoured.has(index + 1)
      ? [`${doc}:${index + 1}: a snippet-check skip marker must stand right above a ts or js block`]
      : [],
  );
}

export interface InstallLine {
  readonly doc: string;
  readonly line: number;
  readonly packages: readonly string[];
}

/** `express@5`, `@scope/name@^1` → the package name; anything that is not a package name → undefined. */
export function packageNameOf(token: string): string | undefined {
  const match = /^((?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*)(?:@.*)?$/i.exec(token);
  return match?.[1];
}

/** The package a module specifier loads (`pg`, `@kirimbayar/core/webhooks` → `@kirimbayar/core`). */
export function packageOfSpecifier(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/**
 * The packages a shell block installs: `npm install|i|add`, `pnpm add|install|i`, `yarn add`, `bun add` with package
 * arguments (flags such as `--save-dev` skipped), one command per `&&`/`;`-separated part. A trailing comment
 * `# or: a b` names alternatives the line installs instead ("pg-boss # or: bullmq"): those count as installed too.
 */
export function installLines(block: FencedBlock): InstallLine[] {
  if (!SHELL_LANGUAGES.has(block.language)) return [];
  const found: InstallLine[] = [];
  block.code.split("\n").forEach((text, index) => {
    const [command = "", comment = ""] = text.split(/\s#\s?/, 2);
    const packages: string[] = [];
    for (const part of command.split(/&&|;|\|\|/)) {
      const [tool, verb, ...args] = part
        .trim()
        .replace(/^\$\s*/, "")
        .split(/\s+/);
      const installs =
        (tool === "npm" && ["install", "i", "add"].includes(verb ?? "")) ||
        (tool === "pnpm" && ["add", "install", "i"].includes(verb ?? "")) ||
        ((tool === "yarn" || tool === "bun") && verb === "add");
      if (!installs) continue;
      for (const arg of args) {
        if (arg.startsWith("-")) continue;
        const name = packageNameOf(arg);
        if (name !== undefined) packages.push(name);
      }
    }
    if (packages.length === 0) return;
    const alternatives = /\bor:\s*([^)]*)/.exec(comment)?.[1] ?? "";
    for (const word of alternatives.split(/[\s,]+/)) {
      const name = /^(?:@[a-z0-9-]+\/)?[a-z0-9][\w.-]*$/.test(word) ? packageNameOf(word) : undefined;
      if (name !== undefined) packages.push(name);
    }
    found.push({ doc: block.doc, line: block.line + index, packages });
  });
  return found;
}

/** Links of the repository's own GitHub pages, read as the files they show. */
const GITHUB_TREE = /^https:\/\/github\.com\/kirimbayar\/kirimbayar\/(?:tree|blob)\/main\/([^#?]*)/;

/**
 * The documents a document sends the reader to for installation: the Markdown links (to a document of the repository,
 * or to a folder with a README) in any sentence that says "install". One hop only: what those documents point to in
 * turn does not count.
 */
export function installPointers(repo: string, doc: string, text: string): string[] {
  const prose = text.replace(/\r\n?/g, "\n").replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\2\s*$/gm, "");
  const targets = new Set<string>();
  const sentences = prose.split(/\n\s*\n/).flatMap((paragraph) => paragraph.split(/(?<=[.!?])\s+(?=[A-Z[`*])/));
  for (const sentence of sentences) {
    if (!/\binstall/i.test(sentence)) continue;
    for (const [, href = ""] of sentence.matchAll(/\]\(([^)\s]+)\)/g)) {
      const local = GITHUB_TREE.exec(href)?.[1];
      if (local === undefined && /^[a-z]+:/i.test(href)) continue;
      const path = local ?? posix.join(posix.dirname(doc), href.split("#")[0] ?? "");
      const file = path.endsWith(".md") ? path : posix.join(path, "README.md");
      if (file !== doc && existsSync(join(repo, file)) && statSync(join(repo, file)).isFile()) targets.add(file);
    }
  }
  return [...targets];
}

export interface MarkdownDocument {
  readonly path: string;
  readonly text: string;
  readonly blocks: readonly FencedBlock[];
}

export function readDocuments(repo: string): MarkdownDocument[] {
  return markdownDocuments(repo).map((path) => {
    const text = readFileSync(join(repo, path), "utf8");
    return { path, text, blocks: fencedBlocks(path, text) };
  });
}
