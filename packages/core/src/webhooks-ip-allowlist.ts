// Entry point of `@kirimbayar/core/webhooks/ip-allowlist`: the source-address verifier. Kept out of
// `@kirimbayar/core/webhooks` because its IPv4/IPv6 and CIDR parsing is the largest verifier and few endpoints use
// it (the providers sign or carry a token), so a receiver that does not check addresses does not ship it.
export { type IpAllowlistOptions, ipAllowlist } from "./webhooks/verifiers/ip-allowlist.js";
