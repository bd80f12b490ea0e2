import { createFakeProvider, type FakeQrCode, type RecordedRequest } from "@kirimbayar/testing";
import type { RecordedEvent } from "../../worker/shop.ts";
import type { RuntimeUnderTest } from "./runtimes.ts";
import { type Answer, CLIENT_CALL_WRAPPER, QRIS_TOKEN, runTable } from "./table.ts";

/** Everything one runtime showed: the table's answers, what the fake saw, and the fake's own delivery. */
export interface Observation {
  answers: Answer[];
  /** The history id the shop's client call (with the fetch wrapper) got back. */
  generatedHistoryId: string;
  /** Every QR code the fake holds after the table: one per client call that reached it. */
  fakeQrs: FakeQrCode[];
  /** The API requests the fake answered (the shop's client call). */
  fakeRequests: Pick<RecordedRequest, "method" | "path" | "service" | "status">[];
  /** The fake provider's payment.success delivery of that QR to the shop, minus its clock-dependent fields. */
  delivery:
    | { event: string; attempt: number; status: number | undefined; responseBody: string | undefined }
    | undefined;
  /** GET /events after that delivery. */
  eventsAfterDelivery: RecordedEvent[];
}

/**
 * Starts a fresh fake provider (same seed, seeded ids and manual clock each time, so the same calls get the same
 * answers) on a free loopback port, starts `runtime`'s shop against it, sends the table, then has the fake pay the QR
 * code the shop generated and deliver `payment.success` to the shop over HTTP. Everything is closed before it returns.
 */
export async function exercise(runtime: RuntimeUnderTest): Promise<Observation> {
  // Seeded ids: every runtime must see the same history ids (unique ids, the default, differ on every fake).
  const provider = createFakeProvider({ seed: "runtimes", ids: "seeded" });
  const fake = await provider.listen({ port: 0, host: "127.0.0.1" });
  try {
    const shop = await runtime.start({
      qrisToken: QRIS_TOKEN,
      qrisApiKey: provider.apiKeys.qris[0]!,
      qrisBaseUrl: fake.url,
    });
    try {
      const answers = await runTable(shop.baseUrl);
      const clientCall = answers.find((answer) => answer.step === CLIENT_CALL_WRAPPER)?.body as
        | { data?: { history_id?: string } }
        | undefined;
      const generatedHistoryId = String(clientCall?.data?.history_id);
      const fakeQrs = provider.qris.list();
      const fakeRequests = provider.requests.map(({ method, path, service, status }) => ({
        method,
        path,
        service,
        status,
      }));

      let delivery: Observation["delivery"];
      if (provider.qris.get(generatedHistoryId) !== undefined) {
        provider.qris.setWebhookUrl(`${shop.baseUrl}/webhooks/qris?token=${QRIS_TOKEN}`);
        await provider.qris.pay(generatedHistoryId); // resolves once the first attempt was answered
        const last = provider.deliveries.at(-1);
        if (last !== undefined) {
          const { event, attempt, status, responseBody } = last;
          delivery = { event, attempt, status, responseBody };
        }
      }
      const events = await fetch(`${shop.baseUrl}/events`, { signal: AbortSignal.timeout(10_000) });
      const eventsAfterDelivery = (await events.json()) as RecordedEvent[];
      return { answers, generatedHistoryId, fakeQrs, fakeRequests, delivery, eventsAfterDelivery };
    } finally {
      await shop.close();
    }
  } finally {
    await fake.close();
  }
}
