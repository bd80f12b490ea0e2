// Entry point of `@kirimbayar/core/shutdown`: the graceful shutdown of a process that receives webhooks behind a load
// balancer (readiness, drain, releasing the claims still held, closing). Its own entry, so that a receiver that
// never shuts down gracefully (an edge function) bundles none of it.
export {
  createGracefulShutdown,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_SHUTDOWN_STEP_TIMEOUT_MS,
  type GracefulShutdown,
  type GracefulShutdownOptions,
  type NodeResponseLike,
  type NodeServerLike,
  nodeServerSteps,
  ShutdownInProgressError,
  type ShutdownPhase,
  type ShutdownReport,
  type ShutdownSteps,
} from "./webhooks/shutdown/index.js";
