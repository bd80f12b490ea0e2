// The simulator page's inline stylesheet and script, kept as plain strings: no front-end build step.

/** Simple responsive CSS: one column of cards on a phone, a grid on a desktop, tables turned into blocks. */
export const SIMULATOR_STYLE = `
:root { color-scheme: light; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --accent: #0b5cad;
  --ok: #116329; --ok-bg: #dafbe1; --warn: #7d4e00; --warn-bg: #fff8c5; --bad: #a40e26; --bad-bg: #ffebe9; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
header.top, main { max-width: 76rem; margin: 0 auto; padding: 0 1rem; }
header.top { padding-top: 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1.05rem; margin: 0; }
.card-head h2 { margin: 0; }
a { color: var(--accent); }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875em; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
.sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.skip { position: absolute; left: 1rem; top: .5rem; background: #fff; padding: .25rem .5rem; z-index: 1; }
.skip:not(:focus) { left: -10000px; }
.tagline { margin: 0 0 .25rem; color: var(--muted); }
.clock { margin: 0; font-weight: 600; }
.hint { margin: .25rem 0 0; font-size: .85rem; color: var(--muted); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.panel { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; margin-top: .75rem;
  display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 19rem), 1fr)); gap: .5rem 1.5rem; }
.panel form { margin: 0; }
form { margin: .5rem 0; }
fieldset { border: 0; padding: 0; margin: 0; min-width: 0; }
legend, label { display: block; font-weight: 600; margin-bottom: .25rem; }
.row, .actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.actions form { margin: 0; }
input, select { font: inherit; padding: .4rem .5rem; min-height: 2.5rem; border: 1px solid var(--muted); border-radius: 6px; max-width: 100%; }
input[type=number] { width: 6rem; }
button { font: inherit; min-height: 2.5rem; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--accent); cursor: pointer; }
button.primary { background: var(--accent); color: #fff; }
button.secondary { background: #fff; color: var(--accent); }
button:hover { filter: brightness(.95); }
#status { max-width: 76rem; margin: .5rem auto 0; padding: 0 1rem; min-height: 1.5rem; font-weight: 600; }
#status[data-kind=ok] { color: var(--ok); }
#status[data-kind=error], .error { color: var(--bad); }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 18rem), 1fr)); gap: 1rem; }
.card, .detail { border: 1px solid var(--line); border-radius: 8px; padding: 1rem; background: #fff; min-width: 0; }
.card-head { display: flex; justify-content: space-between; align-items: center; gap: .5rem; margin-bottom: .5rem; }
.card img { display: block; margin: 0 auto .5rem; max-width: 100%; height: auto; image-rendering: pixelated; }
.detail-body { display: flex; flex-wrap: wrap; gap: 1.5rem; align-items: flex-start; }
.detail-body > div { flex: 1 1 18rem; min-width: 0; }
.qr-large { max-width: 100%; height: auto; image-rendering: pixelated; border: 1px solid var(--line); }
.qris-string { display: block; background: var(--bg); padding: .5rem; border-radius: 6px; }
dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .15rem .75rem; margin: .5rem 0; font-size: .925rem; }
dt { color: var(--muted); }
dd { margin: 0; min-width: 0; }
.badge { display: inline-block; padding: .05rem .5rem; border-radius: 999px; font-size: .8rem; font-weight: 600; background: var(--bg); border: 1px solid var(--line); white-space: nowrap; }
.badge-paid, .badge-selesai { background: var(--ok-bg); color: var(--ok); border-color: #4ac26b; }
.badge-unpaid, .badge-pending, .badge-diajukan, .badge-dijemput, .badge-dikirim { background: var(--warn-bg); color: var(--warn); border-color: #d4a72c; }
.badge-expired, .badge-canceled, .badge-cancelled, .badge-dibatalkan, .badge-failed { background: var(--bad-bg); color: var(--bad); border-color: #ff8182; }
.count { color: var(--muted); font-weight: 400; }
table { width: 100%; border-collapse: collapse; font-size: .9rem; }
th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid var(--line); }
th { background: var(--bg); }
@media (max-width: 48rem) {
  table, thead, tbody, tr, th, td { display: block; }
  thead { position: absolute; left: -10000px; }
  tr { border: 1px solid var(--line); border-radius: 8px; margin-bottom: .75rem; padding: .25rem 0; }
  td { border: 0; padding: .15rem .75rem; display: grid; grid-template-columns: 6.5rem minmax(0, 1fr); gap: .5rem; }
  td::before { content: attr(data-label); font-size: .8rem; color: var(--muted); padding-top: .1rem; }
  dl { grid-template-columns: minmax(0, 1fr); }
  dt { margin-top: .25rem; }
}
`;

/**
 * Polls `GET /__fake/state` every second; when its revision changes, fetches the page again with `?fragment=1` and
 * swaps `#sections`, putting keyboard focus back where it was (or on the card whose button went away). Forms marked
 * `data-control` are sent with fetch and answered in the status line; without the script they post and redirect.
 */
export const SIMULATOR_SCRIPT = `
(() => {
  "use strict";
  const sections = document.getElementById("sections");
  const statusLine = document.getElementById("status");
  const clock = document.getElementById("now");
  const stateUrl = sections.dataset.stateUrl;
  let revision = sections.dataset.revision;
  let offline = false;
  const wib = (iso) => new Date(Date.parse(iso) + 25200000).toISOString().slice(0, 19).replace("T", " ") + " WIB";
  const say = (text, kind) => { statusLine.textContent = text; statusLine.dataset.kind = kind; };

  async function refresh(force) {
    const response = await fetch(stateUrl, { headers: { accept: "application/json" }, cache: "no-store" });
    if (!response.ok) throw new Error("state: HTTP " + response.status);
    const state = await response.json();
    clock.textContent = wib(state.now);
    clock.dateTime = state.now;
    if (!force && state.revision === revision) return;
    const url = new URL(location.href);
    url.searchParams.set("fragment", "1");
    const fragment = await fetch(url, { cache: "no-store" });
    if (!fragment.ok) throw new Error("fragment: HTTP " + fragment.status);
    const html = await fragment.text();
    const active = document.activeElement;
    const inside = active && sections.contains(active);
    const focusId = inside ? active.id : "";
    const holder = inside ? active.closest("[data-focus-key]") : null;
    sections.innerHTML = html;
    revision = fragment.headers.get("x-simulator-revision") || state.revision;
    sections.dataset.revision = revision;
    if (!inside) return;
    const again = (focusId && document.getElementById(focusId)) ||
      (holder && document.getElementById(holder.dataset.focusKey)) || document.getElementById("log");
    if (again) again.focus();
  }

  async function poll() {
    try {
      await refresh(false);
      if (offline) { offline = false; say("Connected again.", "ok"); }
    } catch {
      offline = true;
      say("Lost the fake provider; retrying every second.", "error");
    }
    setTimeout(poll, document.hidden ? 5000 : 1000);
  }
  setTimeout(poll, 1000);

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-control")) return;
    event.preventDefault();
    if (form.dataset.busy) return;
    form.dataset.busy = "1";
    const submitter = event.submitter;
    const done = (submitter && submitter.dataset.done) || form.dataset.done || "Done.";
    try {
      const response = await fetch(form.getAttribute("action"), {
        method: "POST",
        headers: { accept: "application/json" },
        body: new URLSearchParams(new FormData(form, submitter)),
      });
      const answer = await response.json().catch(() => ({}));
      if (response.ok) say(done, "ok");
      else say((answer.message || "Refused") + " (HTTP " + response.status + ")", "error");
    } catch {
      say("Could not reach the fake provider.", "error");
    } finally {
      delete form.dataset.busy;
    }
    try { await refresh(true); } catch {}
  });
})();
`;
