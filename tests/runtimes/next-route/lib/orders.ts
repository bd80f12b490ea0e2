// Stands in for the shop's database in the Next.js route example: what `markOrderPaid` was called with.
export const paidOrders: { historyId: string; amount: number }[] = [];

export async function markOrderPaid(historyId: string, amount: number): Promise<void> {
  paidOrders.push({ historyId, amount });
}
