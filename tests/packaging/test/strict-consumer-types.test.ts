// The packaging gate of issue 38 item 2: the types of every published package compile for a strict consumer that
// installed only what the package requires. For each package, a project of its own outside the workspace installs
// its packed tarball (and those of its kirimbayar dependencies) with exactly its required peers, none of the
// optional ones, then tsc checks a file that imports every public name of every entry point, under
// `strict: true` and `skipLibCheck: false` (every declaration file the import reaches is checked, ours and the
// peers'), in an ESM (`"type": "module"`) and in a CommonJS project under `moduleResolution: node16`, and under
// `bundler`.
//
// The consumers install with pnpm in its strictest layout (no hoisting, no peer installed unless listed): a package
// then resolves only its declared dependencies and peers, so a declaration importing an optional peer that is
// absent, or a package that is not declared at all, fails here even where npm's flat node_modules would happen to
// hold it. The install is one hard-linking pass from pnpm's store per package (the registry is asked only for the
// pinned peers' metadata); nothing downloads a binary and no install script runs.
//
// scripts/test-other-nodes.mjs leaves this file out of the Node 22/24 runs by path, since what tsc reports does not
// depend on the Node running it; the main run runs it.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as TypeScript from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerPeers, type PublishedPackage, packAll, readPublishedPackages, repoRoot, run } from "./workspace.js";

const ts: typeof TypeScript = createRequire(join(repoRoot, "package.json"))("typescript");

const packages = readPublishedPackages();
const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));

/** Peers that ship no declarations of their own: a TypeScript consumer of the peer installs these beside it. */
const declarationsOf: Record<string, string> = { express: "@types/express" };

/**
 * The peers a consumer of `pkg` must install: its own required peers and, transitively, those of its kirimbayar
 * dependencies (which a package manager hoists to the consumer). Optional peers are left out, as a consumer that
 * does not use them would.
 */
function requiredPeersOf(pkg: PublishedPackage, seen = new Set<string>()): Set<string> {
  const peers = new Set<string>();
  if (seen.has(pkg.name)) return peers;
  seen.add(pkg.name);
  for (const name of Object.keys(pkg.peerDependencies)) {
    if (!pkg.optionalPeers.includes(name)) peers.add(name);
  }
  for (const dependency of pkg.dependencies) {
    const own = byName.get(dependency);
    if (own !== undefined) for (const name of requiredPeersOf(own, seen)) peers.add(name);
  }
  return peers;
}

/** The kirimbayar packages a consumer of `pkg` gets: itself and its kirimbayar dependencies, transitively. */
function ownPackagesOf(pkg: PublishedPackage, into = new Set<string>()): Set<string> {
  into.add(pkg.name);
  for (const dependency of pkg.dependencies) {
    const own = byName.get(dependency);
    if (own !== undefined && !into.has(own.name)) ownPackagesOf(own, into);
  }
  return into;
}

/**
 * Entry points that exist to work with one optional peer and load it at run time, so nobody imports them without
 * it; their consumer installs that peer. Only where no type by shape can stand in for the peer's: msw's request
 * handlers are classes with private members, so nothing but msw's own `RequestHandler` fits `setupServer(...)`.
 * msw's own declarations use the DOM's types (msw asks for the DOM library), so that consumer has it under node16
 * too. Every other entry point is checked with no optional peer at all.
 */
const entriesWithTheirPeer: Record<string, { peers: readonly string[]; dom: boolean }> = {
  "@kirimbayar/testing/msw": { peers: ["msw"], dom: true },
};

/** One consumer project: a package, the entry points it imports, and the optional peers it installs (usually none). */
interface Consumer {
  label: string;
  pkg: PublishedPackage;
  entryPoints: string[];
  optionalPeers: readonly string[];
  /** Compiles with the DOM library under node16 as well. */
  dom: boolean;
}

const consumers: Consumer[] = packages.flatMap((pkg) => {
  const plain = pkg.entryPoints.filter((entry) => entriesWithTheirPeer[entry] === undefined);
  const withPeer = pkg.entryPoints.filter((entry) => entriesWithTheirPeer[entry] !== undefined);
  return [
    ...(plain.length === 0 ? [] : [{ label: pkg.name, pkg, entryPoints: plain, optionalPeers: [], dom: false }]),
    ...withPeer.map((entry) => {
      const { peers, dom } = entriesWithTheirPeer[entry] ?? { peers: [], dom: false };
      return { label: `${entry} (with ${peers.join(", ")})`, pkg, entryPoints: [entry], optionalPeers: peers, dom };
    }),
  ];
});

/**
 * The consumer's `dependencies`: the package's tarball and each peer it must install (plus the optional ones it
 * was given) at its pinned version.
 */
function consumerDependencies(consumer: Consumer, tarballs: Record<string, string>): Record<string, string> {
  const { pkg } = consumer;
  const dependencies: Record<string, string> = { [pkg.name]: tarballs[pkg.name] as string };
  const names = [...requiredPeersOf(pkg), ...consumer.optionalPeers].filter((name) => !name.startsWith("@kirimbayar/"));
  for (const name of names) {
    const typesPackage = declarationsOf[name];
    if (typesPackage !== undefined) names.push(typesPackage);
  }
  names.push("@types/node");
  for (const name of names) {
    const version = consumerPeers[name];
    if (version === undefined) throw new Error(`${pkg.name} requires ${name}: pin its version in consumerPeers`);
    dependencies[name] = version;
  }
  return dependencies;
}

/**
 * How a consumer compiles: the module format of its project (`"type"` of its package.json, which makes its `.ts`
 * files ESM or CommonJS under node16) and its compiler options. Under node16 without the DOM library, as
 * `@tsconfig/node20` sets a Node app up; under bundler with it, as a bundled app has.
 */
interface ConsumerMode {
  label: string;
  type: "module" | "commonjs";
  compilerOptions: Record<string, unknown>;
}

const modes: ConsumerMode[] = [
  {
    label: "node16 (ESM)",
    type: "module",
    compilerOptions: { module: "node16", moduleResolution: "node16", lib: ["es2023"] },
  },
  {
    label: "node16 (CJS)",
    type: "commonjs",
    compilerOptions: { module: "node16", moduleResolution: "node16", lib: ["es2023"] },
  },
  {
    label: "bundler",
    type: "module",
    compilerOptions: { module: "esnext", moduleResolution: "bundler", lib: ["es2023", "dom"] },
  },
];

/** What every consumer's compiler options share: strict, and every library declaration checked too. */
const strictOptions = { target: "es2022", types: ["node"], strict: true, skipLibCheck: false, noEmit: true };
let workDir = "";
const consumerDirs = new Map<string, string>();

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "kirimbayar-strict-consumers-"));
  const tarballDir = join(workDir, "tarballs");
  await mkdir(tarballDir);
  const tarballs = await packAll(packages, tarballDir);
  for (const [index, consumer] of consumers.entries()) {
    // The kirimbayar packages it gets resolve to their tarballs, never to the registry. Only those: pnpm would
    // install an optional peer it was given an override for.
    const overrides = Object.fromEntries(
      [...ownPackagesOf(consumer.pkg)].map((name) => [name, tarballs[name] as string]),
    );
    const dir = join(workDir, `consumer-${index}`);
    await mkdir(dir);
    const manifest = {
      name: `strict-consumer-${index}`,
      private: true,
      type: "module",
      dependencies: consumerDependencies(consumer, tarballs),
      pnpm: { overrides },
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
    await run(
      "pnpm",
      [
        "install",
        "--prefer-offline",
        "--ignore-scripts",
        "--no-frozen-lockfile",
        "--config.hoist=false",
        "--config.auto-install-peers=false",
        "--config.strict-peer-dependencies=true",
        "--reporter=silent",
      ],
      { cwd: dir, maxBuffer: 16 * 1024 * 1024 },
    );
    consumerDirs.set(consumer.label, dir);
  }
});

afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** One public name of an entry point, and whether it can be used as a value, as a type (with how many parameters). */
interface ExportedName {
  name: string;
  value: boolean;
  typeParameters: number | undefined;
}

/** A compiler host that reads the consumer files from `sources` (by absolute path) and the rest from disk. */
function hostWith(options: TypeScript.CompilerOptions, sources: ReadonlyMap<string, string>): TypeScript.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  const { fileExists, readFile } = host;
  host.fileExists = (path) => sources.has(path) || fileExists.call(host, path);
  host.readFile = (path) => sources.get(path) ?? readFile.call(host, path);
  return host;
}

/**
 * The public names of each entry point as `file` sees them (values, types, and the type parameters of generic
 * types), read with TypeScript's checker from the `import * as` declarations of the probe file. An entry that does
 * not resolve has no names (the check reports why).
 */
function exportedNames(program: TypeScript.Program, file: string): ExportedName[][] {
  const checker = program.getTypeChecker();
  const imports = program.getSourceFile(file)?.statements.filter(ts.isImportDeclaration) ?? [];
  return imports.map((declaration) => {
    const moduleSymbol = checker.getSymbolAtLocation(declaration.moduleSpecifier);
    if (moduleSymbol === undefined) return [];
    return checker.getExportsOfModule(moduleSymbol).map((exported) => {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const generic = target.declarations?.find(
        (node) => ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isClassDeclaration(node),
      ) as TypeScript.InterfaceDeclaration | TypeScript.TypeAliasDeclaration | TypeScript.ClassDeclaration | undefined;
      return {
        name: exported.name,
        value: (target.flags & ts.SymbolFlags.Value) !== 0,
        typeParameters: (target.flags & ts.SymbolFlags.Type) !== 0 ? (generic?.typeParameters?.length ?? 0) : undefined,
      };
    });
  });
}

/**
 * The consumer file: imports every public name of every entry point by name, and uses each one, every value in an
 * array and every type in a tuple type (generics with `any` arguments), so that each export's declaration is
 * resolved, not only the module.
 */
function consumerSource(specifiers: readonly string[], names: readonly ExportedName[][]): string {
  const lines: string[] = [];
  const values: string[] = [];
  const types: string[] = [];
  specifiers.forEach((specifier, index) => {
    const exported = names[index] ?? [];
    if (exported.length === 0) {
      lines.push(`import * as entry${index} from "${specifier}";`, `export { entry${index} };`);
      return;
    }
    const bindings = exported.map(({ name, value }) => `${value ? "" : "type "}${name} as e${index}_${name}`);
    lines.push(`import { ${bindings.join(", ")} } from "${specifier}";`);
    for (const { name, value, typeParameters } of exported) {
      const local = `e${index}_${name}`;
      if (value) values.push(local);
      if (typeParameters !== undefined) {
        types.push(typeParameters === 0 ? local : `${local}<${Array(typeParameters).fill("any").join(", ")}>`);
      }
    }
  });
  lines.push(`export const everyValue = [${values.join(", ")}];`);
  lines.push(`export type EveryType = [${types.join(", ")}];`);
  return `${lines.join("\n")}\n`;
}

/**
 * msw 2's own declarations import the ESM-only `rettime` package, which TypeScript refuses in a CommonJS file under
 * node16 resolution (TS1479) for every CJS consumer of msw, with or without `@kirimbayar/testing/msw` (the tarball
 * smoke test sets it aside too). That one defect of msw's is set aside; every other error, in our declarations or
 * anyone's, still fails the check.
 */
function isKnownThirdPartyDefect(diagnostic: TypeScript.Diagnostic): boolean {
  return diagnostic.code === 1479 && /\/node_modules\/msw\//.test(diagnostic.file?.fileName ?? "");
}

/** What one consumer check found: tsc's diagnostics as it prints them, and how many names it used per entry. */
interface ConsumerCheck {
  diagnostics: string;
  namesPerEntry: number[];
}

/**
 * Checks a consumer of `specifiers` in `dir` as tsc would (and leaves its file, package.json and tsconfig.json
 * there, to rerun by hand): a probe file first lists each entry's public names, then the consumer file that uses
 * every one of them is checked, in a program that reuses what the probe parsed.
 */
async function checkConsumer(
  dir: string,
  specifiers: readonly string[],
  mode: ConsumerMode,
  dom: boolean,
): Promise<ConsumerCheck> {
  const file = join(dir, "consumer.ts");
  const compilerOptions = { ...strictOptions, ...mode.compilerOptions, ...(dom ? { lib: ["es2023", "dom"] } : {}) };
  const tsconfig = { compilerOptions, files: ["consumer.ts"] };
  await writeFile(join(dir, "package.json"), JSON.stringify({ private: true, type: mode.type }));
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  const options = ts.convertCompilerOptionsFromJson(tsconfig.compilerOptions, dir).options;
  const probe = specifiers.map((specifier, index) => `import * as entry${index} from "${specifier}";`).join("\n");
  const probeProgram = ts.createProgram([file], options, hostWith(options, new Map([[file, probe]])));
  const names = exportedNames(probeProgram, file);
  const source = consumerSource(specifiers, names);
  await writeFile(file, source);
  const program = ts.createProgram({
    rootNames: [file],
    options,
    host: hostWith(options, new Map([[file, source]])),
    oldProgram: probeProgram,
  });
  const reported = ts.getPreEmitDiagnostics(program).filter((diagnostic) => !isKnownThirdPartyDefect(diagnostic));
  const diagnostics = ts.formatDiagnostics(reported, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => dir,
    getNewLine: () => "\n",
  });
  return { diagnostics: diagnostics.trim(), namesPerEntry: names.map((exported) => exported.length) };
}

describe.each(consumers)("$label for a strict consumer", (consumer) => {
  const peers = consumer.optionalPeers.length === 0 ? "only its required peers" : "its required peers and that one";
  it.each(modes)(
    `type-checks every public name of its ${consumer.entryPoints.length} entry point(s) with ${peers}, under $label`,
    async (mode) => {
      const root = consumerDirs.get(consumer.label) as string;
      const dir = join(root, `check-${mode.label.replace(/\W+/g, "-").replace(/-$/, "")}`);
      await mkdir(dir, { recursive: true });
      const check = await checkConsumer(dir, consumer.entryPoints, mode, consumer.dom);
      expect(check.diagnostics).toBe("");
      // Every entry point resolved and was used name by name, in every file (an entry without names proves nothing).
      expect(check.namesPerEntry.every((count) => count > 0)).toBe(true);
    },
  );
});
