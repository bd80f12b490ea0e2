import type { CryptoProvider } from "../crypto/types.js";
import type { RequestBody } from "./body.js";
import type { ReceivedDelivery } from "./context.js";
import type { WebhookHeadersInput } from "./contract.js";
import { readHeader } from "./headers.js";
import type { VerificationRequest } from "./verifiers/types.js";

/**
 * One delivery as the verifiers see it. A class rather than an object literal: one is built per delivery, and it
 * doubles as the delivery record handed on to dispatch.
 */
export class DeliveryVerificationRequest implements VerificationRequest, ReceivedDelivery {
  // Declared, not defined: the constructor assigns each one, in this order (see DeliveryContext).
  declare readonly method: string;
  declare readonly url: string;
  declare readonly headers: WebhookHeadersInput;
  declare readonly body: RequestBody;
  declare readonly remoteAddress: string | undefined;
  declare readonly crypto: CryptoProvider;
  declare readonly now: number;

  constructor(
    method: string,
    url: string,
    headers: WebhookHeadersInput,
    body: RequestBody,
    remoteAddress: string | undefined,
    crypto: CryptoProvider,
    now: number,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.body = body;
    this.remoteAddress = remoteAddress;
    this.crypto = crypto;
    this.now = now;
  }

  header(name: string): string | undefined {
    return readHeader(this.headers, name.toLowerCase());
  }

  get rawBody(): Uint8Array {
    return this.body.bytes;
  }
}
