import { diagnoseRawBody, RequestBody } from "../body.js";
import type { WebhookHttpRequest, WebhookHttpResponse } from "../contract.js";
import { readHeader } from "../headers.js";
import { isJsonContentType } from "../request-checks.js";
import { webhookResponse } from "../response.js";

/** The transport rules of one receiver, fixed when it is built. */
export interface TransportRules {
  /** Upper-case accepted methods. */
  readonly methods: readonly string[];
  /** `Allow` header of the 405 answer. */
  readonly allowHeader: Readonly<Record<string, string>>;
  readonly maxBodyBytes: number;
  readonly allowMissingContentType: boolean;
}

/** A request the adapter handed over without its raw bytes: a server misconfiguration, described as its fix. */
export class MissingRawBody {
  constructor(readonly problem: string) {}
}

/**
 * The first stage, cheapest and most telling checks first: method (405), raw body handed over (500 via
 * {@link MissingRawBody}), size (413), content type (415). Returns the body when the request may go on.
 */
export function checkTransport(
  method: string,
  request: WebhookHttpRequest,
  rules: TransportRules,
): RequestBody | WebhookHttpResponse | MissingRawBody {
  if (!rules.methods.includes(method)) {
    return webhookResponse(
      405,
      `Method not allowed: this webhook accepts ${rules.allowHeader.allow}`,
      rules.allowHeader as Record<string, string>,
    );
  }
  const rawBodyProblem = diagnoseRawBody(request.rawBody);
  if (rawBodyProblem !== undefined) return new MissingRawBody(rawBodyProblem);
  const body = new RequestBody(request.rawBody as Uint8Array | string);
  if (body.exceeds(rules.maxBodyBytes)) return webhookResponse(413, `Body is larger than ${rules.maxBodyBytes} bytes`);
  const contentType = readHeader(request.headers ?? {}, "content-type");
  if (contentType === undefined ? !rules.allowMissingContentType : !isJsonContentType(contentType)) {
    return webhookResponse(415, "Unsupported content type: send application/json");
  }
  return body;
}
