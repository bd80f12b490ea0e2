// A stand-in for `@kirimbayar/console`, for testing a mount of it (the adapters' `consoleRouter`, `consoleApp`,
// `consolePlugin`, NestJS `forRoot({ console })`) without depending on the console package itself.

/** What {@link createStandInConsole}'s console sends and expects; a test asserts a mount passed these through. */
export const STAND_IN_CONSOLE = Object.freeze({
  /** The path the stand-in answers under, as the real console's default. */
  basePath: "/kirimbayar/console",
  /** The operator's `Authorization` header; without it the stand-in answers 401 (as the console's `authorize`). */
  authorization: `Basic ${btoa("ops:s3cret")}`,
  /** The `WWW-Authenticate` of that 401. */
  wwwAuthenticate: 'Basic realm="console"',
  /** The `Content-Security-Policy` of every answer to an operator. */
  contentSecurityPolicy: "default-src 'none'",
  /** The two `Set-Cookie` headers of every answer to an operator: a mount must write back each, not just one. */
  cookies: Object.freeze([
    "kb_session=abc; HttpOnly; Path=/kirimbayar/console",
    "kb_csrf=def; Path=/kirimbayar/console",
  ]),
  /** The `Location` of the 303 that answers every POST (post, redirect, get, as the console's forms). */
  redirectLocation: "/kirimbayar/console/search?q=done",
  /** A console form post's body (URL-encoded). */
  form: "csrf=t0k&action=replay&id=dl-1",
});

/** What a stand-in console saw of one request it let in; a GET is answered with it as JSON. */
export interface StandInConsoleRequest {
  method: string;
  /** The full URL the console was handed (scheme, host, mount path, query). */
  url: string;
  contentType: string | null;
  /** The body as text; `""` for GET and HEAD. */
  body: string;
}

/** A Web `Request → Response` console (structurally an adapter's `MountableConsole`) that records what it let in. */
export interface StandInConsole {
  /** {@link STAND_IN_CONSOLE}'s `basePath`. */
  readonly basePath: string;
  /** Every request past the credentials check, in order: a refused or too large one never lands here. */
  readonly seen: StandInConsoleRequest[];
  /** Answers one request (see {@link createStandInConsole}). */
  fetch(request: Request): Promise<Response>;
}

/**
 * A stand-in for `@kirimbayar/console`'s `createWebhookConsole()`, for testing a mount of it: refuses a request
 * without {@link STAND_IN_CONSOLE}'s `authorization` (401 with `WWW-Authenticate`), records the rest in `seen`, and
 * answers with the headers the real console sends: its CSP and two cookies, then a 303 to `redirectLocation` for a
 * POST, or for any other method a 200 with the recorded {@link StandInConsoleRequest} as JSON.
 */
export function createStandInConsole(): StandInConsole {
  const seen: StandInConsoleRequest[] = [];
  return {
    basePath: STAND_IN_CONSOLE.basePath,
    seen,
    async fetch(request) {
      if (request.headers.get("authorization") !== STAND_IN_CONSOLE.authorization) {
        return new Response("Unauthorized", {
          status: 401,
          headers: { "www-authenticate": STAND_IN_CONSOLE.wwwAuthenticate },
        });
      }
      const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
      const entry = {
        method: request.method,
        url: request.url,
        contentType: request.headers.get("content-type"),
        body,
      };
      seen.push(entry);
      const headers = new Headers({ "content-security-policy": STAND_IN_CONSOLE.contentSecurityPolicy });
      for (const cookie of STAND_IN_CONSOLE.cookies) headers.append("set-cookie", cookie);
      if (request.method === "POST") {
        headers.set("location", STAND_IN_CONSOLE.redirectLocation);
        return new Response(null, { status: 303, headers });
      }
      headers.set("content-type", "application/json");
      return new Response(JSON.stringify(entry), { status: 200, headers });
    },
  };
}

/** What a stand-in console records of {@link STAND_IN_CONSOLE}'s form posted to `url` (a string or a matcher). */
export function standInFormPost(url: string): StandInConsoleRequest {
  return { method: "POST", url, contentType: "application/x-www-form-urlencoded", body: STAND_IN_CONSOLE.form };
}

/**
 * POSTs a URL-encoded form to a mounted stand-in console over real HTTP, as the operator (plus `headers`), without
 * following its redirect. `body` defaults to {@link STAND_IN_CONSOLE}'s `form`.
 */
export function postStandInForm(
  url: string,
  body: string = STAND_IN_CONSOLE.form,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      authorization: STAND_IN_CONSOLE.authorization,
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body,
    redirect: "manual",
  });
}
