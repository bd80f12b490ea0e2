#!/usr/bin/env node
// `pnpm run docs` (without `run`, `pnpm docs` is pnpm's own command that opens a package's npm page): the
// documentation site (the guides in docs/guides and the API reference of every public entry point, cross-linked,
// with client-side search) built by TypeDoc into docs-site/dist, offline. Any TypeDoc warning fails
// the build: an exported name without TSDoc (`undocumentedExports` below), a link that resolves nowhere, a guide
// linking to a missing file, a type the reference mentions but cannot reach (typedoc.json's `validation`).
//
//   node docs-site/build.mjs [--out <dir>]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Application, Converter, PackageJsonReader, ReflectionKind, TSConfigReader, TypeDocReader } from "typedoc";
import { publicPackages } from "./entry-points.mjs";
import { homePageMarkdown } from "./home-page.mjs";
import { writePackageTsconfig } from "./package-tsconfig.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "..");
export const DEFAULT_OUT = join(here, "dist");
/**
 * Internal helper types that public signatures mention (rendered as plain names, not links), per package: the
 * review list of what is not exported on purpose. A new one fails the build until it is exported or listed here.
 */
const NOT_EXPORTED = JSON.parse(readFileSync(join(here, "not-exported.json"), "utf8"));

/**
 * Gives each package, when TypeDoc converts it on its own, the entry points its exports map declares. TypeDoc's own
 * inference maps exports to sources only when the build keeps the source layout; tsdown's `dist/` does not.
 */
class ExportsEntryPointsReader {
  name = "kirimbayar-exports-entry-points";
  // After typedoc.json (100) and package.json (150), before tsconfig.json (200).
  order = 160;
  supportsPackages = true;

  /** `tsconfigs`: the generated tsconfig of each package, by package folder. */
  constructor(packages, tsconfigs) {
    this.byDir = new Map(packages.map((pkg) => [resolve(pkg.dir), pkg]));
    this.tsconfigs = tsconfigs;
  }

  read(container, _logger, cwd) {
    const pkg = this.byDir.get(resolve(cwd));
    if (pkg === undefined) return; // the root: its entry points are the package folders
    container.setValue(
      "entryPoints",
      pkg.entryPoints.map((entry) => entry.sourceFile),
    );
    container.setValue("tsconfig", this.tsconfigs.get(pkg.dir));
    container.setValue("intentionallyNotExported", NOT_EXPORTED[pkg.name] ?? []);
    // A name re-exported from another package (nestjs re-exports core's client classes) is documented once, in its
    // own package; pages elsewhere link to it.
    container.setValue("excludeExternals", true);
    container.setValue("externalPattern", [
      "**/node_modules/**",
      ...[...this.byDir.values()].filter((other) => other !== pkg).map((other) => join(other.dir, "src/**")),
    ]);
  }
}

/** Names each module of a multi-entry package by what users import (`@kirimbayar/core/redis`), not its file. */
function nameModulesBySpecifier(app, packages) {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const pkg = byName.get(context.project.packageName ?? context.project.name);
    for (const module of context.project.children ?? []) {
      if (!module.kindOf(ReflectionKind.Module)) continue;
      const entry = pkg?.entryPoints.find((e) => e.moduleName === module.name);
      if (entry !== undefined) module.name = entry.specifier;
    }
  });
}

/**
 * Search ranks guides first, then functions and classes (the API's entry points: `createReconciler`), then members:
 * a reader who types "reconcile" wants the reconciliation guide before `Reconciler.reconcile`. TypeDoc boosts by
 * group, and a guide's group is its front matter's `group`. A long page scores low on any one word, so guides get
 * the large factor (with 50, "reconcile", "redis" or "prisma" list the matching guides among the first results,
 * exact API names still first; with 5 no guide made the ten results shown). Functions get 10: with 3, the members
 * named `reconcile`/`reconciler` of the console and NestJS types filled the ten results before `createReconciler`.
 */
function searchBoosts(guidesDir) {
  const boosts = { Functions: 10, Classes: 5 };
  if (!existsSync(guidesDir)) return boosts;
  for (const file of readdirSync(guidesDir, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".md")) continue;
    const frontMatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(guidesDir, file), "utf8"))?.[1] ?? "";
    const group = /^group:\s*(.+)$/m
      .exec(frontMatter)?.[1]
      ?.trim()
      .replace(/^["']|["']$/g, "");
    boosts[group ?? "Documents"] = 50;
  }
  return boosts;
}

/** The top-level export named `name` (a function, class, type, ...): the shallowest, first in package order. */
function findExport(project, name) {
  const depth = (reflection) => (reflection.parent === undefined ? 0 : 1 + depth(reflection.parent));
  const candidates = project
    .getReflectionsByKind(ReflectionKind.SomeExport)
    .filter((r) => r.name === name && r.parent?.kindOf(ReflectionKind.SomeModule | ReflectionKind.Project));
  return candidates.sort((a, b) => depth(a) - depth(b))[0];
}

/**
 * Lets a guide write `{@link createWebhookReceiver}` or `{@link WebhookReceiver.handle}`: a declaration reference
 * TypeDoc cannot resolve from where it is written (a document sits above every package) is looked up by its name
 * among every package's exports, then its members.
 */
function resolveBareNamesAcrossPackages(app) {
  app.converter.addUnknownSymbolResolver((declaration, reflection) => {
    if (declaration.moduleSource !== undefined) return undefined;
    const [first, ...members] = declaration.symbolReference?.path?.map((part) => part.path) ?? [];
    if (first === undefined) return undefined;
    let target = findExport(reflection.project, first);
    for (const member of members) target = target?.getChildByName(member);
    return target === undefined ? undefined : { target };
  });
}

/** Every exported name of every package (module members of multi-entry packages, package members otherwise). */
function exportsOf(project) {
  const isModule = (r) => r.kindOf(ReflectionKind.SomeModule);
  return (project.children ?? []).flatMap((pkg) =>
    (pkg.children ?? []).flatMap((child) => (isModule(child) ? (child.children ?? []) : [child])),
  );
}

/** Whether a reflection or one of its signatures (a function's, an arrow-typed variable's) carries TSDoc. */
function hasTsdoc(reflection) {
  const signatures = [...(reflection.signatures ?? []), ...(reflection.type?.declaration?.signatures ?? [])];
  return reflection.hasComment() || signatures.some((signature) => signature.hasComment());
}

/**
 * The public names without TSDoc: every export of every entry point must say what it is. Members (an interface's
 * properties and methods, the fields zod infers for a schema's output) are not required: about 1,300 have none yet,
 * so TypeDoc's own `notDocumented`, which requires them all, is off.
 */
export function undocumentedExports(project) {
  return exportsOf(project)
    .filter((reflection) => !reflection.kindOf(ReflectionKind.Reference) && !hasTsdoc(reflection))
    .map((reflection) => reflection.getFriendlyFullName());
}

/**
 * Builds the site into `out`. Resolves with `{ ok, out, warnings, errors, seconds }`; `ok` is false when TypeDoc
 * reported anything: an undocumented public name, a link it cannot resolve, a guide linking to a missing file.
 */
export async function buildSite({ out = DEFAULT_OUT, logLevel = "Info" } = {}) {
  const started = Date.now();
  const packages = publicPackages(join(repo, "packages"));
  // The generated home page and tsconfigs: per build, so two builds at once never share them.
  const generatedDir = mkdtempSync(join(tmpdir(), "kirimbayar-docs-"));
  try {
    return await build({ out, logLevel, packages, generatedDir, started });
  } finally {
    rmSync(generatedDir, { recursive: true, force: true });
  }
}

async function build({ out, logLevel, packages, generatedDir, started }) {
  const homePath = join(generatedDir, "home.md");
  writeFileSync(homePath, homePageMarkdown({ packages, guidesDir: join(repo, "docs/guides"), homePath }));
  const tsconfigs = new Map(packages.map((pkg) => [pkg.dir, writePackageTsconfig(pkg, packages, generatedDir)]));

  const app = await Application.bootstrapWithPlugins(
    { options: join(here, "typedoc.json"), out, readme: homePath, logLevel },
    [
      new TypeDocReader(),
      new PackageJsonReader(),
      new ExportsEntryPointsReader(packages, tsconfigs),
      new TSConfigReader(),
    ],
  );
  app.options.setValue(
    "entryPoints",
    packages.map((pkg) => pkg.dir),
  );
  app.options.setValue("searchGroupBoosts", searchBoosts(join(repo, "docs/guides")));
  nameModulesBySpecifier(app, packages);
  resolveBareNamesAcrossPackages(app);

  const result = (ok) => ({
    ok,
    out,
    warnings: app.logger.warningCount,
    errors: app.logger.errorCount,
    seconds: (Date.now() - started) / 1000,
  });
  if (app.logger.hasErrors()) return result(false);
  const project = await app.convert();
  if (project === undefined) return result(false);
  app.validate(project);
  for (const name of undocumentedExports(project)) app.logger.validationWarning(`${name} is exported without TSDoc`);
  // The site is written even when something is wrong, so it can be looked at; the build still fails.
  await app.generateOutputs(project);
  return result(!app.logger.hasErrors() && !app.logger.hasWarnings());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const outFlag = process.argv.indexOf("--out");
  const out = outFlag === -1 ? DEFAULT_OUT : resolve(process.argv[outFlag + 1] ?? DEFAULT_OUT);
  const built = await buildSite({ out });
  console.log(
    built.ok
      ? `docs: built ${built.out} in ${built.seconds.toFixed(1)} s (${built.warnings} warnings)`
      : `docs: FAILED after ${built.seconds.toFixed(1)} s: ${built.errors} errors, ${built.warnings} warnings (above)`,
  );
  process.exit(built.ok ? 0 : 1);
}
