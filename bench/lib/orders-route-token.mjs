// The webhook token of the store benchmarks' order-status route (lib/orders-route-server.mjs and its load side).
export const ORDERS_ROUTE_TOKEN = "bench-webhook-token-0123456789abcdef";
