import { z } from "zod";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

const isDeliverableUrl = (value: string): boolean => {
  try {
    const url = new URL(value);
    if (url.username !== "" || url.password !== "") return false;
    return url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
  } catch {
    return false;
  }
};

/**
 * Input of `registerWebhook`: the URL the order service will call. It must be `https:` (`http:` only for
 * localhost), without user:password. Put a secret token in it (e.g. `?token=...`) to authenticate deliveries,
 * which carry no signature.
 *
 * @example
 * registerWebhookInputSchema.parse({ url: "https://shop.example.id/webhooks/orders?token=s3cret" });
 */
export const registerWebhookInputSchema = z.strictObject({
  url: z
    .string()
    .trim()
    .refine(isDeliverableUrl, "must be an absolute https URL (http only for localhost), without user:password"),
});
/** Input of `registerWebhook`. */
export type RegisterWebhookInput = z.input<typeof registerWebhookInputSchema>;
