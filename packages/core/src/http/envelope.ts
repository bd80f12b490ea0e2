import { z } from "zod";

const code = z.union([z.number(), z.string()]);

/**
 * `{ meta: { message, code, status }, data }` (payment gateway, current shipping interface).
 *
 * @example
 * metaEnvelopeSchema.parse({ meta: { code: 200, status: "success", message: "OK" }, data: [] });
 */
export const metaEnvelopeSchema = z.looseObject({
  meta: z.looseObject({
    message: z.string().nullish(),
    code: code.nullish(),
    status: z.string().nullish(),
  }),
  data: z.unknown(),
});
/** Parsed `{ meta, data }` envelope. */
export type MetaEnvelope = z.infer<typeof metaEnvelopeSchema>;

/**
 * `{ success, message, data }` (QRIS service).
 *
 * @example
 * successEnvelopeSchema.parse({ success: true, message: "ok", data: {} });
 */
export const successEnvelopeSchema = z.looseObject({
  success: z.boolean(),
  message: z.string().nullish(),
  data: z.unknown(),
});
/** Parsed `{ success, message, data }` envelope. */
export type SuccessEnvelope = z.infer<typeof successEnvelopeSchema>;

/**
 * `{ rajaongkir: { query, status: { code, description }, results, origin_details, destination_details } }`
 * (Pro and Starter shipping interfaces).
 *
 * @example
 * rajaongkirEnvelopeSchema.parse({ rajaongkir: { status: { code: 200, description: "OK" }, results: [] } });
 */
export const rajaongkirEnvelopeSchema = z.looseObject({
  rajaongkir: z.looseObject({
    status: z.looseObject({ code: code.nullish(), description: z.string().nullish() }),
  }),
});
/** Parsed legacy `{ rajaongkir: {...} }` envelope. */
export type RajaongkirEnvelope = z.infer<typeof rajaongkirEnvelopeSchema>;

/**
 * Which wrapper a response uses: `"none"` when the body is the record itself; `"qris"` for the QR service, whose
 * endpoints answer in either `{ success, message, data }` or `{ meta, data }` (FIELD-NOTES).
 */
export type EnvelopeKind = "meta" | "success" | "qris" | "rajaongkir" | "none";

/** What the provider said about the outcome, read from any known envelope. */
export interface BodyOutcome {
  /** `true` when the body itself signals an error, whatever the HTTP status. */
  failed: boolean;
  /** `meta.code`, `rajaongkir.status.code`, `error_code` or `code`. */
  code?: number | string | undefined;
  /** `meta.message`, `rajaongkir.status.description`, `message`, `error` or `description`. */
  message?: string | undefined;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const asCode = (value: unknown): number | string | undefined =>
  typeof value === "number" || (typeof value === "string" && value !== "") ? value : undefined;

const asText = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

const isErrorCode = (value: number | string | undefined): boolean => {
  if (value === undefined) return false;
  const numeric = Number(value);
  return Number.isFinite(numeric) && numeric >= 400;
};

const SUCCESS_CODES = new Set(["0", "00", "000", "200", "success", "ok"]);

/**
 * Reads the outcome of any known body shape: `meta.code`/`meta.status`, `rajaongkir.status`, `success: false`,
 * `error_code`, or a bare `{ code, message }`.
 *
 * @example
 * describeBody({ meta: { code: 404, status: "error", message: "Not found" }, data: null }).failed; // true
 */
export function describeBody(body: unknown): BodyOutcome {
  if (!isRecord(body)) return { failed: false };
  if (isRecord(body.meta)) {
    const metaCode = asCode(body.meta.code);
    const status = asText(body.meta.status)?.toLowerCase();
    const message = asText(body.meta.message);
    return { failed: status === "error" || status === "failed" || isErrorCode(metaCode), code: metaCode, message };
  }
  if (isRecord(body.rajaongkir) && isRecord(body.rajaongkir.status)) {
    const statusCode = asCode(body.rajaongkir.status.code);
    return {
      failed: statusCode !== undefined && String(statusCode) !== "200",
      code: statusCode,
      message: asText(body.rajaongkir.status.description),
    };
  }
  const message = asText(body.message) ?? asText(body.error) ?? asText(body.description);
  const errorCode = asCode(body.error_code);
  if (errorCode !== undefined && !SUCCESS_CODES.has(String(errorCode).toLowerCase())) {
    return { failed: true, code: errorCode, message };
  }
  const bareCode = asCode(body.code) ?? asCode(body.status_code);
  // The QR service's flat error family, `{ message, code, status: "error" }`, whatever its code says.
  const flatStatus = bareCode !== undefined && message !== undefined ? asText(body.status)?.toLowerCase() : undefined;
  const flatError = flatStatus === "error" || flatStatus === "failed";
  return { failed: body.success === false || flatError || isErrorCode(bareCode), code: bareCode, message };
}

/** A response unwrapped from its envelope. */
export interface Unwrapped {
  /** What the operation's schema parses: `data` for `meta`/`success`, the inner object for `rajaongkir`. */
  payload: unknown;
  /** The provider's message (`meta.message`, `message`, `status.description`). */
  message?: string | undefined;
  /** The provider's code (`meta.code`, `status.code`). */
  code?: number | string | undefined;
}

/**
 * Strips the envelope of `kind`; returns `undefined` when the body does not have that shape.
 *
 * @example
 * unwrapEnvelope("success", { success: true, message: "ok", data: { a: 1 } })?.payload; // { a: 1 }
 */
export function unwrapEnvelope(kind: EnvelopeKind, body: unknown): Unwrapped | undefined {
  switch (kind) {
    case "none":
      return { payload: body };
    case "meta": {
      const parsed = metaEnvelopeSchema.safeParse(body);
      if (!parsed.success) return undefined;
      const { meta, data } = parsed.data;
      return { payload: data, message: meta.message ?? undefined, code: meta.code ?? undefined };
    }
    case "success": {
      const parsed = successEnvelopeSchema.safeParse(body);
      if (!parsed.success) return undefined;
      return { payload: parsed.data.data, message: parsed.data.message ?? undefined };
    }
    case "qris":
      return unwrapEnvelope("success", body) ?? unwrapEnvelope("meta", body);
    case "rajaongkir": {
      const parsed = rajaongkirEnvelopeSchema.safeParse(body);
      if (!parsed.success) return undefined;
      const inner = parsed.data.rajaongkir;
      return {
        payload: inner,
        message: inner.status.description ?? undefined,
        code: inner.status.code ?? undefined,
      };
    }
  }
}
