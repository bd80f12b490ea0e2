// The pages' only stylesheet: plain CSS inline in each page, allowed by its hash in the CSP (no build step, no
// second request, no 'unsafe-inline'). One column on a phone; nothing may force a horizontal scroll.

/** The stylesheet, exactly as written into the page's `<style>` (its hash must match byte for byte). */
export const CONSOLE_STYLE = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --accent: #0b5cad;
  --ok: #116329; --ok-bg: #dafbe1; --warn: #7d4e00; --warn-bg: #fff8c5; --bad: #a40e26; --bad-bg: #ffebe9; }
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; overflow-wrap: anywhere; }
header.top, main, footer { max-width: 72rem; margin: 0 auto; padding: 0 1rem; }
header.top { padding-top: 1rem; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 0 0 .5rem; }
a { color: var(--accent); }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0 0 .5rem; padding: 0; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em; overflow-wrap: anywhere; }
pre { white-space: pre-wrap; background: var(--bg); padding: .5rem; border-radius: 6px; max-width: 100%; overflow: auto; }
.muted { color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip { position: absolute; left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; z-index: 1; }
.skip:not(:focus) { left: -10000px; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
form { margin: .5rem 0; }
.search { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; }
.search div { flex: 1 1 14rem; min-width: 0; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
input, select { font: inherit; padding: .4rem .5rem; min-height: 2.75rem; border: 1px solid var(--muted); border-radius: 6px; width: 100%; max-width: 100%; }
button { font: inherit; min-height: 2.75rem; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: #fff; color: var(--accent); }
.notice { border: 1px solid var(--line); border-left: 6px solid var(--accent); border-radius: 6px; padding: .5rem .75rem; margin: 1rem 0; background: var(--bg); }
.notice.ok { border-left-color: var(--ok); }
.notice.bad { border-left-color: var(--bad); }
.warn { background: var(--warn-bg); color: var(--warn); border-radius: 6px; padding: .25rem .5rem; display: inline-block; }
.bad { color: var(--bad); }
.ok { color: var(--ok); }
main > section { margin-bottom: 1.5rem; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 20rem), 1fr)); gap: 1rem; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 1rem; min-width: 0; }
dl { display: grid; grid-template-columns: minmax(0, max-content) minmax(0, 1fr); gap: .15rem .75rem; margin: .5rem 0; font-size: .95rem; }
dt { color: var(--muted); }
dd { margin: 0; min-width: 0; }
ol.timeline, ul.plain { list-style: none; margin: 0; padding: 0; }
ol.timeline > li { border: 1px solid var(--line); border-left: 6px solid var(--line); border-radius: 6px; padding: .5rem .75rem; margin: 0 0 .75rem; }
ol.timeline > li.processed { border-left-color: var(--ok); }
ol.timeline > li.failed { border-left-color: var(--bad); }
ol.timeline > li.refused { border-left-color: var(--warn); }
.story li { margin: .25rem 0; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 999px; font-size: .85rem; font-weight: 600; border: 1px solid var(--line); background: var(--bg); }
.badge.processed { background: var(--ok-bg); color: var(--ok); }
.badge.failed { background: var(--bad-bg); color: var(--bad); }
.badge.refused, .badge.in_progress { background: var(--warn-bg); color: var(--warn); }
details summary { cursor: pointer; }
footer { color: var(--muted); font-size: .85rem; padding: 2rem 1rem; }
`;

let hash: Promise<string> | undefined;

/** `'sha256-…'`, the CSP source that allows exactly {@link CONSOLE_STYLE}. */
export function styleHash(): Promise<string> {
  hash ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(CONSOLE_STYLE)).then((digest) => {
    let binary = "";
    for (const byte of new Uint8Array(digest)) binary += String.fromCharCode(byte);
    return `'sha256-${btoa(binary)}'`;
  });
  return hash;
}
