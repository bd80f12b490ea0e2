import { createWebhookReceiver } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import expressPackage from "express/package.json" with { type: "json" };
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  type AdapterUnderTest,
  adapters,
  attachRecorder,
  type Delivery,
  type DeliveryResult,
  type Receivers,
  type RunningApp,
} from "./adapters.js";
import { type ConformanceCase, conformanceCases, type ExpectedResponse } from "./cases.js";
import { sourceOptions } from "./fixtures.js";
import { HandlerRecorder } from "./recorder.js";

// Core answering the same deliveries directly: an adapter must return exactly this status and body.
function referenceReceivers(recorder: HandlerRecorder): Required<Receivers> {
  const options = sourceOptions();
  const receivers: Required<Receivers> = {
    qris: createWebhookReceiver({ ...options.qris, source: "qris" }),
    payment: createWebhookReceiver({ ...options.payment, source: "payment" }),
    orders: createWebhookReceiver({ ...options.orders, source: "orders" }),
  };
  attachRecorder(receivers, recorder);
  return receivers;
}

async function answerDirectly(
  receivers: ReturnType<typeof referenceReceivers>,
  delivery: Delivery,
): Promise<DeliveryResult | undefined> {
  if (delivery.source === "unknown") return undefined;
  const response = await receivers[delivery.source].handle({
    method: delivery.method ?? "POST",
    url: `/webhooks/${delivery.source}${delivery.query ?? ""}`,
    headers: delivery.headers ?? {},
    rawBody:
      typeof delivery.body === "string" ? new TextEncoder().encode(delivery.body) : (delivery.body ?? new Uint8Array()),
    remoteAddress: "127.0.0.1",
  });
  return { status: response.status, headers: response.headers, body: response.body };
}

function expectResponse(actual: DeliveryResult, expected: ExpectedResponse, reference: DeliveryResult | undefined) {
  expect(actual.status).toBe(expected.status);
  if (expected.success !== undefined) {
    expect(actual.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(actual.body)).toMatchObject({ success: expected.success, message: expect.any(String) });
  }
  if (expected.message) expect(JSON.parse(actual.body).message).toMatch(expected.message);
  for (const [name, pattern] of Object.entries(expected.headers ?? {})) expect(actual.headers[name]).toMatch(pattern);
  if (reference) {
    expect(reference.status).toBe(expected.status);
    expect(actual.body).toBe(reference.body);
  }
}

async function runCase(adapter: AdapterUnderTest, row: ConformanceCase, track: (app: RunningApp) => void) {
  const recorder = new HandlerRecorder(row.behaviour);
  const app = await adapter.start(sourceOptions(), recorder);
  track(app);
  if (row.timing === "in-flight") {
    const [first, second] = row.steps as [ConformanceCase["steps"][0], ConformanceCase["steps"][0]];
    const firstAnswer = app.send(first.send);
    await recorder.entered();
    expectResponse(await app.send(second.send), second.expect, undefined);
    recorder.release();
    expectResponse(await firstAnswer, first.expect, undefined);
  } else {
    const referenceRecorder = new HandlerRecorder(row.behaviour);
    const reference = referenceReceivers(referenceRecorder);
    for (const step of row.steps) {
      expectResponse(await app.send(step.send), step.expect, await answerDirectly(reference, step.send));
    }
    expect(referenceRecorder.calls).toEqual(row.calls);
  }
  expect(recorder.calls).toEqual(row.calls);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** Only these adapters (vitest.express4.config.ts runs the Express one alone); all when unset. */
    conformanceAdapters?: AdapterUnderTest["name"][];
    /** The Express major the project loads; unset means the workspace's Express 5. */
    expressMajor?: number;
  }
}

const selected = inject("conformanceAdapters");
const adaptersUnderTest = selected ? adapters.filter((adapter) => selected.includes(adapter.name)) : adapters;

it("runs the Express adapter on the Express major this project targets", () => {
  expect(Number(expressPackage.version.split(".")[0])).toBe(inject("expressMajor") ?? 5);
  // Route layers are instances of a class private to each copy of Express: the adapter's router uses this copy.
  const router = createWebhookRouter(sourceOptions());
  const probe = express.Router().all("/probe", () => {});
  expect(router.stack[0]?.constructor).toBe(probe.stack[0]?.constructor);
});

describe.each(adaptersUnderTest)("$name adapter", (adapter) => {
  let running: RunningApp | undefined;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });

  it.each(conformanceCases)("$name", (row) =>
    runCase(adapter, row, (app) => {
      running = app;
    }),
  );
});
