/** A value accepted in a query string or form field; `undefined` fields are left out. */
export type FieldValue = string | number | boolean | undefined;

/** A multipart part: text, or a file (`Blob`) with an optional file name. */
export type MultipartValue = string | Blob | { value: Blob; filename: string };

/**
 * How a request body is encoded:
 * `json` → `application/json`; `form` → `application/x-www-form-urlencoded`; `multipart` → `multipart/form-data`.
 *
 * @example
 * const body: RequestBody = { form: { origin: 1, destination: 2, weight: 1000, courier: "jne:pos" } };
 */
export type RequestBody =
  | { json: unknown }
  | { form: Record<string, FieldValue> }
  | { multipart: Record<string, MultipartValue | undefined> };

/** A credential and where it travels: a header, or a parameter (form field for form/multipart bodies, else query). */
export interface Credential {
  in: "header" | "param";
  /** Header or parameter name, e.g. `"X-API-Key"`, `"key"`, `"android-key"`. */
  name: string;
  value: string;
}

/** Describes where a credential travels, for error messages (never its value). */
export const describeCredential = (credential: Credential): string =>
  credential.in === "header" ? `header ${credential.name}` : `parameter ${credential.name}`;

const setFields = (target: URLSearchParams | FormData, fields: Record<string, FieldValue>) => {
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) target.append(name, String(value));
  }
};

/** The encoded body, its content type (omitted for multipart: fetch writes the boundary) and the query. */
export interface EncodedRequest {
  body: string | FormData | undefined;
  contentType: string | undefined;
  query: URLSearchParams;
  headers: Record<string, string>;
}

/**
 * Encodes body, query and credentials. Parameter credentials go into a form or multipart body when there is one,
 * otherwise into the query string; they are appended last so input can never replace them.
 *
 * @example
 * encodeRequest({ form: { weight: 1000 } }, { limit: 5 }, [{ in: "param", name: "key", value: "k" }]);
 */
export function encodeRequest(
  body: RequestBody | undefined,
  query: Record<string, FieldValue> | undefined,
  credentials: readonly Credential[],
): EncodedRequest {
  const params = new URLSearchParams();
  setFields(params, query ?? {});
  const headers: Record<string, string> = {};
  const paramCredentials: Record<string, string> = {};
  for (const credential of credentials) {
    if (credential.in === "header") headers[credential.name] = credential.value;
    else paramCredentials[credential.name] = credential.value;
  }
  if (body === undefined || "json" in body) {
    setFields(params, paramCredentials);
    return body === undefined
      ? { body: undefined, contentType: undefined, query: params, headers }
      : { body: JSON.stringify(body.json), contentType: "application/json", query: params, headers };
  }
  if ("form" in body) {
    const form = new URLSearchParams();
    setFields(form, body.form);
    for (const [name, value] of Object.entries(paramCredentials)) form.set(name, value);
    return { body: form.toString(), contentType: "application/x-www-form-urlencoded", query: params, headers };
  }
  const data = new FormData();
  for (const [name, part] of Object.entries(body.multipart)) {
    if (part === undefined) continue;
    if (typeof part === "string") data.append(name, part);
    else if (part instanceof Blob) data.append(name, part);
    else data.append(name, part.value, part.filename);
  }
  for (const [name, value] of Object.entries(paramCredentials)) data.set(name, value);
  return { body: data, contentType: undefined, query: params, headers };
}

/**
 * Fills `{name}` placeholders of a path template with URL-encoded values (`KPAY-1/KM/2026` → `KPAY-1%2FKM%2F2026`).
 *
 * @example
 * fillPath("/status/{payment_id}", { payment_id: "A/B" }); // "/status/A%2FB"
 */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (placeholder, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`No value for ${placeholder} in path ${template}`);
    return encodeURIComponent(String(value));
  });
}
