// The console's protections, each tested: no authorize → no console; refused requests see nothing; every POST needs
// a CSRF token of its own identity and a same-origin request; every answer carries the strict headers.
import { createHash } from "node:crypto";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { describe, expect, it } from "vitest";
import { ConsoleConfigurationError, createWebhookConsole, type WebhookConsoleOptions } from "../src/index.js";
import { BASE, entry, get, HOUR, NOW, ORIGIN, post, setup, tokenOf } from "./helpers.js";

const journal = new MemoryDeliveryJournal();

describe("building the console", () => {
  it("refuses to build without authorize, naming it", () => {
    const build = () => createWebhookConsole({ journal, basePath: BASE } as unknown as WebhookConsoleOptions);
    expect(build).toThrow(ConsoleConfigurationError);
    expect(build).toThrow(/authorize\(request\) is required/);
    try {
      build();
    } catch (error) {
      expect((error as ConsoleConfigurationError).option).toBe("authorize");
      expect((error as ConsoleConfigurationError).code).toBe("console_configuration");
    }
  });

  it("refuses a missing journal, a base path that is not a plain path, and a short secret", () => {
    const authorize = () => true;
    expect(() => createWebhookConsole({ authorize, basePath: BASE } as unknown as WebhookConsoleOptions)).toThrow(
      /journal/,
    );
    for (const basePath of [
      "",
      "console",
      "javascript:alert(1)",
      "/a/../b",
      "/a?x=1",
      "/a#b",
      '/a"b',
      "/a b",
      "//evil",
    ]) {
      expect(() => createWebhookConsole({ journal, authorize, basePath }), basePath).toThrow(ConsoleConfigurationError);
    }
    expect(() => createWebhookConsole({ journal, authorize, basePath: BASE, secret: "short" })).toThrow(/secret/);
    expect(() => createWebhookConsole({ journal, authorize, basePath: BASE, allowedOrigins: ["nope"] })).toThrow(
      /allowedOrigins/,
    );
  });

  it("normalises the base path", () => {
    const authorize = () => true;
    expect(createWebhookConsole({ journal, authorize, basePath: "/ops/console/" }).basePath).toBe("/ops/console");
    expect(createWebhookConsole({ journal, authorize, basePath: "/" }).basePath).toBe("/");
  });
});

describe("authorization", () => {
  it("answers 401 and renders nothing when authorize says no, on every route and method", async () => {
    const { console, journal } = setup();
    await journal.record([entry({ at: NOW - HOUR, references: { order_id: "ORDER-SECRET-1" } })]);
    for (const request of [
      get(`${BASE}/`, null),
      get(`${BASE}/search?q=ORDER-SECRET-1`, null),
      get(`${BASE}/dead-letters`, null),
      get(`${BASE}/no-such-page`, null),
      post(`${BASE}/actions/replay`, { id: "x", source: "qris" }, null),
    ]) {
      const response = await console.fetch(request);
      expect(response.status, request.url).toBe(401);
      const body = await response.text();
      expect(body).toBe("Unauthorized");
      expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    }
  });

  it("refuses an empty identity and anything that is not true or a string; sends the configured challenge", async () => {
    for (const decision of ["", 0, undefined, null, false, "   ".trim()] as unknown[]) {
      const { console } = setup({
        authorize: () => decision as boolean,
        unauthorizedChallenge: 'Basic realm="console"',
      });
      const response = await console.fetch(get(`${BASE}/`));
      expect(response.status, String(decision)).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Basic realm="console"');
    }
  });

  it("answers 403 when authorize throws, and reports why to onError only", async () => {
    const { console, errors } = setup({
      authorize: () => {
        throw new Error("session store down: redis://user:pw@host");
      },
    });
    const response = await console.fetch(get(`${BASE}/`));
    expect(response.status).toBe(403);
    expect(await response.text()).not.toMatch(/redis|session/);
    expect(errors.map((error) => error.operation)).toEqual(["authorize"]);
  });

  it("awaits an async authorize", async () => {
    const { console } = setup({ authorize: async () => "bob" });
    expect((await console.fetch(get(`${BASE}/`, null))).status).toBe(200);
  });
});

describe("routes", () => {
  it("404 for unknown paths and paths outside the base; 405 with Allow for a wrong method", async () => {
    const { console } = setup();
    expect((await console.fetch(get(`${BASE}/nope`))).status).toBe(404);
    expect((await console.fetch(get(`${BASE}x/`))).status).toBe(404);
    expect((await console.fetch(get("/elsewhere", null))).status).toBe(404);
    const wrong = await console.fetch(post(`${BASE}/search`, { q: "x" }));
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, HEAD");
    const getAction = await console.fetch(get(`${BASE}/actions/replay`));
    expect(getAction.status).toBe(405);
    expect(getAction.headers.get("allow")).toBe("POST");
    const del = await console.fetch(
      new Request(`${ORIGIN}${BASE}/`, { method: "DELETE", headers: { "x-test-user": "a" } }),
    );
    expect(del.status).toBe(405);
  });

  it("serves every route when mounted at the root", async () => {
    const { console } = setup({ basePath: "/" });
    expect((await console.fetch(get("/"))).status).toBe(200);
    const search = await console.fetch(get("/search?q=x"));
    expect(search.status).toBe(200);
    const page = await search.text();
    expect(page).toContain('action="/search"');
    expect(page).toContain('href="/dead-letters"');
    expect((await console.fetch(get("/nope"))).status).toBe(404);
  });

  it("serves the overview at the base with or without its slash, and HEAD without a body", async () => {
    const { console } = setup();
    expect((await console.fetch(get(BASE))).status).toBe(200);
    const head = await console.fetch(
      new Request(`${ORIGIN}${BASE}/`, { method: "HEAD", headers: { "x-test-user": "a" } }),
    );
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await head.text()).toBe("");
  });
});

describe("headers", () => {
  it("sends a strict CSP whose style hash matches the page's only stylesheet, and no script at all", async () => {
    const { console } = setup();
    const response = await console.fetch(get(`${BASE}/`));
    const page = await response.text();
    const csp = response.headers.get("content-security-policy") ?? "";
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] as string);
    expect(styles).toHaveLength(1);
    const hash = createHash("sha256")
      .update(styles[0] as string)
      .digest("base64");
    expect(csp.split("; ")).toEqual([
      "default-src 'none'",
      `style-src 'sha256-${hash}'`,
      "img-src 'self'",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]);
    expect(page).not.toMatch(/<script|\son[a-z]+=|style="/i);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("x-frame-options")).toBe("DENY");
  });

  it("sends the same headers with errors and redirects", async () => {
    const { console } = setup();
    const page = await (await console.fetch(get(`${BASE}/`))).text();
    const redirect = await console.fetch(
      post(`${BASE}/actions/replay`, { csrf: tokenOf(page), source: "qris", id: "none" }),
    );
    expect(redirect.status).toBe(303);
    for (const response of [redirect, await console.fetch(get(`${BASE}/nope`)), await console.fetch(get("/x", null))]) {
      expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'none'; style-src 'sha256-/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });
});

describe("forged actions", () => {
  async function tokenFor(console: ReturnType<typeof setup>["console"], user: string) {
    return tokenOf(await (await console.fetch(get(`${BASE}/`, user))).text());
  }

  function deadLetter(id: string) {
    return {
      id,
      message: { key: `qris:${id}`, source: "qris" as const, body: "{}", receivedAt: NOW - HOUR },
      attempts: [],
      deadAt: NOW - HOUR,
    };
  }

  it("replays with a valid token from the same origin, then redirects back with a notice (PRG)", async () => {
    const { console, inbox } = setup();
    inbox.letters = [deadLetter("dl-1")];
    const token = await tokenFor(console, "alice");
    const response = await console.fetch(post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "dl-1" }));
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`${BASE}/dead-letters?notice=replayed`);
    expect(inbox.replayed).toEqual(["dl-1"]);
    const after = await (await console.fetch(get(response.headers.get("location") ?? ""))).text();
    expect(after).toContain("The dead letter was queued again");
  });

  it("refuses a POST without a token, with another identity's token, with an expired or altered token", async () => {
    const { console, inbox, clock } = setup();
    inbox.letters = [deadLetter("dl-1")];
    const alices = await tokenFor(console, "alice");
    const bobs = await tokenFor(console, "bob");
    const [expiry, signature] = alices.split(".") as [string, string];
    const forged = [
      {},
      { csrf: "" },
      { csrf: bobs },
      { csrf: `${Number(expiry) + 1}.${signature}` },
      { csrf: `${expiry}.${signature.slice(0, -2)}AA` },
      { csrf: "9999999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
    ];
    for (const fields of forged) {
      const response = await console.fetch(post(`${BASE}/actions/replay`, { ...fields, source: "qris", id: "dl-1" }));
      expect(response.status, JSON.stringify(fields)).toBe(403);
    }
    // A token of a console with another secret is worthless here.
    const other = setup();
    const foreign = await tokenFor(other.console, "alice");
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, { csrf: foreign, source: "qris", id: "dl-1" }))).status,
    ).toBe(403);
    clock.now += 2 * HOUR + 1;
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, { csrf: alices, source: "qris", id: "dl-1" }))).status,
    ).toBe(403);
    expect(inbox.replayed).toEqual([]);
  });

  it("binds a true authorization (no identity) apart from any user id", async () => {
    let decision: boolean | string = true;
    const { console, inbox } = setup({ authorize: () => decision });
    inbox.letters = [deadLetter("dl-1")];
    const anonymous = await tokenFor(console, "ignored");
    decision = "id:";
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, { csrf: anonymous, source: "qris", id: "dl-1" }))).status,
    ).toBe(403);
    decision = true;
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, { csrf: anonymous, source: "qris", id: "dl-1" }))).status,
    ).toBe(303);
  });

  it("refuses a cross-site POST even with a valid token", async () => {
    const { console, inbox, reconciler } = setup();
    inbox.letters = [deadLetter("dl-1")];
    const token = await tokenFor(console, "alice");
    const crossSite = [
      { origin: "https://evil.test", "sec-fetch-site": "cross-site" },
      { origin: ORIGIN, "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.test" },
      { origin: "null" },
      {},
    ];
    for (const headers of crossSite) {
      const replay = await console.fetch(
        post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "dl-1" }, "alice", headers),
      );
      expect(replay.status, JSON.stringify(headers)).toBe(403);
      const reconcile = await console.fetch(
        post(`${BASE}/actions/reconcile`, { csrf: token, source: "qris", reference: "h-1" }, "alice", headers),
      );
      expect(reconcile.status, JSON.stringify(headers)).toBe(403);
    }
    expect(inbox.replayed).toEqual([]);
    expect(reconciler.asked).toEqual([]);
    // Origin alone (an older browser without Sec-Fetch-Site) is enough when it is the console's own.
    const ok = await console.fetch(
      post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "dl-1" }, "alice", { origin: ORIGIN }),
    );
    expect(ok.status).toBe(303);
  });

  it("accepts a configured origin (a proxy in front of the app), and not another", async () => {
    const { console } = setup({ allowedOrigins: ["https://shop.example"] });
    const token = await tokenFor(console, "alice");
    const fields = { csrf: token, source: "qris", id: "none" };
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, fields, "alice", { origin: "https://shop.example" }))).status,
    ).toBe(303);
    expect(
      (await console.fetch(post(`${BASE}/actions/replay`, fields, "alice", { origin: "https://shop.example.evil" })))
        .status,
    ).toBe(403);
  });

  it("refuses a form that is not urlencoded or too large", async () => {
    const { console } = setup();
    const token = await tokenFor(console, "alice");
    const json = new Request(`${ORIGIN}${BASE}/actions/replay`, {
      method: "POST",
      headers: { "x-test-user": "alice", origin: ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({ csrf: token, source: "qris", id: "x" }),
    });
    expect((await console.fetch(json)).status).toBe(403);
    const large = post(`${BASE}/actions/replay`, { csrf: token, source: "qris", id: "x".repeat(10_000) });
    expect((await console.fetch(large)).status).toBe(403);
  });
});
