// Which source files the API reference documents: one per public entry point of every public package, read from
// each package.json "exports" map, so an entry added there (core's journal, a new adapter's subpath) shows up on the
// site without touching the docs configuration.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * @typedef {object} PackageEntryPoint
 * @property {string} specifier What a user imports: `@kirimbayar/core/webhooks/transport`.
 * @property {string} sourceFile Absolute path of the TypeScript file the entry point is built from.
 * @property {string} moduleName The name TypeDoc gives the module by default (the file name without `.ts`).
 */

/**
 * @typedef {object} PublicPackage
 * @property {string} name The package name, `@kirimbayar/core`.
 * @property {string} version The package.json version: the release the site documents.
 * @property {string} dir Absolute path of the package folder.
 * @property {PackageEntryPoint[]} entryPoints Every export that has types, "." first.
 */

/** The declaration file an export condition tree points to (`import.types` first, then `require.types`). */
function typesOf(exported) {
  if (typeof exported === "string") return exported.endsWith(".d.ts") ? exported : undefined;
  if (exported === null || typeof exported !== "object") return undefined;
  if (typeof exported.types === "string") return exported.types;
  for (const condition of ["import", "default", "require", "node"]) {
    const found = typesOf(exported[condition]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The source file tsdown builds `./dist/<name>.d.ts` from: `src/<name>.ts`. Throws when it is missing, so an export
 * whose source moved fails the docs build instead of vanishing from the reference.
 */
function sourceOf(packageDir, declarationPath, specifier) {
  const relativeSource = declarationPath.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts");
  const sourceFile = resolve(packageDir, relativeSource);
  if (!existsSync(sourceFile)) {
    throw new Error(`${specifier}: no source file ${relativeSource} for ${declarationPath}`);
  }
  return sourceFile;
}

/** Every public (not `private`) package under `packagesDir`, with the entry points its exports map declares. */
export function publicPackages(packagesDir) {
  const packages = [];
  for (const folder of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, folder);
    const manifestPath = join(dir, "package.json");
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    if (manifest.private === true || manifest.exports === undefined) continue;
    packages.push({ name: manifest.name, version: manifest.version, dir, entryPoints: entryPointsOf(dir, manifest) });
  }
  return packages;
}

/** The documented entry points of one package manifest. */
export function entryPointsOf(dir, manifest) {
  const entryPoints = [];
  for (const [subpath, exported] of Object.entries(manifest.exports)) {
    const declarationPath = typesOf(exported);
    if (declarationPath === undefined) continue; // ./package.json and other files without types
    const specifier = subpath === "." ? manifest.name : `${manifest.name}/${subpath.replace(/^\.\//, "")}`;
    const sourceFile = sourceOf(dir, declarationPath, specifier);
    const moduleName = sourceFile.slice(join(dir, "src").length + 1).replace(/\.ts$/, "");
    entryPoints.push({ specifier, sourceFile, moduleName });
  }
  return entryPoints;
}
