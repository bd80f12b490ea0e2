// What tsc says of the packed tarballs in the consumer projects of tarball-smoke.test.ts (built the same way, by
// ./consumers.ts): a file touching every export of every entry point type-checks under each moduleResolution a
// consumer may use, and an Express 4 app type-checks against the Express adapter's declarations with
// @types/express 4. A file of its own because the verdict does not depend on the Node running tsc:
// scripts/test-other-nodes.mjs leaves it out of the Node 22/24 runs by path, and the main run runs it.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportNames, express4ConsumerForTests, plainConsumerForTests, typeCheck } from "./consumers.js";
import { readPublishedPackages } from "./workspace.js";

const packages = readPublishedPackages();
const entryPoints = packages.flatMap((pkg) => pkg.entryPoints);
const consumer = plainConsumerForTests(packages);

describe("packed tarballs in a plain Node consumer", () => {
  it.each([
    ["node16 (ESM)", "node16", "consumer.mts"],
    ["node16 (CJS)", "node16", "consumer.cts"],
    ["bundler", "bundler", "consumer.ts"],
    ["node10 (legacy CJS projects)", "node10", "consumer.ts"],
  ])("type-checks a consumer under moduleResolution %s", async (_label, resolution, file) => {
    const imports: string[] = [];
    for (const [index, specifier] of entryPoints.entries()) {
      const names = await exportNames(consumer.dir, "require", specifier);
      imports.push(`import * as entry${index} from ${JSON.stringify(specifier)};`);
      // Touch every export so that a missing declaration fails the check.
      imports.push(`export const uses${index} = [${names.map((n) => `entry${index}.${n}`).join(", ")}];`);
    }
    const dir = join(consumer.dir, `check-${resolution}-${file.replace(".", "-")}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, file), `${imports.join("\n")}\n`);
    const compilerOptions = {
      node16: { module: "node16", moduleResolution: "node16" },
      bundler: { module: "esnext", moduleResolution: "bundler" },
      // Legacy CJS projects (the NestJS CLI template) compile with esModuleInterop, which zod's own types need here.
      node10: { module: "commonjs", moduleResolution: "node10", ignoreDeprecations: "5.0", esModuleInterop: true },
    }[resolution];
    expect(await typeCheck(dir, file, compilerOptions)).toBe("");
  });
});

const express4Consumer = `import express = require("express");
import { createWebhookRouter, kirimbayarClients } from "@kirimbayar/express";
import { tokenVerifier } from "@kirimbayar/core/webhooks";

const app = express();
const webhooks = createWebhookRouter({ orders: { verify: [tokenVerifier({ secrets: "t", in: "query" })] } });
webhooks.receivers.orders?.onOrderStatus("Dikirim", async (event) => {
  const waybill: string = String(event.cnote);
  void waybill;
});
app.use("/webhooks", webhooks);
app.use(kirimbayarClients({ shipping: { apiKey: "k", baseUrl: "https://shipping.example.id" } }));
app.get("/quote", (_req: express.Request, res: express.Response) => {
  res.json({ configured: res.locals.kirimbayar?.shipping !== undefined });
});
`;

describe("the packed Express adapter on Express 4", () => {
  const express4 = express4ConsumerForTests(consumer);

  it("type-checks an Express 4 app against the adapter's declarations", async () => {
    await writeFile(join(express4.dir, "app.cts"), express4Consumer);
    expect(await typeCheck(express4.dir, "app.cts", { module: "node16", moduleResolution: "node16" })).toBe("");
  });
});
