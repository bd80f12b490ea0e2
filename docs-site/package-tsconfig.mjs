// The tsconfig TypeDoc compiles each package with for the site: the package's own, narrowed to `src` (its tests would
// only slow the build), with every public entry point of every package mapped to its source. Workspace imports
// otherwise resolve to `dist/*.d.ts` chunks, whose symbols TypeDoc cannot match to the ones it documents from the
// other package's sources, and `@kirimbayar/express`'s page would name core's types without linking to them.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import ts from "typescript";

/** The package's own `paths`, made absolute (a generated config lives elsewhere). */
function ownPaths(tsconfigPath) {
  const { config } = ts.readConfigFile(tsconfigPath, (path) => readFileSync(path, "utf8"));
  const paths = config?.compilerOptions?.paths ?? {};
  const base = dirname(tsconfigPath);
  return Object.fromEntries(
    Object.entries(paths).map(([name, targets]) => [name, targets.map((target) => resolve(base, target))]),
  );
}

/** `paths` sending every public specifier (`@kirimbayar/core/redis`) to its source file. */
export function sourcePaths(packages) {
  const paths = {};
  for (const pkg of packages) {
    for (const entry of pkg.entryPoints) paths[entry.specifier] = [entry.sourceFile];
  }
  return paths;
}

/**
 * Writes `<dir>/tsconfig.<folder>.json` for `pkg` and returns its path. Every package also gets the other packages'
 * own `paths` (core's `#crypto`), since their sources are now part of its program.
 */
export function writePackageTsconfig(pkg, packages, dir) {
  const allOwnPaths = Object.assign({}, ...packages.map((other) => ownPaths(join(other.dir, "tsconfig.json"))));
  const config = {
    extends: join(pkg.dir, "tsconfig.json"),
    compilerOptions: {
      // Core's sources (now compiled with every package) use the DOM's fetch types.
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      paths: { ...allOwnPaths, ...sourcePaths(packages) },
    },
    include: [join(pkg.dir, "src")],
  };
  const path = join(dir, `tsconfig.${pkg.dir.split(/[\\/]/).pop()}.json`);
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}
