// HTML built with a template tag that escapes every interpolated value unless it is already markup (`SafeHtml`):
// everything from a webhook is untrusted text, so the safe way is the default way.

/** Markup built by {@link html}: interpolated as is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Text made safe for HTML content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

function part(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (value === undefined || value === null || value === false) return "";
  if (Array.isArray(value)) return value.map(part).join("");
  return escapeHtml(value);
}

/** Markup from a template: strings as written, values escaped (arrays joined; `undefined`, `null`, `false` → nothing). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) out += part(values[index]) + (strings[index + 1] ?? "");
  return new SafeHtml(out);
}

/** Markup for a list of items. */
export function join(items: readonly SafeHtml[], separator = ""): SafeHtml {
  return new SafeHtml(items.map((item) => item.value).join(separator));
}
