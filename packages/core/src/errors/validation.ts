import { KirimbayarError } from "./base.js";

/** One failing field: a dotted path (`items.0.price`, or `""` for the whole input) and what is wrong with it. */
export interface ValidationIssue {
  path: string;
  message: string;
}

const summarize = (issues: readonly ValidationIssue[]): string =>
  issues.map((issue) => (issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`)).join("; ");

/**
 * The request is invalid; it was NOT sent. `issues` lists every failing field. Never contains input values.
 *
 * @example
 * catch (e) { if (e instanceof RequestValidationError) for (const i of e.issues) console.log(i.path, i.message) }
 */
export class RequestValidationError extends KirimbayarError {
  /** Every failing field. */
  readonly issues: readonly ValidationIssue[];
  /** Operation whose input was rejected, e.g. `"createPayment"`. */
  readonly operation: string | undefined;

  constructor(issues: readonly ValidationIssue[], operation?: string) {
    super(`Invalid ${operation ?? "request"} input (nothing was sent): ${summarize(issues)}`, {
      code: "request_validation",
    });
    this.issues = issues;
    this.operation = operation;
  }
}

/**
 * The provider answered 2xx but even tolerant parsing of the body failed. `rawBody` keeps what came back
 * (secrets redacted).
 *
 * @example
 * catch (e) { if (e instanceof ResponseValidationError) console.log(e.issues, e.rawBody) }
 */
export class ResponseValidationError extends KirimbayarError {
  /** What did not match. */
  readonly issues: readonly ValidationIssue[];
  /** Operation whose response was unreadable. */
  readonly operation: string | undefined;
  /** HTTP status of the response. */
  readonly status: number;
  /** Body text, secrets redacted. */
  readonly rawBody: string;

  constructor(
    details: { issues: readonly ValidationIssue[]; operation?: string; status: number; rawBody: string },
    kind: { code: string; message: string } = {
      code: "response_validation",
      message: `Unexpected ${details.operation ?? "response"} body from the provider: ${summarize(details.issues)}`,
    },
  ) {
    super(kind.message, { code: kind.code });
    this.issues = details.issues;
    this.operation = details.operation;
    this.status = details.status;
    this.rawBody = details.rawBody;
  }
}

/**
 * The provider answered 2xx with a readable body that leaves out a field the flow relies on (a payment's id or
 * status, a QR string, an amount) and no documented rule gives it. Thrown instead of handing the app a `null`;
 * `missing` names the fields and `rawBody` keeps the answer (secrets redacted), e.g. to look the payment up later.
 *
 * @example
 * catch (e) { if (e instanceof ResponseShapeError) log.error(e.missing, e.rawBody) }
 */
export class ResponseShapeError extends ResponseValidationError {
  /** The required fields the response did not carry (dotted paths). */
  readonly missing: readonly string[];

  constructor(details: { missing: readonly string[]; operation: string; status: number; rawBody: string }) {
    super(
      {
        issues: details.missing.map((path) => ({ path, message: "required by the flow, missing from the response" })),
        operation: details.operation,
        status: details.status,
        rawBody: details.rawBody,
      },
      {
        code: "response_shape",
        message: `The ${details.operation} response from the provider has no ${details.missing.join(", ")}`,
      },
    );
    this.missing = details.missing;
  }
}

/**
 * A client option is invalid (missing `baseUrl`, `http:` URL, whitespace inside the key, browser use, ...).
 * The message names the option, never a secret value.
 *
 * @example
 * catch (e) { if (e instanceof ConfigurationError) console.error(e.option, e.message) }
 */
export class ConfigurationError extends KirimbayarError {
  /** Name of the offending option, e.g. `"apiKey"`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(message, { code: "configuration" });
    this.option = option;
  }
}
