// The API as the page sees it: the key (this tab only), JSON calls, feature detection
// from the OpenAPI document, and the lead stream through EventSource.
//
// EventSource cannot send headers, and a key in the URL ends up in logs and history, so
// the stream is opened with a stream token (5 minutes, read-only, the stream only) that
// the key asks for; docs/live-delivery.md says how any browser client does the same.

const KEY = "vigia.key";

export function getKey() { return sessionStorage.getItem(KEY); }
export function setKey(k) { if (k) sessionStorage.setItem(KEY, k); else sessionStorage.removeItem(KEY); }

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export async function api(path, { method = "GET", body, accept = "application/json", raw = false, signal } = {}) {
  const headers = { "X-API-Key": getKey() || "", Accept: accept };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  if (!res.ok) {
    let problem = null;
    try { problem = await res.json(); } catch { /* not JSON */ }
    throw new ApiError(res.status, problem);
  }
  if (raw) return res;
  if (res.status === 204) return null;
  return res.json();
}

/** What the running service offers, read from its OpenAPI document (no key needed), so
 * routes other issues add light up without a change here. */
export async function features() {
  const out = { stream: false, documents: [], silences: null, statuses: [], history: false, me: false };
  let doc;
  try { doc = await (await fetch("/openapi.json")).json(); } catch { return out; }
  out.doc = doc;  // the move form is built from the PATCH body's schema (moveform.js)
  const paths = doc.paths || {};
  out.stream = "/leads/stream" in paths;
  out.me = "/me" in paths;
  for (const p of Object.keys(paths)) {
    if (/^\/leads\/\{[^}]+\}\/documents?\//.test(p) && paths[p].get) out.documents.push(...documentPaths(p, paths[p].get));
    if (/^\/silenc(es|ing)$/.test(p) && paths[p].post) out.silences = p;
  }
  const schemas = doc.components?.schemas || {};
  for (const [name, s] of Object.entries(schemas)) {
    const st = s.properties?.status;
    if (/StatusChange|Transition|LeadMove|LeadPatch/i.test(name) && st) {
      const e = st.enum || st.anyOf?.flatMap((x) => x.enum || []) || (st.$ref ? schemas[st.$ref.split("/").pop()]?.enum : null);
      if (e) out.statuses = e;
      out.reason = Boolean(s.properties.reason);
    }
  }
  return out;
}

/** One path per document kind: a "{kind}" segment after the lead id is spelt out from
 * its enum, so each kind gets its own button and only the lead id is left to fill. */
function documentPaths(path, op) {
  const [lead, ...rest] = path.match(/\{[^}]+\}/g) || [];
  if (!lead || !rest.length) return [path];
  let out = [path];
  for (const slot of rest) {
    const param = (op.parameters || []).find((x) => `{${x.name}}` === slot);
    const values = param?.schema?.enum;
    if (!values) return [];
    out = out.flatMap((p) => values.map((v) => p.replace(slot, encodeURIComponent(v))));
  }
  return out;
}

/** The lead stream through the browser's own EventSource, opened with a short-lived
 * read-only token (POST /leads/stream/token with the key; EventSource sends no header,
 * and the key itself never goes into a URL). The browser reconnects by itself with
 * Last-Event-ID; once the token has expired a reconnect is refused (401) and the
 * EventSource closes, so a new token is asked for and the stream reopened after the last
 * event seen. Calls onEvent({type, id, data}) per event; returns {close()}. onState(s):
 * "live" | "connecting" | "off" | "missing" (404: the service has no stream). */
export function openStream(path, { onEvent, onState, types, retryMs = 1000 }) {
  let lastId = null;
  let stopped = false;
  let source = null;
  const handle = (e) => {
    if (e.lastEventId) lastId = e.lastEventId;
    try { onEvent({ type: e.type, id: e.lastEventId || null, data: JSON.parse(e.data) }); }
    catch (err) { console.warn("bad event", err); }
  };
  async function open() {
    if (stopped) return;
    onState("connecting");
    let grant;
    try {
      grant = await api(`${path}/token`, { method: "POST" });
    } catch (e) {
      if (e.status === 404) { onState("missing"); return; }
      onState("off");
      if (e.status === 401 || e.status === 403) return;  // the key itself is refused
      setTimeout(open, retryMs);
      return;
    }
    if (stopped) return;
    const url = new URL(grant.stream, location.href);
    if (lastId !== null) url.searchParams.set("last_event_id", lastId);
    source = new EventSource(url);
    source.onopen = () => onState("live");
    for (const type of types) source.addEventListener(type, handle);
    source.onerror = () => {
      // CONNECTING: the browser retries by itself; CLOSED: it gave up (a refused token)
      if (source.readyState === EventSource.CONNECTING) { onState("connecting"); return; }
      source.close();
      onState("off");
      if (!stopped) setTimeout(open, retryMs);
    };
  }
  open();
  return { close() { stopped = true; source?.close(); }, get source() { return source; } };
}
