// Each vitest project runs every test of this package against one Express major (vitest.config.ts: 5,
// vitest.express4.config.ts: 4). This test proves the tests and the adapter really load that major.
import { tokenVerifier } from "@kirimbayar/core/webhooks";
import express from "express";
import expressPackage from "express/package.json" with { type: "json" };
import { describe, expect, inject, it } from "vitest";
import { createWebhookRouter } from "../src/index.js";

declare module "vitest" {
  export interface ProvidedContext {
    expressMajor: number;
  }
}

describe("Express major under test", () => {
  it("is the one this vitest project targets, in the tests and in the adapter's router alike", () => {
    expect(Number(expressPackage.version.split(".")[0])).toBe(inject("expressMajor"));
    const router = createWebhookRouter({ orders: { verify: [tokenVerifier({ secrets: ["t0ken"], in: "query" })] } });
    // Route layers are instances of a class private to each copy of Express: the same class means the same copy.
    const probe = express.Router().all("/probe", () => {});
    expect(router.stack[0]?.constructor).toBe(probe.stack[0]?.constructor);
  });
});
