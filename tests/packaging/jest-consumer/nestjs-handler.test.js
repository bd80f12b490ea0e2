// A NestJS 11 app built with @nestjs/testing under Jest, on the packed packages (issue 15 item 1): a decorated
// handler returns `fs.promises.appendFile(...).then(markPaid)`, a promise of Node's realm rather than the one the
// receiver runs in, and the fake provider delivers `payment.success` to the app over real HTTP.
require("reflect-metadata");
const fs = require("node:fs");
const { mkdtempSync, rmSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const { Injectable } = require("@nestjs/common");
const { Test } = require("@nestjs/testing");
const { KirimbayarModule, OnQrisEvent } = require("@kirimbayar/nestjs");
const { QrisClient } = require("@kirimbayar/core");
const { tokenVerifier } = require("@kirimbayar/core/webhooks");
const { createFakeProvider } = require("@kirimbayar/testing");

const token = "t0ken-nest11-jest";
const dir = mkdtempSync(join(tmpdir(), "kirimbayar-jest-nest-"));
const ledger = join(dir, "ledger.log");
const paid = [];
const markPaid = (historyId) => paid.push(historyId);

// Written as a Nest user would with TypeScript decorators, applied by hand because these tests run untransformed.
class PaymentEvents {
  paid(event) {
    return fs.promises
      .appendFile(ledger, `${JSON.stringify(event.data)}\n`)
      .then(() => markPaid(String(event.data.qris_history_id)));
  }
}
OnQrisEvent("payment.success")(
  PaymentEvents.prototype,
  "paid",
  Object.getOwnPropertyDescriptor(PaymentEvents.prototype, "paid"),
);
Injectable()(PaymentEvents);

let app;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

test("NestJS 11 under Jest: an @OnQrisEvent method returning fs.promises.appendFile(...).then(markPaid) ran markPaid before the fake's delivery got its 200", async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      KirimbayarModule.forRoot({ webhooks: { qris: { verify: [tokenVerifier({ secrets: [token], in: "query" })] } } }),
    ],
    providers: [PaymentEvents],
  }).compile();
  app = moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.listen(0, "127.0.0.1");
  const base = (await app.getUrl()).replace("[::1]", "127.0.0.1");

  // What markPaid had done at the moment each delivery's answer reached the provider.
  const answers = [];
  const provider = createFakeProvider({
    webhooks: {
      qrisUrl: `${base}/webhooks/qris?token=${token}`,
      fetch: async (request) => {
        const response = await fetch(request);
        answers.push({ status: response.status, paidWhenAnswered: [...paid] });
        return response;
      },
    },
  });
  const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0], baseUrl: provider.baseUrl, fetch: provider.fetch });
  const { data } = await qris.generateQris({ qris_id: 1, amount: 100_000, output_type: "string" });
  const historyId = String(data.history_id);
  await provider.qris.pay(historyId);

  expect(answers).toEqual([{ status: 200, paidWhenAnswered: [historyId] }]);
  expect(provider.deliveries.map((delivery) => delivery.status)).toEqual([200]);
  expect(fs.readFileSync(ledger, "utf8")).toContain(historyId);
});
