export { ClaimTracker, type ReleasedClaims, ShutdownInProgressError } from "./claim-tracker.js";
export {
  createGracefulShutdown,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_SHUTDOWN_STEP_TIMEOUT_MS,
  type GracefulShutdown,
  type GracefulShutdownOptions,
  type ShutdownPhase,
  type ShutdownReport,
  type ShutdownSteps,
} from "./graceful-shutdown.js";
export { type NodeResponseLike, type NodeServerLike, nodeServerSteps } from "./node-server.js";
