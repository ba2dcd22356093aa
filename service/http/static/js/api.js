// The API as the page sees it: the key (this tab only), JSON calls, feature detection
// from the OpenAPI document, and a fetch()-based SSE reader.
//
// EventSource cannot send headers, and a key in the URL ends up in logs and history,
// so the stream is read with fetch() and a ReadableStream, sending X-API-Key like every
// other call, and Last-Event-ID on reconnect.

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

/** Read an SSE stream with fetch(); calls onEvent({type, id, data}) per event and
 * reconnects with Last-Event-ID. Returns {close()}. onState(s): "live" | "connecting" |
 * "off" | "missing" (404: the service has no stream). */
export function openStream(path, { onEvent, onState, retryMs = 1000 }) {
  let lastId = null;
  let stopped = false;
  let ctrl = null;
  async function run() {
    while (!stopped) {
      ctrl = new AbortController();
      onState("connecting");
      try {
        const headers = { "X-API-Key": getKey() || "", Accept: "text/event-stream" };
        if (lastId !== null) headers["Last-Event-ID"] = lastId;
        const res = await fetch(path, { headers, signal: ctrl.signal, cache: "no-store" });
        if (res.status === 404) { onState("missing"); return; }
        if (res.status === 401 || res.status === 403) { onState("off"); return; }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        onState("live");
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = "";
        let ev = { type: "message", data: [], id: null };
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let nl;
          while ((nl = buf.search(/\r\n|\n|\r/)) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
            if (line === "") {
              if (ev.data.length) {
                if (ev.id !== null) lastId = ev.id;
                try { onEvent({ type: ev.type, id: ev.id, data: JSON.parse(ev.data.join("\n")) }); }
                catch (e) { console.warn("bad event", e); }
              }
              ev = { type: "message", data: [], id: null };
              continue;
            }
            if (line.startsWith(":")) continue;  // keep-alive comment
            const i = line.indexOf(":");
            const field = i < 0 ? line : line.slice(0, i);
            let val = i < 0 ? "" : line.slice(i + 1);
            if (val.startsWith(" ")) val = val.slice(1);
            if (field === "event") ev.type = val;
            else if (field === "data") ev.data.push(val);
            else if (field === "id") ev.id = val;
            else if (field === "retry" && /^\d+$/.test(val)) retryMs = Number(val);
          }
        }
      } catch (e) {
        if (stopped) return;
      }
      onState("off");
      await new Promise((r) => setTimeout(r, retryMs));
    }
  }
  run();
  return { close() { stopped = true; ctrl?.abort(); } };
}
