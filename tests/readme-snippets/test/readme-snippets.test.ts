// Every code block of the repository's Markdown (the READMEs, docs/guides, examples, bench, tests) must work for a
// reader who copies it into an app. Rules, each a test below:
//
// 1. Every fenced block names its language, one this test knows. Blocks in TypeScript (`ts`, `typescript`, `tsx`,
//    `mts`, `cts`) and JavaScript (`js`, `javascript`, `jsx`, `mjs`, `cjs`) are code and are compiled; shell, SQL,
//    JSON, text, output and schemas are not. A block in a checked language may be left out only with a marker right
//    above it that says why: `<!-- snippet-check: skip: <the reason, a sentence> -->`.
// 2. The code type-checks (strict) against the packages as installed here, @kirimbayar/* from the built workspace.
//    - A snippet that imports anything must import everything it uses from a package (what users copy is complete).
//    - A fragment without imports (a few lines showing one call) gets imports added for the package names it uses.
//    - Names that stand for the reader's own code (`markPaid`, `orders`, ...) are declared in placeholders.d.ts. A
//      placeholder never shares its name with an export of our packages, every one is used by some snippet, and a
//      page never uses a placeholder under the name another of its snippets gives to something else (`orders` the
//      reader's service in one snippet, an OrderWebhookClient in the next).
//    - A snippet whose first line is `// <file>.ts` is written under that name, so snippets of one document can
//      import each other (`import { AppModule } from "./app.module"`); two snippets of a document never share one.
//    - A snippet that mentions Jest is compiled with Jest's globals (and only that one).
// 3. Install lines are complete. Every package a document's snippets need appears in an install line (`npm install`,
//    `npm i`, `pnpm add`, `yarn add`, `bun add`, in a shell block; `# or: x` after one names alternatives) of that
//    document, or of a document it sends the reader to for installation: one linked from a paragraph that says
//    "install" (one hop). A snippet needs: the packages it imports (auto-imports of fragments included, Node's
//    built-ins excepted), the `@types/*` package a TypeScript import takes its types from, the package behind each
//    placeholder it uses (placeholders.d.ts: its `import("x")` types or `@package x` tag), the optional peer of each
//    entry point it imports (ENTRY_PEERS), the driver or platform its code picks (a TypeORM `type`, a Knex `client`,
//    NestJS's default platform, ...: requirements.ts), and, for every package needed, its required peers.
// 4. SQL handed to a query call has the bind placeholders of the database its snippet names ($1 on PostgreSQL, ? on
//    MySQL and MariaDB, ? for Knex's raw on both); a snippet that names both databases may only hand over SQL that
//    works on both. sql-servers.test.ts also prepares each statement on a real PostgreSQL and MariaDB.
import { describe, expect, it } from "vitest";
import { installLines, installPointers, type MarkdownDocument, readDocuments, strayMarkers } from "./documents.js";
import {
  ENTRY_PEERS,
  manifestOf,
  PEERS_NOT_TIED_TO_AN_ENTRY,
  type Requirement,
  requirementsOf,
  withRequiredPeers,
} from "./requirements.js";
import { type Compilation, compileSnippets, placeholderPackages, repo, type Snippet, snippetOf } from "./snippets.js";
import { dialectProblems, sqlStatements } from "./sql.js";

/** The documents a user installs from; the repository's own test and contributor notes are not among them. */
const INSTALL_SCOPE = (path: string) => !path.startsWith("tests/") && path !== "CONTRIBUTING.md";

const documents = readDocuments(repo);
const byPath = new Map(documents.map((doc) => [doc.path, doc]));
const blocks = documents.flatMap((doc) => doc.blocks);
const checked = blocks.filter(
  (block) => (block.kind === "ts" || block.kind === "js") && block.skipReason === undefined,
);
const snippets = checked.map(snippetOf);

describe("the documents' code blocks", () => {
  it("finds the documents and their snippets (a parsing change must not silently skip them)", () => {
    const paths = documents.map((doc) => doc.path);
    for (const expected of ["README.md", "CONTRIBUTING.md", "examples/README.md", "bench/README.md"]) {
      expect(paths).toContain(expected);
    }
    expect(paths.filter((path) => /^packages\/[^/]+\/README\.md$/.test(path)).length).toBeGreaterThanOrEqual(8);
    expect(paths.filter((path) => path.startsWith("docs/guides/")).length).toBeGreaterThanOrEqual(40);
    expect(paths.some((path) => path.includes("node_modules") || path.endsWith("CHANGELOG.md"))).toBe(false);
    expect(snippets.length).toBeGreaterThanOrEqual(90);
    expect(snippets.some((s) => s.language === "js")).toBe(true);
    for (const doc of documents.filter((d) => /^packages\/[^/]+\/README\.md$/.test(d.path))) {
      expect(
        snippets.some((s) => s.doc === doc.path),
        doc.path,
      ).toBe(true);
    }
  });

  it("name their language, one the test knows", () => {
    const unnamed = blocks
      .filter((block) => block.kind === "none" || block.kind === "unknown")
      .map((block) =>
        block.kind === "none"
          ? `${block.doc}:${block.fenceLine}: a fence without a language (ts/js to have it checked, else text, sh, sql, json, ...)`
          : `${block.doc}:${block.fenceLine}: unknown language "${block.language}" (add it to documents.ts if it is not code)`,
      );
    expect(unnamed).toEqual([]);
  });

  it("in a checked language are checked, or say why not", () => {
    const silent = blocks
      .filter((block) => block.skipWithoutReason)
      .map((block) => `${block.doc}:${block.fenceLine}: a snippet-check skip marker must give its reason (a sentence)`);
    const stray = documents.flatMap((doc) => strayMarkers(doc.path, doc.text, doc.blocks));
    expect([...silent, ...stray]).toEqual([]);
  });

  it("give each named snippet of a document its own file name", () => {
    const seen = new Map<string, Snippet>();
    const clashes: string[] = [];
    for (const snippet of snippets) {
      const key = `${snippet.doc}/${snippet.fileName}`;
      const other = seen.get(key);
      if (other)
        clashes.push(`${snippet.doc}:${snippet.line}: ${snippet.fileName} again (first at line ${other.line})`);
      seen.set(key, snippet);
    }
    expect(clashes).toEqual([]);
  });
});

describe("snippets compiled", () => {
  // Compiled once, by the first test that needs it (the compiler takes most of this file's time).
  let compiled: Compilation | undefined;
  const compile = () => {
    compiled ??= compileSnippets(snippets);
    return compiled;
  };
  const placeholders = placeholderPackages();

  it("type-check against the built packages", () => {
    expect(compile().problems).toEqual([]);
  });

  it("use placeholders only for the reader's own code", () => {
    const compilation = compile();
    const problems: string[] = [];
    // A placeholder named like one of our exports would hide a missing import of it.
    for (const name of placeholders.keys()) {
      const clash = compilation.exportedNames.get(name);
      if (clash) problems.push(`placeholders.d.ts: ${name} is also exported by ${clash}: import it, do not declare it`);
    }
    // A placeholder no snippet uses any more is one nobody checks the meaning of.
    const used = new Set([...compilation.facts.values()].flatMap((facts) => [...facts.placeholders]));
    for (const name of placeholders.keys()) {
      if (!used.has(name)) problems.push(`placeholders.d.ts: no snippet uses ${name} any more: delete it`);
    }
    // A page that names `x` one thing in a snippet must not lean on the placeholder `x` for something else.
    for (const snippet of snippets) {
      const facts = compilation.facts.get(snippet);
      for (const name of facts?.placeholders ?? []) {
        const placeholderType = compilation.placeholderTypes.get(name);
        for (const other of snippets) {
          if (other === snippet || other.doc !== snippet.doc) continue;
          const declared = compilation.facts.get(other)?.declared.get(name);
          if (declared === undefined || placeholderType === undefined) continue;
          const checker = compilation.checkerOf(other);
          if (compilation.checkerOf(snippet) === checker && checker.isTypeAssignableTo(declared, placeholderType)) {
            continue;
          }
          problems.push(
            `${snippet.doc}:${snippet.line}: uses \`${name}\` as the reader's own code, but the snippet at line ${other.line} declares \`${name}\` as ${checker.typeToString(declared)}: rename one`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("have complete install lines: every package a page's snippets need is installed by it or a page it points to", () => {
    const compilation = compile();
    const needs = new Map<string, Requirement[]>();
    for (const snippet of snippets) {
      const facts = compilation.facts.get(snippet);
      if (facts === undefined) continue;
      needs.set(snippet.doc, [...(needs.get(snippet.doc) ?? []), ...requirementsOf(snippet, facts, placeholders)]);
    }
    const installedBy = (doc: MarkdownDocument) => doc.blocks.flatMap(installLines).flatMap((line) => line.packages);
    const problems: string[] = [];
    for (const [path, requirements] of needs) {
      if (!INSTALL_SCOPE(path)) continue;
      const doc = byPath.get(path) as MarkdownDocument;
      const pointers = installPointers(repo, path, doc.text);
      const installed = new Set([
        ...installedBy(doc),
        ...pointers.flatMap((pointer) => installedBy(byPath.get(pointer) as MarkdownDocument)),
      ]);
      const missing = new Map<string, string>();
      for (const requirement of withRequiredPeers(requirements)) {
        if (!installed.has(requirement.name) && !missing.has(requirement.name)) {
          missing.set(requirement.name, requirement.why);
        }
      }
      if (missing.size === 0) continue;
      const where = pointers.length > 0 ? ` (nor ${pointers.join(", ")}, which it points to)` : "";
      problems.push(
        `${path}: no install line of this page${where} installs ${[...missing.keys()].join(" ")}:\n${[...missing]
          .map(([name, why]) => `    ${name}: ${why}`)
          .join("\n")}`,
      );
    }
    expect(problems).toEqual([]);
  });

  it("hand SQL over with the bind placeholders of their database", () => {
    const statements = snippets.flatMap(sqlStatements);
    expect(statements.length).toBeGreaterThanOrEqual(3);
    expect(statements.flatMap(dialectProblems)).toEqual([]);
  });
});

describe("the install-line rules' tables", () => {
  it("name optional peers of the packages, and every optional peer is in one of them", () => {
    const problems: string[] = [];
    const tables = [ENTRY_PEERS, PEERS_NOT_TIED_TO_AN_ENTRY];
    for (const [entry, peers] of tables.flatMap((table) => Object.entries(table))) {
      const name = entry.split("/").slice(0, 2).join("/");
      const manifest = manifestOf(name);
      for (const peer of peers) {
        if (manifest?.peerDependenciesMeta?.[peer]?.optional !== true) {
          problems.push(`${entry}: ${peer} is not an optional peer of ${name}`);
        }
      }
    }
    for (const name of ["console", "core", "express", "fastify", "hono", "inbox", "nestjs", "testing"]) {
      const manifest = manifestOf(`@kirimbayar/${name}`);
      for (const [peer, meta] of Object.entries(manifest?.peerDependenciesMeta ?? {})) {
        if (meta.optional !== true) continue;
        const listed = tables.some((table) =>
          Object.entries(table).some(
            ([entry, peers]) => entry.startsWith(`@kirimbayar/${name}`) && peers.includes(peer),
          ),
        );
        if (!listed) problems.push(`@kirimbayar/${name}: optional peer ${peer} is in neither table`);
      }
    }
    expect(problems).toEqual([]);
  });
});
