export type { ApiErrorDetails } from "./api-error.js";
export {
  ApiError,
  AuthenticationError,
  InvalidCourierError,
  MissingParameterError,
  NoCourierServiceError,
  NotFoundError,
  RateLimitError,
} from "./api-error.js";
export { KirimbayarError } from "./base.js";
export type { RequestLocation } from "./network.js";
export { ConnectionError, RequestAbortedError, TimeoutError } from "./network.js";
export type { ValidationIssue } from "./validation.js";
export {
  ConfigurationError,
  RequestValidationError,
  ResponseShapeError,
  ResponseValidationError,
} from "./validation.js";
