// The HTTP body contract every adapter keeps (`@kirimbayar/core/webhooks/transport`): how much body is read, for
// how long, and the answers given instead of a body; and the `Host` rule of the webhook console's mounts. The
// receiver itself decodes `Content-Encoding`.
export { contentCodingOf, type DecodableCoding, decodeBody, withoutDecodedCoding } from "./content-coding.js";
export { isWellFormedHost, malformedHostResponse } from "./host.js";
export { type BodyReadLimits, declaresTooLargeBody } from "./limits.js";
export { type NodeBodySource, readNodeBody, readNodeBodyThen } from "./read-node-body.js";
export { type NodeRequestLike, type NodeWebhookRequestRead, readNodeWebhookRequest } from "./read-node-request.js";
export { readWebBody } from "./read-web-body.js";
export {
  bodyIncomplete,
  bodyNotDecodable,
  bodyReadTimedOut,
  bodyTooLarge,
  decodedBodyTooLarge,
} from "./refusals.js";
