import { WebhookConfigurationError } from "../errors.js";
import { type CidrBlock, cidrContains, parseCidr, parseIpAddress } from "./ip.js";
import {
  type RequestVerifier,
  VERIFIED,
  type VerificationRequest,
  type VerificationResult,
  verificationFailed,
} from "./types.js";

/** Options of {@link ipAllowlist}. */
export interface IpAllowlistOptions {
  /** Addresses or CIDR blocks, IPv4 or IPv6: `["203.0.113.0/24", "2001:db8::/32", "198.51.100.7"]`. */
  allow: readonly string[];
  /**
   * Whether `X-Forwarded-For` is believed. `false` (default): only the TCP peer address counts. A number `n`: the
   * last `n` hops (your load balancers) are trusted, so the client is the `n`-th address from the right of
   * `X-Forwarded-For` + peer. `true`: trust every hop and take the left-most address (only safe when your edge
   * overwrites the header).
   */
  trustProxy?: boolean | number;
}

/**
 * Accepts deliveries only from listed source addresses. Behind a proxy, set `trustProxy` to the number of proxies
 * you run; without it `X-Forwarded-For` is ignored, since any sender can write that header.
 *
 * @example
 * ipAllowlist({ allow: ["203.0.113.0/24"], trustProxy: 1 }); // one load balancer in front of the app
 */
export function ipAllowlist(options: IpAllowlistOptions): RequestVerifier {
  if (!Array.isArray(options.allow) || options.allow.length === 0) {
    throw new WebhookConfigurationError("ipAllowlist: allow must list at least one address or CIDR block");
  }
  const blocks: CidrBlock[] = options.allow.map((entry) => {
    const block = typeof entry === "string" ? parseCidr(entry.trim()) : undefined;
    if (block === undefined)
      throw new WebhookConfigurationError(`ipAllowlist: ${JSON.stringify(entry)} is not an IP address or CIDR block`);
    return block;
  });
  const trustProxy = options.trustProxy ?? false;
  if (typeof trustProxy === "number" && (!Number.isInteger(trustProxy) || trustProxy < 0)) {
    throw new WebhookConfigurationError("ipAllowlist: trustProxy must be a boolean or a non-negative integer");
  }
  return {
    kind: "request",
    name: "ipAllowlist",
    verify(request): VerificationResult {
      const client = clientAddress(request, trustProxy);
      if (client === undefined) {
        return verificationFailed(
          trustProxy === false
            ? "the source address is unknown: the adapter must pass remoteAddress"
            : "the source address is unknown: no remoteAddress and no usable X-Forwarded-For",
        );
      }
      const bytes = parseIpAddress(client);
      if (bytes === undefined) return verificationFailed("the source address is not a valid IP address");
      return blocks.some((block) => cidrContains(block, bytes))
        ? VERIFIED
        : verificationFailed("the source address is not allowed");
    },
  };
}

function clientAddress(request: VerificationRequest, trustProxy: boolean | number): string | undefined {
  const peer = request.remoteAddress;
  if (trustProxy === false || trustProxy === 0) return peer;
  const forwarded = request.header("x-forwarded-for");
  const hops =
    forwarded === undefined
      ? []
      : forwarded
          .split(",")
          .map((hop) => hop.trim())
          .filter((hop) => hop !== "");
  if (peer !== undefined) hops.push(peer);
  if (hops.length === 0) return undefined;
  if (trustProxy === true) return hops[0];
  return hops[Math.max(0, hops.length - 1 - trustProxy)];
}
