import { diagnoseRawBody, RequestBody } from "../body.js";
import type { WebhookHttpRequest, WebhookHttpResponse } from "../contract.js";
import { readHeader } from "../headers.js";
import { isJsonContentType } from "../request-checks.js";
import { webhookResponse } from "../response.js";
import { contentCodingOf, type DecodableCoding } from "../transport/content-coding.js";
import { decodedBodyTooLarge } from "../transport/refusals.js";

/** The transport rules of one receiver, fixed when it is built. */
export interface TransportRules {
  /** Upper-case accepted methods. */
  readonly methods: readonly string[];
  /** `Allow` header of the 405 answer. */
  readonly allowHeader: Readonly<Record<string, string>>;
  readonly maxBodyBytes: number;
  readonly allowMissingContentType: boolean;
}

/**
 * A request the adapter handed over without its raw bytes: a server misconfiguration, described as its fix. A plain
 * string (every other answer of the stage is an object), which costs the webhooks entry no class.
 */
export type MissingRawBody = string;

/** A body sent with a `Content-Encoding` core decodes; the receiver decodes it before verification. */
export class EncodedBody {
  constructor(
    readonly body: RequestBody,
    readonly coding: DecodableCoding,
  ) {}
}

/**
 * The first stage, cheapest and most telling checks first: method (405), raw body handed over (500 via
 * {@link MissingRawBody}), size (413), content type (415; its `charset` is ignored: JSON is UTF-8), content coding
 * (415 unless identity, gzip or deflate). Returns the body when the request may go on, wrapped in
 * {@link EncodedBody} when it still has to be decoded.
 */
export function checkTransport(
  method: string,
  request: WebhookHttpRequest,
  rules: TransportRules,
): RequestBody | EncodedBody | WebhookHttpResponse | MissingRawBody {
  if (!rules.methods.includes(method)) {
    return webhookResponse(
      405,
      `Method not allowed: this webhook accepts ${rules.allowHeader.allow}`,
      rules.allowHeader as Record<string, string>,
    );
  }
  const rawBodyProblem = diagnoseRawBody(request.rawBody);
  if (rawBodyProblem !== undefined) return rawBodyProblem;
  const body = new RequestBody(request.rawBody as Uint8Array | string);
  if (body.exceeds(rules.maxBodyBytes)) return decodedBodyTooLarge(rules.maxBodyBytes);
  const headers = request.headers ?? {};
  const contentType = readHeader(headers, "content-type");
  if (contentType === undefined ? !rules.allowMissingContentType : !isJsonContentType(contentType)) {
    return webhookResponse(415, "Unsupported content type: send application/json");
  }
  const coding = contentCodingOf(headers);
  if (coding === "identity") return body;
  if (coding === "unsupported") {
    return webhookResponse(415, "Unsupported content encoding: send the body as is, gzip or deflate");
  }
  return new EncodedBody(body, coding);
}
