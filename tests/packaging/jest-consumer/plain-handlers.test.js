// A plain Jest test against the packed packages (issue 15 item 1): handlers that return a promise made by one of
// Node's built-ins, which under Jest is a native promise of another realm than the receiver's.
const fs = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const { setTimeout: sleep } = require("node:timers/promises");
const { createWebhookReceiver, tokenVerifier } = require("@kirimbayar/core/webhooks");
const { createFixtures, toWebhookRequest } = require("@kirimbayar/testing");

const token = "t0ken-jest";

function qrisReceiver() {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [token], in: "query" })],
    logger: {},
  });
}

function paidDelivery(historyId) {
  const body = createFixtures({ seed: "jest-realms" }).qrisPaymentSuccess({ qris_history_id: historyId });
  return toWebhookRequest(body, { url: "http://localhost:3000/webhooks/qris", token }).http;
}

test("a handler returning fs.promises.readFile(missing) gets 500 and the rejection is handled", async () => {
  const receiver = qrisReceiver();
  const missing = join(tmpdir(), `kirimbayar-jest-missing-${process.pid}-${Date.now()}.json`);
  receiver.on("payment.success", () => fs.promises.readFile(missing));
  const response = await receiver.handle(paidDelivery("jest-9101"));
  // Give a rejection nobody handled the time to surface in this test rather than after it.
  await sleep(50);
  expect(response.status).toBe(500);
});

test("a handler returning setTimeout(50).then(markPaid) from node:timers/promises gets 200 only after markPaid ran", async () => {
  const receiver = qrisReceiver();
  const paid = [];
  const markPaid = (id) => paid.push(id);
  receiver.on("payment.success", (event) => sleep(50).then(() => markPaid(event.data.qris_history_id)));
  const response = await receiver.handle(paidDelivery("jest-9102"));
  const paidWhenAnswered = [...paid];
  expect({ status: response.status, paidWhenAnswered }).toEqual({ status: 200, paidWhenAnswered: ["jest-9102"] });
});
