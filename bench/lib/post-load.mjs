// The load every route benchmark drives: autocannon POSTing a JSON body made fresh for each request (a new event
// each time, so that every request claims and completes its own key), on loopback.
import autocannon from "autocannon";

/**
 * POSTs `bodyOf(sequence)` (sequence 1, 2, …) as JSON to `url` + `path` from `connections` connections for
 * `duration` seconds. Resolves to autocannon's result.
 *
 * @param {{ url: string, path: string, connections: number, duration: number, bodyOf: (sequence: number) => string }} load
 */
export function postJsonLoad({ url, path, connections, duration, bodyOf }) {
  let sequence = 0;
  return autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: "POST",
        path,
        headers: { "content-type": "application/json" },
        setupRequest: (request) => {
          sequence += 1;
          request.body = bodyOf(sequence);
          return request;
        },
      },
    ],
  });
}

/**
 * The bodies of an order-status route's load: a new event on each request (`order_no` unique to the route, the round
 * and the request), so that each claims a fresh key.
 */
export function newOrderEvents(route, round) {
  return (sequence) =>
    JSON.stringify({ order_no: `ORD-${route}-${round}-${sequence}`, cnote: `JP${sequence}`, status: "Dikirim" });
}

/** The figures every route benchmark keeps of one autocannon run (`errors` counts time-outs too). */
export function loadFigures(result) {
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    total: result.requests.total,
  };
}
