// The packed tarballs at run time, in consumer projects outside the workspace (tests/packaging/test/consumers.ts):
// every entry point loads through require() and import, the node:crypto provider is picked, and NestJS 11 and
// Express 4 apps boot from them and answer real webhooks. What tsc says of the same installs is in
// tarball-types.test.ts.
import { describe, expect, it } from "vitest";
import { exportNames, express4ConsumerForTests, plainConsumerForTests } from "./consumers.js";
import { readPublishedPackages, run } from "./workspace.js";

const packages = readPublishedPackages();
const entryPoints = packages.flatMap((pkg) => pkg.entryPoints);
const consumer = plainConsumerForTests(packages);

describe("packed tarballs in a plain Node consumer", () => {
  it.each(entryPoints)("%s loads from CJS and ESM with the same named exports", async (specifier) => {
    const fromRequire = await exportNames(consumer.dir, "require", specifier);
    const fromImport = await exportNames(consumer.dir, "import", specifier);
    expect(fromRequire.length).toBeGreaterThan(0);
    expect(fromImport).toEqual(fromRequire);
  });

  it.each(["require", "import"] as const)("picks the node:crypto provider on Node through %s", async (style) => {
    const load =
      style === "require"
        ? `const m = require("@kirimbayar/core/webhooks");`
        : `const m = await import("@kirimbayar/core/webhooks");`;
    const args = style === "require" ? ["-e"] : ["--input-type=module", "-e"];
    const { stdout } = await run(process.execPath, [...args, `${load} console.log(m.defaultCryptoProvider.name)`], {
      cwd: consumer.dir,
    });
    expect(stdout.trim()).toBe("node");
  });
});

/**
 * JavaScript for a consumer app that listens on `base` and pushes handled order numbers to `seen`: sends one order
 * status webhook with the right token and one with a wrong token, then prints the framework's version (read from
 * `versionFile`), both statuses and `seen` as one JSON line.
 */
const sendVerifiedAndForged = (token: string, orderNo: string, versionFile: string) => `
  const send = (token) => fetch(base + "/webhooks/orders?token=" + token, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ order_no: ${JSON.stringify(orderNo)}, cnote: "JP1", status: "Dikirim" }),
  });
  const good = await send(${JSON.stringify(token)});
  const bad = await send("wrong");
  const version = require(${JSON.stringify(versionFile)}).version;
  console.log(JSON.stringify({ version, good: good.status, bad: bad.status, seen }));`;

/** The last line a consumer script printed, parsed. */
const lastJsonLine = (stdout: string): unknown => JSON.parse(stdout.trim().split("\n").at(-1) ?? "");

// A CommonJS NestJS 11 app, as most Nest users have: the packed adapter boots, discovers a decorated handler and
// answers a real webhook over HTTP (the workspace's own tests run it on NestJS 12).
const nest11App = `
require("reflect-metadata");
const { Injectable, Module } = require("@nestjs/common");
const { NestFactory } = require("@nestjs/core");
const { KirimbayarModule, OnOrderStatus } = require("@kirimbayar/nestjs");
const { tokenVerifier } = require("@kirimbayar/core/webhooks");
const seen = [];
class ShippingEvents { shipped(event) { seen.push(event.order_no); } }
OnOrderStatus("Dikirim")(ShippingEvents.prototype, "shipped", Object.getOwnPropertyDescriptor(ShippingEvents.prototype, "shipped"));
Injectable()(ShippingEvents);
class AppModule {}
Module({
  imports: [KirimbayarModule.forRoot({ webhooks: { orders: { verify: [tokenVerifier({ secrets: "t0ken-nest11", in: "query" })] } } })],
  providers: [ShippingEvents],
})(AppModule);
(async () => {
  const app = await NestFactory.create(AppModule, { rawBody: true, logger: false });
  await app.listen(0, "127.0.0.1");
  const base = (await app.getUrl()).replace("[::1]", "127.0.0.1");
${sendVerifiedAndForged("t0ken-nest11", "ORD-11", "@nestjs/core/package.json")}
  await app.close();
})().catch((error) => { console.error(error); process.exit(1); });
`;

describe("the packed NestJS adapter on NestJS 11 (CommonJS)", () => {
  it("boots, runs a decorated handler for a verified webhook and refuses a forged one", async () => {
    const { stdout } = await run(process.execPath, ["-e", nest11App], { cwd: consumer.dir, timeout: 60_000 });
    expect(lastJsonLine(stdout)).toEqual({
      version: "11.2.10",
      good: 200,
      bad: 401,
      seen: ["ORD-11"],
    });
  });
});

// An Express 4 app, as many shops still run, with `express.json()` mounted globally before the webhook router: the
// packed adapter resolves `express` to the app's copy (a peer) and reads the bytes the parser kept through its
// `verify` hook.
const express4App = `
const express = require("express");
const { createWebhookRouter } = require("@kirimbayar/express");
const { tokenVerifier } = require("@kirimbayar/core/webhooks");
const seen = [];
const app = express();
app.use(express.json({ verify: (req, _res, buf) => { req.rawBody = buf; } }));
const webhooks = createWebhookRouter({ orders: { verify: [tokenVerifier({ secrets: "t0ken-express4", in: "query" })] } });
webhooks.receivers.orders.onOrderStatus("Dikirim", (event) => { seen.push(event.order_no); });
app.use("/webhooks", webhooks);
const server = app.listen(0, "127.0.0.1", async () => {
  const base = "http://127.0.0.1:" + server.address().port;
${sendVerifiedAndForged("t0ken-express4", "ORD-4", "express/package.json")}
  server.close();
});
`;

describe("the packed Express adapter on Express 4", () => {
  const express4 = express4ConsumerForTests(consumer);

  it("answers a verified webhook behind a global express.json() and refuses a forged one (CommonJS)", async () => {
    const { stdout } = await run(process.execPath, ["-e", express4App], { cwd: express4.dir, timeout: 60_000 });
    expect(lastJsonLine(stdout)).toEqual({
      version: "4.22.3",
      good: 200,
      bad: 401,
      seen: ["ORD-4"],
    });
  });
});
