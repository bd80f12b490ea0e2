/** Where each shop serves its probes: liveness (the process answers) and readiness (it takes traffic). */
export const HEALTH_PATHS = { live: "/healthz", ready: "/readyz" } as const;

/** A probe's answer: its status and JSON body. */
export interface ProbeAnswer {
  status: 200 | 503;
  body: { status: "ok" | "ready" | "shutting_down" };
}

/**
 * The readiness probe: 200 while the shop takes traffic, 503 from the moment its graceful shutdown begins, so that
 * the load balancer's health check (HAProxy `option httpchk GET /readyz`, a Kubernetes `readinessProbe`) sends new
 * requests elsewhere while the deliveries in flight finish.
 *
 * @example
 * app.get(HEALTH_PATHS.ready, (_req, res) => { const { status, body } = readiness(runtime.shutdown); res.status(status).json(body) });
 */
export function readiness(shutdown: { readonly ready: boolean }): ProbeAnswer {
  return shutdown.ready
    ? { status: 200, body: { status: "ready" } }
    : { status: 503, body: { status: "shutting_down" } };
}

/**
 * The liveness probe: 200 for as long as the process answers (also while it shuts down: restarting it then would cut
 * the deliveries it is finishing).
 *
 * @example
 * app.get(HEALTH_PATHS.live, (_req, res) => res.json(liveness().body));
 */
export function liveness(): ProbeAnswer {
  return { status: 200, body: { status: "ok" } };
}
