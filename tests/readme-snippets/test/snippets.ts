// Compiles the documents' code blocks with the TypeScript compiler, against the packages as this folder installs
// them (the workspace's built `dist` for @kirimbayar/*), and reports what each snippet uses: the modules it imports
// (its own imports, and those added to an import-less fragment) and the placeholders (placeholders.d.ts) it leans on.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { type FencedBlock, JS_LANGUAGES, TS_LANGUAGES } from "./documents.js";

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = dirname(here);
export const repo = resolve(packageDir, "../..");
// Inside this package, so the snippets' imports resolve to its node_modules.
const workDir = join(packageDir, ".snippets");
export const placeholdersFile = join(here, "placeholders.d.ts");

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

/** Every entry point of our packages (`@kirimbayar/core/webhooks`, ...), from their manifests' `exports`. */
export function kirimbayarEntries(): string[] {
  const packagesDir = join(repo, "packages");
  return readdirSync(packagesDir).flatMap((dir) => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8")) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    return Object.keys(manifest.exports ?? { ".": "" })
      .filter((key) => !key.endsWith(".json"))
      .map((key) => (key === "." ? manifest.name : `${manifest.name}/${key.slice(2)}`));
  });
}

const baseOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  moduleDetection: ts.ModuleDetectionKind.Force,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: ["node"],
  typeRoots: [join(repo, "node_modules/@types"), join(packageDir, "node_modules/@types")],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  experimentalDecorators: true,
  emitDecoratorMetadata: true,
  allowJs: true,
  checkJs: true,
  jsx: ts.JsxEmit.ReactJSX,
};
/** Snippets that run under Jest get Jest's globals (`test`, `expect`, `beforeAll`), and only those snippets. */
const withJest = (options: ts.CompilerOptions): ts.CompilerOptions => ({ ...options, types: ["node", "jest"] });
/** JavaScript has no annotations to give: `let provider;` is not an error there, every wrong call still is. */
const javascriptOptions: ts.CompilerOptions = { ...baseOptions, noImplicitAny: false };

export interface Snippet {
  readonly block: FencedBlock;
  readonly doc: string;
  /** Document line of the snippet's first code line. */
  readonly line: number;
  readonly code: string;
  readonly fileName: string;
  readonly language: "ts" | "js";
  /** Its first code line says it is Jest code: compiled with Jest's globals. */
  readonly jest: boolean;
  readonly hasImports: boolean;
  /** Lines added above the code (auto-imports). */
  readonly prelude: string[];
}

/** A block in a checked language (not skipped) as a file to compile. `// name.ts` on its first line names it. */
export function snippetOf(block: FencedBlock): Snippet {
  const language = block.kind === "ts" ? "ts" : "js";
  const extension = (language === "ts" ? TS_LANGUAGES : JS_LANGUAGES).get(block.language) ?? ".ts";
  const named = /^\/\/ ([\w.-]+)\.(tsx?|mts|cts|jsx?|mjs|cjs)\b/.exec(block.code);
  return {
    block,
    doc: block.doc,
    line: block.line,
    code: block.code,
    fileName: named ? `${named[1]}.${named[2]}` : `snippet-${block.line}${extension}`,
    language,
    jest: /\bjest\b/i.test(block.code),
    hasImports: /^\s*import\s|\brequire\(\s*["']/m.test(block.code),
    prelude: [],
  };
}

export const pathOf = (snippet: Snippet) => join(workDir, snippet.doc.replaceAll("/", "__"), snippet.fileName);

/** A compiler host that parses each declaration file once across the several programs of a run. */
function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const cache = sourceFileCache;
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (fileName.startsWith(workDir)) return getSourceFile(fileName, languageVersion, onError, shouldCreate);
    const key = `${fileName}\0${typeof languageVersion === "object" ? JSON.stringify(languageVersion) : languageVersion}`;
    let file = cache.get(key);
    if (file === undefined) {
      file = getSourceFile(fileName, languageVersion, onError, shouldCreate);
      if (file !== undefined) cache.set(key, file);
    }
    return file;
  };
  return host;
}
const sourceFileCache = new Map<string, ts.SourceFile>();

function writeSnippets(snippets: readonly Snippet[]) {
  rmSync(workDir, { recursive: true, force: true });
  for (const snippet of snippets) {
    mkdirSync(dirname(pathOf(snippet)), { recursive: true });
    writeFileSync(pathOf(snippet), [...snippet.prelude, snippet.code].join("\n"));
  }
}

function createProgram(snippets: readonly Snippet[], options: ts.CompilerOptions, old?: ts.Program): ts.Program {
  return ts.createProgram({
    rootNames: [...snippets.map(pathOf), placeholdersFile],
    options,
    host: cachingHost(options),
    ...(old ? { oldProgram: old } : {}),
  });
}

/** The names each module exports (values and types). */
function exportsOf(modules: readonly string[]): Map<string, Set<string>> {
  mkdirSync(workDir, { recursive: true });
  const probe = join(workDir, "probe.ts");
  writeFileSync(probe, modules.map((name, i) => `import * as m${i} from "${name}";`).join("\n"));
  const program = ts.createProgram({ rootNames: [probe], options: baseOptions, host: cachingHost(baseOptions) });
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

/** The module a fragment of `doc` imports `name` from: the document's own package first, then the list's order. */
function moduleFor(name: string, doc: string, exported: Map<string, Set<string>>): string | undefined {
  const own = /^packages\/([^/]+)\//.exec(doc)?.[1];
  const order = own ? [`@kirimbayar/${own}`, ...AUTO_IMPORT_MODULES] : AUTO_IMPORT_MODULES;
  return order.find((module) => exported.get(module)?.has(name));
}

const missingName = (diagnostic: ts.Diagnostic) =>
  /Cannot find name '([^']+)'/.exec(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))?.[1];

export interface SnippetFacts {
  /** Bare module specifiers it imports (its own, and the auto-imports added to a fragment). */
  readonly modules: ReadonlySet<string>;
  /** For a TypeScript snippet: the `@types/*` packages its imports' types come from. */
  readonly typesPackages: ReadonlySet<string>;
  /** The placeholders (placeholders.d.ts) it uses. */
  readonly placeholders: ReadonlySet<string>;
  /** Names it declares at its top level, with their types (for the placeholder collision check). */
  readonly declared: ReadonlyMap<string, ts.Type>;
}

export interface Compilation {
  /** The names our packages export, with the first entry point that exports each. */
  readonly exportedNames: ReadonlyMap<string, string>;
  /** Every diagnostic, as `doc:line: message`. */
  readonly problems: string[];
  readonly facts: ReadonlyMap<Snippet, SnippetFacts>;
  /** The placeholders' declared types, by name. */
  readonly placeholderTypes: ReadonlyMap<string, ts.Type>;
  readonly checkerOf: (snippet: Snippet) => ts.TypeChecker;
}

function describeDiagnostic(diagnostic: ts.Diagnostic, snippets: readonly Snippet[]): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
  const snippet = snippets.find((s) => diagnostic.file?.fileName === pathOf(s));
  if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
  const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  if (snippet === undefined) return `${diagnostic.file.fileName}:${line + 1}: ${message}`;
  return `${snippet.doc}:${snippet.line + line - snippet.prelude.length}: ${message}`;
}

/** Every bare module specifier a file imports, requires or names in a type. */
function moduleSpecifiers(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === "require")) &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      if (ts.isStringLiteral(node.argument.literal)) found.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found.filter((specifier) => !specifier.startsWith(".") && !specifier.startsWith("/"));
}

function topLevelNames(file: ts.SourceFile): ts.Identifier[] {
  const names: ts.Identifier[] = [];
  for (const statement of file.statements) {
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name);
      }
    } else if ((ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name) {
      names.push(statement.name);
    }
  }
  return names;
}

function factsOf(snippet: Snippet, program: ts.Program, options: ts.CompilerOptions): SnippetFacts {
  const file = program.getSourceFile(pathOf(snippet));
  if (file === undefined) throw new Error(`${snippet.doc}:${snippet.line}: not compiled`);
  const checker = program.getTypeChecker();
  const modules = new Set(moduleSpecifiers(file).filter((specifier) => !specifier.startsWith("node:")));
  const typesPackages = new Set<string>();
  if (snippet.language === "ts") {
    for (const specifier of modules) {
      const resolved = ts.resolveModuleName(specifier, file.fileName, options, ts.sys).resolvedModule;
      const name = resolved?.packageId?.name;
      if (name?.startsWith("@types/")) typesPackages.add(name);
    }
  }
  const placeholders = new Set<string>();
  const visit = (node: ts.Node) => {
    if (ts.isIdentifier(node)) {
      // `{ verify }` names the property; the value it stands for is the shorthand's value symbol.
      const symbol =
        ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
          ? checker.getShorthandAssignmentValueSymbol(node.parent)
          : checker.getSymbolAtLocation(node);
      const declarations = symbol?.declarations ?? [];
      if (declarations.some((d) => d.getSourceFile().fileName === placeholdersFile)) placeholders.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  const declared = new Map<string, ts.Type>();
  for (const name of topLevelNames(file)) declared.set(name.text, checker.getTypeAtLocation(name));
  return { modules, typesPackages, placeholders, declared };
}

/**
 * Compiles every snippet. Pass 1 finds the names each import-less fragment lacks; pass 2 checks everything with those
 * imported. Jest snippets are compiled in a program of their own, with Jest's globals.
 */
export function compileSnippets(snippets: readonly Snippet[]): Compilation {
  const exported = exportsOf([...new Set([...AUTO_IMPORT_MODULES, ...kirimbayarEntries()])]);
  const exportedNames = new Map<string, string>();
  for (const [module, names] of exported) {
    if (!module.startsWith("@kirimbayar/")) continue;
    for (const name of names) if (!exportedNames.has(name)) exportedNames.set(name, module);
  }
  writeSnippets(snippets);
  // One program per kind of snippet (options are per program): TypeScript or JavaScript, with Jest's globals or not.
  const groups = [
    { options: baseOptions, members: snippets.filter((s) => s.language === "ts" && !s.jest) },
    { options: withJest(baseOptions), members: snippets.filter((s) => s.language === "ts" && s.jest) },
    { options: javascriptOptions, members: snippets.filter((s) => s.language === "js" && !s.jest) },
    { options: withJest(javascriptOptions), members: snippets.filter((s) => s.language === "js" && s.jest) },
  ].filter((group) => group.members.length > 0);
  const firstPasses = groups.map((group) => {
    const program = createProgram(group.members, group.options);
    for (const snippet of group.members) {
      if (snippet.hasImports) continue;
      const file = program.getSourceFile(pathOf(snippet));
      for (const diagnostic of file ? program.getSemanticDiagnostics(file) : []) {
        const name = missingName(diagnostic);
        const from = name === undefined ? undefined : moduleFor(name, snippet.doc, exported);
        if (name === undefined || from === undefined) continue;
        const line =
          snippet.language === "ts" ? `import { ${name} } from "${from}";` : `const { ${name} } = require("${from}");`;
        if (!snippet.prelude.includes(line)) snippet.prelude.push(line);
      }
    }
    return program;
  });
  writeSnippets(snippets);
  const problems: string[] = [];
  const facts = new Map<Snippet, SnippetFacts>();
  const checkers = new Map<Snippet, ts.TypeChecker>();
  let placeholderTypes = new Map<string, ts.Type>();
  groups.forEach((group, index) => {
    const program = createProgram(group.members, group.options, firstPasses[index]);
    problems.push(...ts.getPreEmitDiagnostics(program).map((d) => describeDiagnostic(d, snippets)));
    for (const snippet of group.members) {
      facts.set(snippet, factsOf(snippet, program, group.options));
      checkers.set(snippet, program.getTypeChecker());
    }
    if (group.options === baseOptions) placeholderTypes = placeholderTypesOf(program);
  });
  return {
    exportedNames,
    problems,
    facts,
    placeholderTypes,
    checkerOf: (snippet) => {
      const checker = checkers.get(snippet);
      if (checker === undefined) throw new Error("not compiled");
      return checker;
    },
  };
}

function placeholderTypesOf(program: ts.Program): Map<string, ts.Type> {
  const file = program.getSourceFile(placeholdersFile);
  const checker = program.getTypeChecker();
  const types = new Map<string, ts.Type>();
  for (const statement of file?.statements ?? []) {
    const names = ts.isVariableStatement(statement)
      ? statement.declarationList.declarations.map((d) => d.name)
      : (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name
        ? [statement.name]
        : [];
    for (const name of names) if (ts.isIdentifier(name)) types.set(name.text, checker.getTypeAtLocation(name));
  }
  return types;
}

/** The packages each placeholder's declaration names (`declare const redis: import("ioredis").Redis` → ioredis). */
export function placeholderPackages(): Map<string, string[]> {
  const source = ts.sys.readFile(placeholdersFile) ?? "";
  const file = ts.createSourceFile(placeholdersFile, source, ts.ScriptTarget.ES2022, true);
  const packages = new Map<string, string[]>();
  for (const statement of file.statements) {
    const names = ts.isVariableStatement(statement)
      ? statement.declarationList.declarations.map((d) => d.name)
      : (ts.isFunctionDeclaration(statement) || ts.isClassDeclaration(statement)) && statement.name
        ? [statement.name]
        : [];
    // Its type's `import("x")`s, and the `@package x` tags of its comment for a type written out by hand.
    const text = statement.getFullText(file);
    const specifiers = [
      ...[...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1] ?? ""),
      ...[...text.matchAll(/@package\s+(\S+)/g)].map((m) => m[1] ?? ""),
    ];
    for (const name of names) if (ts.isIdentifier(name)) packages.set(name.text, specifiers);
  }
  return packages;
}
