#!/usr/bin/env node
// Checks the release machinery as far as it can be checked without network and without publishing:
// - the workflows: CI runs `.ci/run` on Node 20, 22 and 24; the release workflow runs the changesets action
//   (`pnpm changeset version`, then `pnpm release`) with npm provenance; every action pinned by major version;
// - the version plan (CONTRIBUTING.md "Releases"): the public @kirimbayar/* packages share one version (a changesets
//   `fixed` group), the private examples, tests and bench are never versioned, no `major` before 1.0;
// - `changeset status`: its release plan is the one the pending changesets call for;
// - `changeset version` on a throw-away clone (network cut off with `unshare -n` where the kernel allows it): the
//   planned versions, a CHANGELOG.md per public package naming each of its changesets, nothing else touched, and the
//   result lint-clean.
// With --before-publish (the first step of `pnpm release`) it checks only what npm needs before a publish.
//
// Usage: node scripts/check-release.mjs [--json <file>] [--before-publish]
//   Prints one line per check and `release checks: N passed, N failed`; --json writes {"passed","failed","failures"} there.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const root = resolve(dirname(new URL(import.meta.url).pathname), "..");
const args = process.argv.slice(2);
const jsonOut = args.includes("--json") ? resolve(args[args.indexOf("--json") + 1]) : undefined;
const beforePublish = args.includes("--before-publish");

// The YAML parser changesets itself reads changeset front matter with (@changesets/cli -> @changesets/parse ->
// js-yaml), so the workflows are parsed by a real YAML parser without adding a dependency.
const requireFromRoot = createRequire(join(root, "package.json"));
const changesetsCli = requireFromRoot.resolve("@changesets/cli/package.json");
const changesetBin = join(dirname(changesetsCli), "bin.js");
const yaml = createRequire(createRequire(changesetsCli).resolve("@changesets/parse"))("js-yaml");
const biomeBin = requireFromRoot.resolve("@biomejs/biome/bin/biome");

const read = (dir, path) => readFileSync(join(dir, path), "utf8");
const readJson = (dir, path) => JSON.parse(read(dir, path));

let passed = 0;
let failed = 0;
/** Titles of the checks that failed, for the summary CI ends with. */
const failures = [];
/** Runs one check: a thrown error is a failure; a returned string is printed as a note. */
function check(title, fn) {
  try {
    const note = fn();
    passed += 1;
    console.log(`ok   ${title}${note ? `\n     ${String(note).replaceAll("\n", "\n     ")}` : ""}`);
  } catch (error) {
    failed += 1;
    failures.push(title);
    console.log(`FAIL ${title}\n     ${String(error.message).replaceAll("\n", "\n     ")}`);
  }
}
function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function run(command, commandArgs, options = {}) {
  const result = spawnSync(command, commandArgs, { encoding: "utf8", ...options });
  if (result.error) throw result.error;
  return result;
}
function git(cwd, ...gitArgs) {
  const result = run("git", gitArgs, { cwd });
  if (result.status !== 0) throw new Error(`git ${gitArgs.join(" ")}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The workspace's packages from pnpm-workspace.yaml (globs of the form `dir/*` or `dir`). */
function workspacePackages(dir) {
  const patterns = yaml.load(read(dir, "pnpm-workspace.yaml")).packages;
  const dirs = patterns.flatMap((pattern) => {
    if (!pattern.includes("*")) return [pattern];
    assert(pattern.endsWith("/*") && !pattern.slice(0, -2).includes("*"), `unsupported workspace glob ${pattern}`);
    const parent = pattern.slice(0, -2);
    return readdirSync(join(dir, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`);
  });
  return dirs
    .filter((rel) => existsSync(join(dir, rel, "package.json")))
    .map((rel) => ({ rel, json: readJson(dir, `${rel}/package.json`) }));
}

/** Pending changesets: every .changeset/*.md but the README, with the bumps of their front matter. */
function pendingChangesets(dir) {
  return readdirSync(join(dir, ".changeset"))
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .sort()
    .map((file) => {
      const text = read(dir, `.changeset/${file}`);
      const match = /^---\r?\n([\s\S]*?)\r?\n?---\r?\n?([\s\S]*)$/.exec(text.trimStart());
      assert(match, `.changeset/${file} has no front matter`);
      return { file, releases: yaml.load(match[1]) ?? {}, summary: match[2].trim() };
    });
}

const BUMPS = ["patch", "minor", "major"];
function bump(version, type) {
  const [major, minor, patch] = version.split(".").map(Number);
  if (type === "major") return `${major + 1}.0.0`;
  if (type === "minor") return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/**
 * The plan the rules call for, computed here independently of changesets: one version for every public package,
 * moved by the largest bump any pending changeset asks for any of them.
 */
function expectedPlan(dir) {
  const packages = workspacePackages(dir);
  const publicPackages = packages.filter((pkg) => !pkg.json.private);
  const names = new Set(packages.map((pkg) => pkg.json.name));
  const changesets = pendingChangesets(dir);
  const versions = new Set(publicPackages.map((pkg) => pkg.json.version));
  assert(versions.size === 1, `the public packages are not on one version: ${[...versions].join(", ")}`);
  const [current] = versions;
  let largest = -1;
  for (const changeset of changesets) {
    for (const [name, type] of Object.entries(changeset.releases)) {
      assert(names.has(name), `.changeset/${changeset.file} names ${name}, which is not a workspace package`);
      assert(BUMPS.includes(type), `.changeset/${changeset.file}: "${type}" for ${name} is not patch, minor or major`);
      assert(
        !(type === "major" && current.startsWith("0.")),
        `.changeset/${changeset.file} asks a major bump for ${name}: before 1.0 breaking changes are minor; ` +
          "going to 1.0.0 is a decision made in .changeset/config.json and CONTRIBUTING.md, not in a changeset",
      );
      largest = Math.max(largest, BUMPS.indexOf(type));
    }
  }
  const next = largest < 0 ? current : bump(current, BUMPS[largest]);
  return { packages, publicPackages, changesets, current, next, bumpType: BUMPS[largest] };
}

// ---- the workflows ----------------------------------------------------------------------------------------------

const PINNED = /^[\w.-]+\/[\w.-]+@v\d+$/;
function workflow(name) {
  const path = `.github/workflows/${name}`;
  assert(existsSync(join(root, path)), `${path} is missing`);
  return yaml.load(read(root, path));
}
const steps = (job) => job.steps ?? [];
const indexOfStep = (job, predicate) => steps(job).findIndex(predicate);

function checkWorkflows() {
  check("ci.yml: on push and pull request, `bash .ci/run` on Node 20, 22 and 24 (actions/setup-node)", () => {
    const ci = workflow("ci.yml");
    assert(ci.on && "push" in ci.on && "pull_request" in ci.on, "ci.yml must run on push and pull_request");
    const jobs = Object.entries(ci.jobs ?? {});
    const matrixJob = jobs.find(([, job]) => Array.isArray(job.strategy?.matrix?.node));
    assert(matrixJob, "no job has a strategy.matrix.node list");
    const [name, job] = matrixJob;
    const nodes = job.strategy.matrix.node.map(String);
    assert(nodes.join(",") === "20,22,24", `job ${name}: matrix.node is [${nodes}], expected [20, 22, 24]`);
    assert(job.strategy["fail-fast"] === false, `job ${name}: fail-fast must be false (one Node's failure hides none)`);
    const checkout = indexOfStep(job, (step) => /^actions\/checkout@/.test(step.uses ?? ""));
    const setupNode = indexOfStep(
      job,
      (step) =>
        /^actions\/setup-node@/.test(step.uses ?? "") &&
        /^\$\{\{\s*matrix\.node\s*\}\}$/.test(String(step.with?.["node-version"])),
    );
    const ciRun = indexOfStep(job, (step) => String(step.run ?? "").trim() === "bash .ci/run");
    assert(checkout >= 0, `job ${name}: no actions/checkout step`);
    assert(
      steps(job)[checkout].with?.["fetch-depth"] === 0,
      `job ${name}: checkout needs fetch-depth: 0 (changeset status compares with main)`,
    );
    assert(setupNode >= 0, `job ${name}: no actions/setup-node step with node-version: \${{ matrix.node }}`);
    assert(ciRun > setupNode && setupNode > checkout, `job ${name}: expected checkout, setup-node, then bash .ci/run`);
    return `job ${name}: ${steps(job).length} steps, runs on ${job["runs-on"]}${job.container ? ` in ${job.container}` : ""}`;
  });

  check("release.yml: on push to main, changesets/action (version PR, then publish) with npm provenance", () => {
    const release = workflow("release.yml");
    assert(release.on?.push?.branches?.includes("main"), "release.yml must run on push to main");
    const jobs = Object.values(release.jobs ?? {});
    const permissions = (job) => ({ ...release.permissions, ...job.permissions });
    const job = jobs.find((candidate) => indexOfStep(candidate, (s) => /^changesets\/action@/.test(s.uses ?? "")) >= 0);
    assert(job, "no job uses changesets/action");
    const granted = permissions(job);
    for (const [scope, level] of [
      ["id-token", "write"],
      ["contents", "write"],
      ["pull-requests", "write"],
    ]) {
      assert(granted[scope] === level, `permissions: ${scope}: ${level} is needed (found ${granted[scope]})`);
    }
    const actionIndex = indexOfStep(job, (s) => /^changesets\/action@/.test(s.uses ?? ""));
    const action = steps(job)[actionIndex];
    assert(action.uses === "changesets/action@v1", `${action.uses}: v1 is the major that runs @changesets/cli 2`);
    assert(
      action.with?.version === "pnpm changeset version",
      "changesets/action needs version: pnpm changeset version",
    );
    assert(action.with?.publish === "pnpm release", "changesets/action needs publish: pnpm release");
    assert(String(action.env?.NPM_CONFIG_PROVENANCE) === "true", "NPM_CONFIG_PROVENANCE: true is missing");
    assert(action.env?.NPM_TOKEN && action.env?.GITHUB_TOKEN, "NPM_TOKEN and GITHUB_TOKEN must reach the action");
    const install = indexOfStep(job, (s) => String(s.run ?? "").includes("pnpm install --frozen-lockfile"));
    assert(install >= 0 && install < actionIndex, "pnpm install --frozen-lockfile must run before the action");
    const checkout = steps(job).find((s) => /^actions\/checkout@/.test(s.uses ?? ""));
    assert(checkout?.with?.["fetch-depth"] === 0, "checkout needs fetch-depth: 0 (CHANGELOG lines name commits)");
    // `pnpm release` must build before it publishes.
    const parts = readJson(root, "package.json")
      .scripts.release.split("&&")
      .map((part) => part.trim());
    const build = parts.findIndex((part) => /\bbuild\b/.test(part));
    const publish = parts.findIndex((part) => part.startsWith("changeset publish"));
    assert(
      publish >= 0 && build >= 0 && build < publish,
      `"release": "${parts.join(" && ")}" must build, then publish`,
    );
    return `pnpm release = ${parts.join(" && ")}`;
  });

  check("workflows: every action pinned by major version (owner/name@vN)", () => {
    const uses = ["ci.yml", "release.yml"].flatMap((name) =>
      Object.values(workflow(name).jobs ?? {}).flatMap((job) => steps(job).flatMap((s) => (s.uses ? [s.uses] : []))),
    );
    const loose = uses.filter((use) => !PINNED.test(use));
    assert(loose.length === 0, `not pinned by major: ${loose.join(", ")}`);
    return [...new Set(uses)].join(", ");
  });
}

// ---- the version plan --------------------------------------------------------------------------------------------

function checkPlan() {
  check("version plan: public @kirimbayar/* packages in one fixed group, private packages never versioned", () => {
    const plan = expectedPlan(root);
    const config = readJson(root, ".changeset/config.json");
    const publicNames = plan.publicPackages.map((pkg) => pkg.json.name).sort();
    const fixed = config.fixed ?? [];
    assert(fixed.length === 1, `expected one fixed group, found ${fixed.length}`);
    const group = [...fixed[0]].sort();
    assert(
      group.join(",") === publicNames.join(","),
      `the fixed group must list exactly the public packages.\n  fixed:  ${group.join(", ")}\n  public: ${publicNames.join(", ")}`,
    );
    assert(
      config.privatePackages?.version === false && config.privatePackages?.tag === false,
      "privatePackages must be { version: false, tag: false }",
    );
    assert(
      config.changelog === "@changesets/cli/changelog",
      "the changelog generator must be the offline @changesets/cli/changelog",
    );
    assert(
      config.baseBranch === "main" && config.access === "public",
      'baseBranch "main" and access "public" expected',
    );
    for (const pkg of plan.publicPackages) {
      assert(pkg.json.publishConfig?.access !== "restricted", `${pkg.json.name} is restricted`);
      assert(pkg.json.files?.length, `${pkg.json.name} has no "files" list: it would publish its whole folder`);
    }
    return (
      `${publicNames.length} public packages at ${plan.current}; ${plan.changesets.length} pending changesets ` +
      `(largest bump: ${plan.bumpType ?? "none"}) -> ${plan.next}`
    );
  });
}

// ---- the throw-away clone and changeset status -----------------------------------------------------------------------

/**
 * A `git clone` of HEAD in a temp dir (committed changesets only, as in CI's clean clone), with a local `main` for
 * `changeset status` to compare with: main, else origin/main (a pull request's checkout), else HEAD itself.
 */
function makeClone() {
  const dir = mkdtempSync(join(tmpdir(), "kirimbayar-release-"));
  const clone = join(dir, "repo");
  git(root, "clone", "--quiet", root, clone);
  // changesets resolves its changelog generator from the repository: lend it the installed node_modules.
  symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
  const has = (cwd, ref) => run("git", ["rev-parse", "--verify", "--quiet", ref], { cwd }).status === 0;
  let base = "main";
  if (!has(clone, "refs/heads/main")) {
    if (has(root, "refs/heads/main")) {
      git(clone, "branch", "--quiet", "main", "origin/main");
    } else if (has(root, "refs/remotes/origin/main")) {
      git(clone, "fetch", "--quiet", root, "refs/remotes/origin/main:refs/heads/main");
      base = "origin/main";
    } else {
      git(clone, "branch", "--quiet", "main", "HEAD");
      base = "HEAD (no main branch here: whether changed packages carry changesets is not checked)";
    }
  }
  return { dir, clone, base, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function checkStatus(workspace) {
  check("changeset status: the release plan is the planned one", () => {
    const { clone, base } = workspace;
    const plan = expectedPlan(clone);
    const started = Date.now();
    const output = join(workspace.dir, "status.json");
    const result = run(process.execPath, [changesetBin, "status", "--output", output], { cwd: clone });
    assert(result.status === 0, `changeset status exited ${result.status}:\n${(result.stdout + result.stderr).trim()}`);
    const status = JSON.parse(readFileSync(output, "utf8"));
    // Private dependents of bumped packages are listed with type "none" and their version unchanged.
    const moved = status.releases.filter((r) => r.newVersion !== r.oldVersion);
    const got = Object.fromEntries(moved.map((r) => [r.name, r.newVersion]));
    const want = Object.fromEntries(
      plan.next === plan.current ? [] : plan.publicPackages.map((pkg) => [pkg.json.name, plan.next]),
    );
    const show = (m) => JSON.stringify(Object.fromEntries(Object.entries(m).sort()));
    assert(show(got) === show(want), `changeset status plans ${show(got)}\nexpected ${show(want)}`);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    return `compared with ${base}: ${Object.keys(got).length} packages -> ${plan.next}; ${seconds} s`;
  });
}

// ---- changeset version on a throw-away clone ------------------------------------------------------------------------

/** `unshare -n` (or `-rn` for a non-root user) when the kernel lets us cut the network, else nothing. */
function offlinePrefix() {
  for (const prefix of [
    ["unshare", "-n"],
    ["unshare", "-rn"],
  ]) {
    const probe = spawnSync(prefix[0], [...prefix.slice(1), "true"], { stdio: "ignore" });
    if (probe.status === 0) return { prefix, note: `network cut off with ${prefix.join(" ")}` };
  }
  return { prefix: [], note: "unshare -n not permitted here: ran without cutting the network (it needs none)" };
}

function checkVersionOnClone(workspace) {
  check("changeset version on a throw-away clone: planned versions, CHANGELOGs, nothing else", () => {
    const { clone } = workspace;
    const plan = expectedPlan(clone);
    const before = Object.fromEntries(plan.packages.map((pkg) => [pkg.rel, pkg.json]));
    const offline = offlinePrefix();
    const [command, ...commandArgs] = [...offline.prefix, process.execPath, changesetBin, "version"];
    const started = Date.now();
    const result = run(command, commandArgs, { cwd: clone });
    assert(
      result.status === 0,
      `changeset version exited ${result.status}:\n${(result.stdout + result.stderr).trim()}`,
    );
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    // Exactly these paths changed: each public package.json and CHANGELOG.md, and the consumed changesets.
    const changed = run("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: clone })
      .stdout.split("\n")
      .filter(Boolean)
      .map((line) => line.slice(3))
      .sort();
    const moving = plan.next !== plan.current;
    const expected = [
      ...plan.changesets.map((c) => `.changeset/${c.file}`),
      ...(moving ? plan.publicPackages.flatMap((pkg) => [`${pkg.rel}/CHANGELOG.md`, `${pkg.rel}/package.json`]) : []),
    ].sort();
    assert(
      changed.join("\n") === expected.join("\n"),
      `changed paths differ from the plan.\n  unexpected: ${changed.filter((p) => !expected.includes(p)).join(", ") || "none"}` +
        `\n  missing: ${expected.filter((p) => !changed.includes(p)).join(", ") || "none"}`,
    );

    for (const pkg of plan.packages) {
      const after = readJson(clone, `${pkg.rel}/package.json`);
      const want = pkg.json.private || !moving ? before[pkg.rel].version : plan.next;
      assert(after.version === want, `${pkg.json.name}: version ${after.version}, expected ${want}`);
      // Nothing else in the manifest moves (internal ranges stay workspace:, rewritten only when packing).
      assert(
        JSON.stringify({ ...after, version: undefined }) === JSON.stringify({ ...before[pkg.rel], version: undefined }),
        `${pkg.json.name}: package.json changed beyond its version`,
      );
    }
    if (moving) {
      for (const pkg of plan.publicPackages) {
        const changelog = read(clone, `${pkg.rel}/CHANGELOG.md`);
        const heading = changelog.match(/^## (.+)$/m)?.[1];
        assert(changelog.startsWith(`# ${pkg.json.name}\n`), `${pkg.rel}/CHANGELOG.md does not start with its name`);
        assert(
          heading === plan.next,
          `${pkg.rel}/CHANGELOG.md: first release heading ${heading}, expected ${plan.next}`,
        );
        const section = changelog.split(/^## /m)[1];
        for (const changeset of plan.changesets.filter((c) => pkg.json.name in c.releases && c.summary)) {
          const firstLine = changeset.summary.split("\n")[0].trim();
          assert(
            section.includes(firstLine),
            `${pkg.rel}/CHANGELOG.md misses .changeset/${changeset.file}: "${firstLine}"`,
          );
        }
      }
      // The "Version packages" pull request must pass the lint step of `pnpm test`.
      const lint = run(biomeBin, ["check", ...expected.filter((p) => !p.startsWith(".changeset/"))], { cwd: clone });
      assert(lint.status === 0, `biome check of the versioned files failed:\n${(lint.stdout + lint.stderr).trim()}`);
    }
    const count = plan.changesets.length;
    return moving
      ? `${plan.publicPackages.length} packages ${plan.current} -> ${plan.next}, ${count} changesets consumed, ` +
          `CHANGELOGs written, lint-clean; ${offline.note}; ${seconds} s`
      : `no pending changeset: nothing versioned (${offline.note})`;
  });
}

// ---- before a publish ------------------------------------------------------------------------------------------------

function checkBeforePublish() {
  check("before publish: one version for every public package, no changeset left pending", () => {
    const plan = expectedPlan(root);
    assert(plan.changesets.length === 0, `${plan.changesets.length} changesets pending: merge the version PR first`);
    return `${plan.publicPackages.length} packages at ${plan.current}`;
  });
  checkRepositoryFields();
}

// npm provenance ties a package to its repository and folder: every public package names both (checked on every CI
// run, so a new package cannot reach the release job without them).
function checkRepositoryFields() {
  check("repository fields npm provenance verifies", () => {
    // biome-ignore lint/suspicious/noUndeclaredEnvVars: not a turbo task; GitHub Actions sets it in the release job
    const repositoryName = process.env.GITHUB_REPOSITORY;
    const expectedUrl = repositoryName ? `https://github.com/${repositoryName}` : undefined;
    const problems = workspacePackages(root)
      .filter((pkg) => !pkg.json.private)
      .flatMap((pkg) => {
        const repository = pkg.json.repository;
        const url = typeof repository === "string" ? repository : repository?.url;
        if (!url) return [`${pkg.json.name}: no "repository" (npm refuses provenance without it)`];
        const normalized = url.replace(/^git\+/, "").replace(/\.git$/, "");
        if (expectedUrl && normalized !== expectedUrl)
          return [`${pkg.json.name}: repository ${url} is not ${expectedUrl}`];
        if (repository?.directory !== pkg.rel) return [`${pkg.json.name}: repository.directory should be "${pkg.rel}"`];
        return [];
      });
    assert(problems.length === 0, problems.join("\n"));
  });
}

if (beforePublish) {
  checkBeforePublish();
} else {
  console.log(`release checks in ${root} (changeset status and version on a clone of HEAD: committed changesets)`);
  checkWorkflows();
  checkRepositoryFields();
  checkPlan();
  let workspace;
  check("a throw-away clone of HEAD", () => {
    workspace = makeClone();
    return workspace.clone;
  });
  if (workspace) {
    try {
      checkStatus(workspace);
      checkVersionOnClone(workspace);
    } finally {
      workspace.remove();
    }
  }
}
console.log(`release checks: ${passed} passed, ${failed} failed`);
if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ passed, failed, failures }));
process.exit(failed === 0 ? 0 : 1);
