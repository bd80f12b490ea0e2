// The frame of every page: skip link, header with navigation and the search form, the notice, the content.
import { urlOf } from "../routes.js";
import { html, SafeHtml } from "./html.js";
import { CONSOLE_STYLE } from "./style.js";
import { utc } from "./time.js";

/** What every page's rendering needs besides its data. */
export interface PageContext {
  readonly base: string;
  readonly title: string;
  /** The CSRF token of this request's identity, for the page's forms. */
  readonly csrfToken: string;
  readonly now: number;
  readonly notice: SafeHtml | undefined;
  /** Whether "reconcile now" is offered (a reconciler is configured). */
  readonly canReconcile: boolean;
}

/** The search form (GET: no token needed), prefilled with the current reference. */
export function searchForm(context: PageContext, reference = ""): SafeHtml {
  return html`<form class="search" method="get" action="${urlOf(context.base, "search")}" role="search">
<div><label for="q">Reference</label>
<input id="q" name="q" type="search" value="${reference}" maxlength="256" autocomplete="off" spellcheck="false"
 aria-describedby="q-hint" required></div>
<button type="submit">Search</button>
</form>
<p id="q-hint" class="muted">A QR history id, payment id, order id, order number, cnote or idempotency key.</p>`;
}

/** A whole page. */
export function layout(context: PageContext, heading: string, content: SafeHtml, reference = ""): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${heading} · ${context.title}</title>
<style>${new SafeHtml(CONSOLE_STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<h1>${context.title}</h1>
<nav aria-label="Console"><ul>
<li><a href="${urlOf(context.base, "overview")}">Overview</a></li>
<li><a href="${urlOf(context.base, "deadLetters")}">Dead letters</a></li>
</ul></nav>
${searchForm(context, reference)}
</header>
<main id="main" tabindex="-1">
${context.notice}
<h2>${heading}</h2>
${content}
</main>
<footer>Rendered ${utc(context.now)}. Times are UTC.</footer>
</body>
</html>
`.value;
}

/** The hidden field every POST form carries. */
export function csrfField(context: PageContext): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${context.csrfToken}">`;
}
