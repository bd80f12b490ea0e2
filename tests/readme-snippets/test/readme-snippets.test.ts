// Every ```ts snippet of the READMEs must type-check against the built packages, so a quick start copied into an
// app compiles. Rules:
// - A snippet that imports anything must import everything it uses from a package (what users copy is complete).
// - A fragment without imports (a few lines showing one call) gets imports added for the package names it uses.
// - Names that stand for the reader's own code (`markPaid`, `orders`, ...) are declared in placeholders.d.ts.
// - A snippet whose first line is `// <file>.ts` is written under that name, so snippets of one README can import
//   each other (`import { AppModule } from "./app.module"`).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = dirname(here);
const repo = resolve(packageDir, "../..");
// Inside this package, so the snippets' imports resolve to its node_modules.
const workDir = join(packageDir, ".snippets");

const READMES = [
  "README.md",
  "packages/console/README.md",
  "packages/core/README.md",
  "packages/express/README.md",
  "packages/fastify/README.md",
  "packages/hono/README.md",
  "packages/inbox/README.md",
  "packages/nestjs/README.md",
  "packages/testing/README.md",
];

// The docs site's guides (docs/guides/**/*.md) obey the same rules: every ```ts or ```typescript block compiles.
const GUIDES_DIR = "docs/guides";
const GUIDES = existsSync(join(repo, GUIDES_DIR))
  ? readdirSync(join(repo, GUIDES_DIR), { recursive: true, encoding: "utf8" })
      .filter((path) => path.endsWith(".md"))
      .map((path) => `${GUIDES_DIR}/${path.split("\\").join("/")}`)
      .sort()
  : [];

// Where a fragment's missing names are looked up, first match wins; a package's own README looks in it first.
const AUTO_IMPORT_MODULES = [
  "@kirimbayar/core/webhooks",
  "@kirimbayar/core",
  "@kirimbayar/core/redis",
  "@kirimbayar/core/postgres",
  "@kirimbayar/core/telemetry",
  "@kirimbayar/express",
  "@kirimbayar/fastify",
  "@kirimbayar/hono",
  "@kirimbayar/inbox",
  "@kirimbayar/nestjs",
  "@kirimbayar/testing",
  "@nestjs/common",
  "@nestjs/core",
  "hono",
  "vitest",
];

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: ["node"],
  typeRoots: [join(repo, "node_modules/@types")],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
};

interface Snippet {
  readme: string;
  /** README line of the snippet's first code line. */
  line: number;
  code: string;
  fileName: string;
  hasImports: boolean;
  /** Lines added above the code (auto-imports). */
  prelude: string[];
}

function snippetsOf(readme: string): Snippet[] {
  const text = readFileSync(join(repo, readme), "utf8");
  const snippets: Snippet[] = [];
  // READMEs fence TypeScript as ```ts; guides may also write ```typescript. A fence indented under a list item is
  // a snippet too (its indentation is taken off).
  const fence = readme.startsWith(`${GUIDES_DIR}/`)
    ? /^( *)```(?:ts|typescript)\n([\s\S]*?)^\1```$/gm
    : /^( *)```ts\n([\s\S]*?)^\1```$/gm;
  for (const match of text.matchAll(fence)) {
    const indent = match[1] ?? "";
    const code = (match[2] ?? "")
      .split("\n")
      .map((codeLine) => (codeLine.startsWith(indent) ? codeLine.slice(indent.length) : codeLine))
      .join("\n");
    const line = text.slice(0, match.index).split("\n").length + 1;
    const named = /^\/\/ ([\w.-]+)\.ts\b/.exec(code);
    snippets.push({
      readme,
      line,
      code,
      fileName: named ? `${named[1]}.ts` : `snippet-${line}.ts`,
      hasImports: /^import\s/m.test(code),
      prelude: [],
    });
  }
  return snippets;
}

const pathOf = (snippet: Snippet) => join(workDir, snippet.readme.replaceAll("/", "__"), snippet.fileName);

function compile(snippets: Snippet[]): readonly ts.Diagnostic[] {
  rmSync(workDir, { recursive: true, force: true });
  for (const snippet of snippets) {
    mkdirSync(dirname(pathOf(snippet)), { recursive: true });
    writeFileSync(pathOf(snippet), [...snippet.prelude, snippet.code].join("\n"));
  }
  const roots = [...snippets.map(pathOf), join(here, "placeholders.d.ts")];
  const program = ts.createProgram(roots, compilerOptions);
  return ts.getPreEmitDiagnostics(program);
}

/** The names each module exports (values and types). */
function exportsOf(modules: readonly string[]): Map<string, Set<string>> {
  mkdirSync(workDir, { recursive: true });
  const probe = join(workDir, "probe.ts");
  writeFileSync(probe, modules.map((name, i) => `import * as m${i} from "${name}";`).join("\n"));
  const program = ts.createProgram([probe], compilerOptions);
  const checker = program.getTypeChecker();
  const exported = new Map<string, Set<string>>();
  for (const statement of program.getSourceFile(probe)?.statements ?? []) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const symbol = checker.getSymbolAtLocation(statement.moduleSpecifier);
    if (symbol === undefined) throw new Error(`cannot resolve ${statement.moduleSpecifier.text}`);
    exported.set(statement.moduleSpecifier.text, new Set(checker.getExportsOfModule(symbol).map((s) => s.name)));
  }
  return exported;
}

/** The module a fragment of `readme` imports `name` from: the README's own package first, then the list's order. */
function moduleFor(name: string, readme: string, exported: Map<string, Set<string>>): string | undefined {
  const own = /^packages\/([^/]+)\//.exec(readme)?.[1];
  const order = own ? [`@kirimbayar/${own}`, ...AUTO_IMPORT_MODULES] : AUTO_IMPORT_MODULES;
  return order.find((module) => exported.get(module)?.has(name));
}

const missingName = (diagnostic: ts.Diagnostic) =>
  /Cannot find name '([^']+)'/.exec(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))?.[1];

function describeDiagnostic(diagnostic: ts.Diagnostic, snippets: Snippet[]): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
  const snippet = snippets.find((s) => diagnostic.file?.fileName === pathOf(s));
  if (snippet === undefined || diagnostic.file === undefined || diagnostic.start === undefined) return message;
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return `${snippet.readme}:${snippet.line + line - snippet.prelude.length}: ${message}`;
}

describe("README and guide snippets", () => {
  const snippets = [...READMES, ...GUIDES].flatMap(snippetsOf);

  it("finds the snippets (a fence change must not silently skip them all)", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(20);
    for (const readme of READMES) expect(snippets.some((s) => s.readme === readme)).toBe(true);
  });

  it("finds the guides' snippets (the docs site shows them: they must compile too)", () => {
    expect(GUIDES.length).toBeGreaterThanOrEqual(1);
    expect(snippets.filter((s) => s.readme.startsWith(`${GUIDES_DIR}/`)).length).toBeGreaterThanOrEqual(1);
  });

  it("type-check against the built packages", () => {
    // Pass 1 finds the names each import-less fragment lacks; pass 2 checks everything with those imported.
    const exported = exportsOf(AUTO_IMPORT_MODULES);
    for (const diagnostic of compile(snippets)) {
      const name = missingName(diagnostic);
      const snippet = snippets.find((s) => diagnostic.file?.fileName === pathOf(s));
      if (name === undefined || snippet === undefined || snippet.hasImports) continue;
      const from = moduleFor(name, snippet.readme, exported);
      if (from === undefined) continue;
      const line = `import { ${name} } from "${from}";`;
      if (!snippet.prelude.includes(line)) snippet.prelude.push(line);
    }
    const problems = compile(snippets).map((d) => describeDiagnostic(d, snippets));
    expect(problems).toEqual([]);
  });
});
