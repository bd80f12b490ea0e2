// The workflow that publishes the site: it cannot run here (GitHub Pages), so this checks it says what it must:
// the same `pnpm run docs` the tests build, the folder the build writes, Pages' upload and deploy actions, and the
// permissions deploy-pages needs.
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const workflow = readFileSync(join(repo, ".github/workflows/docs.yml"), "utf8");
const rootPackage = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));

describe(".github/workflows/docs.yml", () => {
  it("builds with the repository's `pnpm run docs` into docs-site/dist and uploads that folder", () => {
    expect(rootPackage.scripts.docs).toBe("node docs-site/build.mjs");
    expect(workflow).toMatch(/run: pnpm run docs$/m);
    expect(workflow).toMatch(
      /uses: actions\/upload-pages-artifact@v\d+\n(?:\s+if: .*\n)?\s+with:\n\s+path: docs-site\/dist$/m,
    );
  });

  it("publishes with deploy-pages, allowed to write Pages and to get the OIDC token", () => {
    expect(workflow).toMatch(/uses: actions\/deploy-pages@v\d+/);
    expect(workflow).toMatch(/pages: write/);
    expect(workflow).toMatch(/id-token: write/);
    expect(workflow).toMatch(/name: github-pages/);
  });

  it("publishes release commits only (the site names the release it documents), or when run by hand", () => {
    expect(workflow).toMatch(/workflow_run:\n\s+workflows: \[Release\]/);
    expect(workflow).toMatch(/workflow_dispatch:/);
    expect(workflow).toContain("git tag --points-at HEAD | grep -q '^@kirimbayar/'");
  });
});
