// The documentation site as a reader gets it: built once by the same code as `pnpm run docs` (into a temporary folder),
// every internal link of every page checked, then the home page, a guide and an API page opened in headless
// Chromium (Debian's `chromium`, or CHROMIUM_PATH) over HTTP on 127.0.0.1.
// KIRIMBAYAR_SCREENSHOTS=1 also writes docs/site-home-desktop.png and docs/site-api-phone.png for the README.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildSite } from "../../../docs-site/build.mjs";
import { publicPackages } from "../../../docs-site/entry-points.mjs";
import { checkLinks, htmlFiles } from "./links.js";
import { type StaticServer, serveStatic } from "./static-server.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 900 };
const RECONCILIATION_GUIDE = join(repo, "docs/guides/reconciliation.md");

/** The `title` of a guide's front matter: what the site calls it in menus and search results. */
function guideTitle(path: string): string {
  const title = /^---\n[\s\S]*?^title:\s*(.+)$/m.exec(readFileSync(path, "utf8"))?.[1];
  if (title === undefined) throw new Error(`${path} has no front matter title`);
  return title.trim().replace(/^["']|["']$/g, "");
}

const out = mkdtempSync(join(tmpdir(), "kirimbayar-docs-"));
let built: Awaited<ReturnType<typeof buildSite>> | undefined;
let server: StaticServer | undefined;
let browser: Browser | undefined;
let page: Page;
/** What the pages of the current test reported: console errors, uncaught exceptions, failed or 4xx/5xx requests. */
let pageErrors: string[] = [];

beforeAll(async () => {
  built = await buildSite({ out, logLevel: "Warn" });
  // The pages are written even when the build fails (an undocumented name): the browser checks still run on them.
  if (!existsSync(join(out, "index.html"))) return;
  server = await serveStatic(out);
  if (!existsSync(CHROMIUM)) return;
  // Tests run as root in CI: Chromium's sandbox needs a user namespace it may not get there.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless=new"],
    timeout: 30_000,
  });
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(15_000);
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => pageErrors.push(`uncaught: ${error.message}`));
  page.on("requestfailed", (request) => pageErrors.push(`request failed: ${request.url()}`));
  page.on("response", (response) => {
    if (response.status() >= 400) pageErrors.push(`HTTP ${response.status()}: ${response.url()}`);
  });
}, 300_000);

beforeEach(() => {
  pageErrors = [];
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

/** The browser on `path` of the site at `viewport`, after the page's scripts ran; throws why it cannot. */
async function open(path: string, viewport = DESKTOP): Promise<Page> {
  if (!existsSync(join(out, "index.html"))) throw new Error("TypeDoc wrote no site: see its errors above");
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The docs site's browser test needs Chromium at ${CHROMIUM}: install Debian's "chromium" package or set CHROMIUM_PATH.`,
    );
  }
  if (!server || !browser) throw new Error("the static server or the browser did not start (see beforeAll)");
  await page.setViewportSize(viewport);
  await page.goto(`${server.url}/${path}`, { waitUntil: "load" });
  // TypeDoc's scripts mark the page ready by removing `display: none` from the body.
  await page.waitForFunction(() => getComputedStyle(document.body).display !== "none");
  return page;
}

/** The site-relative path of the first page whose file name matches `pattern`. */
function pageMatching(pattern: RegExp): string {
  const found = htmlFiles(out)
    .map((file) =>
      file
        .slice(out.length + 1)
        .split("\\")
        .join("/"),
    )
    .find((path) => pattern.test(path));
  if (found === undefined) throw new Error(`no page of the site matches ${pattern}`);
  return found;
}

/** The site-relative path of the guide page titled `title` (its `<title>` starts with it). */
function documentPage(title: string): string {
  const escaped = title.replaceAll("&", "&amp;");
  const found = htmlFiles(join(out, "documents")).find((file) =>
    readFileSync(file, "utf8").includes(`<title>${escaped} |`),
  );
  if (found === undefined) throw new Error(`no guide page titled "${title}"`);
  return found
    .slice(out.length + 1)
    .split("\\")
    .join("/");
}

/** How far the page body scrolls sideways at the current width (0 when everything fits). */
const sidewaysOverflow = (on: Page) =>
  on.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe("the docs build", () => {
  it("builds with every public name documented, every link resolved and no TypeDoc warning", () => {
    expect(built, "buildSite did not finish").toBeDefined();
    expect({ ok: built?.ok, errors: built?.errors, warnings: built?.warnings }).toEqual({
      ok: true,
      errors: 0,
      warnings: 0,
    });
  });

  it("has an API page for every public entry point of every package", () => {
    const packages = publicPackages(join(repo, "packages"));
    const pages = htmlFiles(out).map((file) => file.slice(out.length + 1));
    expect(packages.length).toBeGreaterThanOrEqual(7);
    for (const pkg of packages) {
      for (const entry of pkg.entryPoints) {
        // TypeDoc names module pages after the module: `@kirimbayar/core/webhooks` -> `_kirimbayar_core_webhooks`.
        const slug = entry.specifier.replace(/[^\w-]/g, "_");
        expect(
          pages.some((path) => path.includes(slug)),
          `${entry.specifier} has no page`,
        ).toBe(true);
      }
    }
  });

  it("links every other package's API pages to core's (cross-package links, not plain type names)", () => {
    const packages = publicPackages(join(repo, "packages")).filter((pkg) => pkg.name !== "@kirimbayar/core");
    for (const pkg of packages) {
      const prefix = pkg.name.replace(/[^\w-]/g, "_");
      const linking = htmlFiles(out).filter(
        (file) =>
          file.slice(out.length + 1).includes(`/${prefix}.`) &&
          /href="[^"]*_kirimbayar_core\.[^"]*"/.test(readFileSync(file, "utf8")),
      );
      expect(linking.length, `${pkg.name} has no page linking to @kirimbayar/core`).toBeGreaterThan(0);
    }
  });

  it("says on the home page which release it documents", () => {
    const home = readFileSync(join(out, "index.html"), "utf8");
    const version = publicPackages(join(repo, "packages"))[0]?.version;
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(home).toContain(`This site documents kirimbayar <strong>${version}</strong>`);
  });

  it("has no broken internal link on any page (external links are not fetched)", () => {
    const report = checkLinks(out);
    expect(report.pages).toBeGreaterThan(50);
    expect(report.internalLinks).toBeGreaterThan(1000);
    expect(report.broken.slice(0, 20)).toEqual([]);
  });
});

describe("the site in Chromium", () => {
  it("renders the home page without console errors and fits a 360 px phone", async () => {
    const home = await open("index.html");
    await expect(home.locator("h1").first().textContent()).resolves.toContain("kirimbayar");
    if (process.env.KIRIMBAYAR_SCREENSHOTS === "1") {
      await home.screenshot({ path: join(repo, "docs/site-home-desktop.png") });
    }
    await open("index.html", PHONE);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    expect(pageErrors).toEqual([]);
  });

  it("renders a guide without console errors and fits a 360 px phone", async () => {
    const path = documentPage(guideTitle(RECONCILIATION_GUIDE));
    const guide = await open(path);
    await expect(guide.locator("h1").first().textContent()).resolves.toBeTruthy();
    await open(path, PHONE);
    expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
    expect(pageErrors).toEqual([]);
  });

  it("renders API pages without console errors and fits a 360 px phone", async () => {
    const api = await open(pageMatching(/createReconciler\.html$/), PHONE);
    await expect(api.locator("h1").first().textContent()).resolves.toContain("createReconciler");
    expect(await sidewaysOverflow(api)).toBeLessThanOrEqual(0);
    if (process.env.KIRIMBAYAR_SCREENSHOTS === "1") {
      await api.screenshot({ path: join(repo, "docs/site-api-phone.png") });
    }
    // The longest names of the reference (DEFAULT_POSTGRES_IDEMPOTENCY_TABLE, ...) are listed on the module pages.
    for (const module of [/_kirimbayar_core_webhooks\.html$/, /_kirimbayar_core_postgres\.html$/]) {
      expect(await sidewaysOverflow(await open(pageMatching(module), PHONE)), String(module)).toBeLessThanOrEqual(0);
    }
    expect(pageErrors).toEqual([]);
  });

  it('finds the reconciliation guide and createReconciler when searching "reconcile"', async () => {
    const home = await open("index.html");
    await home.locator("#tsd-search-trigger").click();
    await home.locator("#tsd-search-input").fill("reconcile");
    const results = home.locator("#tsd-search-results li");
    await results.first().waitFor();
    const listed = (await results.allTextContents()).map((text) => text.trim()).join("\n");
    expect(listed).toContain(guideTitle(RECONCILIATION_GUIDE));
    expect(listed).toContain("createReconciler");
    expect(pageErrors).toEqual([]);
  });
});
