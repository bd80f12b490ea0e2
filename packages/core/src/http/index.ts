export type { ApiResponse } from "./api-response.js";
export type {
  BodyOutcome,
  EnvelopeKind,
  MetaEnvelope,
  RajaongkirEnvelope,
  SuccessEnvelope,
  Unwrapped,
} from "./envelope.js";
export {
  describeBody,
  metaEnvelopeSchema,
  rajaongkirEnvelopeSchema,
  successEnvelopeSchema,
  unwrapEnvelope,
} from "./envelope.js";
export type { ErrorContext, ErrorMapper } from "./error-factory.js";
export { createApiError, defaultErrorMessage, effectiveStatusOf, messageIncludes } from "./error-factory.js";
export type { HttpMethod, OperationRequest } from "./operation.js";
export type { ClientOptions, FetchLike, RequestOptions, SleepFunction } from "./options.js";
export { DEFAULT_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS, DEFAULT_TIMEOUT_MS } from "./options.js";
export type { RateLimitInfo } from "./rate-limit.js";
export { parseRateLimit, parseResetTime, parseRetryAfter } from "./rate-limit.js";
export type { Redactor } from "./redact.js";
export { createRedactor, REDACTED } from "./redact.js";
export type { Credential, FieldValue, MultipartValue, RequestBody } from "./request-body.js";
export { fillPath } from "./request-body.js";
export { BASE_BACKOFF_MS, isRetryableError, MAX_BACKOFF_MS, retryDelayMs } from "./retry.js";
export {
  etdTextSchema,
  integerSchema,
  lenientNumberSchema,
  openEnum,
  parsedTime,
  providerIdSchema,
  withParsedTime,
} from "./schema-helpers.js";
export type { ProviderTime } from "./time.js";
export { parseProviderTime, tryParseProviderTime } from "./time.js";
export type { CredentialSpec } from "./transport.js";
export { Transport } from "./transport.js";
export { parseRequestInput } from "./validate-input.js";
