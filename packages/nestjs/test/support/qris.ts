// The QRIS webhook the Nest tests deliver: a `payment.success` body, and its POST to the module's QRIS route.

/** A QRIS `payment.success` webhook body for history id `id`. */
export const qrisPaidBody = (id: string): string =>
  JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: { qris_history_id: id, amount: 15_000 },
  });

/** POSTs the `payment.success` of `id` to `<origin>/webhooks/qris`, with `token` in the query. */
export const postQrisPaid = (origin: string, token: string, id: string): Promise<Response> =>
  fetch(`${origin}/webhooks/qris?token=${token}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: qrisPaidBody(id),
  });
