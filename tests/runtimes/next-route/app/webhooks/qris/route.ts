// app/webhooks/qris/route.ts — a Next.js App Router route handler (POST /webhooks/qris?token=...).
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { markOrderPaid } from "../../../lib/orders";

const receiver = createWebhookReceiver({
  source: "qris",
  verify: [tokenVerifier({ secrets: [process.env.QRIS_WEBHOOK_TOKEN!], in: "query", name: "token" })],
});
receiver.on("payment.success", async (event) => {
  await markOrderPaid(String(event.data.qris_history_id), event.data.amount);
});

export const POST = (req: Request) => receiver.fetch(req);
