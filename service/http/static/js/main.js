// Wiring: sign-in, language, tabs, layers, the live feed and the panels.
import { api, getKey, setKey, features as detect, openStream } from "./api.js";
import { apply, setLang, getLang, t, dateField } from "./i18n.js";
import { VigiaMap, CLASS_COLOURS, ZONE_COLOURS, COAST } from "./map.js";
import { LeadPanel } from "./leads.js";
import { VesselPanel, BallastPanel } from "./panels.js";
import { zoneImport } from "./zoneimport.js";
import { DraftPanel } from "./drafts.js";
import "./names.js";

const $ = (id) => document.getElementById(id);
const ROLE_RANK = { viewer: 1, inspector: 2, admin: 3 };
// positions: the map asks again this often (the stream's vessel.position events, when the
// service offers them, can replace this without touching the layer code)
const VESSEL_REFRESH_MS = 5000;
const VESSEL_WHOLE_MS = 300_000;  // the whole vessel layer every 5 minutes, deltas between
const VIEW_ZOOM = 9;  // from here in (about 60 nm across), only the vessels around the view
const CLUSTER_WHOLE_MS = 30_000;  // clusters (zoomed out over many vessels) every 30 s
const LEAD_POLL_MS = 5000;

const state = { session: null, audio: null };
window.__vigia = state;

function live(s) {
  const el = $("live");
  el.dataset.state = s === "missing" ? "poll" : s === "connecting" ? "off" : s;
  const key = { live: "live.live", missing: "live.poll", poll: "live.poll", connecting: "live.connecting" }[s] || "live.off";
  $("live-text").dataset.i18n = key;
  $("live-text").textContent = t(key);
}

function beep() {
  // two short tones; the audio context was created by the sign-in click (a user gesture)
  const ctx = state.audio;
  if (!ctx) return;
  for (const [i, f] of [[0, 880], [1, 660]]) {
    const o = ctx.createOscillator(); const g = ctx.createGain();
    o.frequency.value = f; g.gain.value = 0.15;
    o.connect(g).connect(ctx.destination);
    o.start(ctx.currentTime + i * 0.25); o.stop(ctx.currentTime + i * 0.25 + 0.2);
  }
  state.beeps = (state.beeps || 0) + 1;
}

function legend() {
  const el = $("legend");
  el.replaceChildren();
  const add = (colour, label, style = "") => { const i = document.createElement("i"); i.style.cssText = `background:${colour};${style}`; const s = document.createElement("span"); s.textContent = label; el.append(i, s); };
  for (const [k, c] of Object.entries(CLASS_COLOURS)) add(c, t("cls." + k));
  add("transparent", t("leg.lead"), "border:3px solid #ff6d00;border-radius:50%");
  add(ZONE_COLOURS.platform + "55", t("leg.band"), "border:1px dashed " + ZONE_COLOURS.platform);
}

function tabs() {
  const buttons = [...document.querySelectorAll("[role=tab]")];
  const show = (b) => {
    for (const x of buttons) { x.setAttribute("aria-selected", String(x === b)); x.tabIndex = x === b ? 0 : -1; $(x.getAttribute("aria-controls")).hidden = x !== b; }
  };
  buttons.forEach((b) => {
    b.addEventListener("click", () => show(b));
    b.addEventListener("keydown", (e) => {
      const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      // a tab the key's role is not offered (hidden) is stepped over
      const shown = buttons.filter((x) => !x.hidden);
      if (d) { const n = shown[(shown.indexOf(b) + d + shown.length) % shown.length]; n.focus(); n.click(); }
    });
  });
  show(buttons[0]);
}

async function start(session) {
  state.session = session;
  session.can = (role) => (ROLE_RANK[session.role] || 0) >= ROLE_RANK[role];
  $("signin").hidden = true;
  $("app").hidden = false;
  $("who").hidden = false;
  $("who-name").textContent = session.name;
  $("who-role").dataset.i18n = "role." + session.role;  // said in words, in either language
  $("who-role").textContent = t("role." + session.role);
  for (const el of document.querySelectorAll("[data-needs]")) el.hidden = !session.can(el.dataset.needs);
  // the map starts (style, WebGL) while the service's features are read
  const detecting = detect();
  const map = new VigiaMap($("map"), { onVessel: (m) => { $("tab-vessel").click(); vessels.open(m); }, onLead: (id) => { $("tab-leads").click(); leads.select(id); } });
  state.map = map;
  const feats = await detecting;
  state.features = feats;
  const leads = new LeadPanel({ list: $("lead-list"), detail: $("lead-detail"), count: $("lead-count"), filters: $("lead-filters"),
    map, session, features: feats, beep, onVessel: (m) => { $("tab-vessel").click(); vessels.open(m); } });
  state.leads = leads;
  const vessels = new VesselPanel({ form: $("vessel-form"), out: $("vessel-out"), map, leadPanel: leads });
  state.ballast = new BallastPanel({ form: $("ballast-form"), out: $("ballast-out"), auditForm: $("audit-form"), auditOut: $("audit-out"),
    arrivalsForm: $("arrivals-form"), arrivalsOut: $("arrivals-out"), map,
    onLead: (id) => { $("tab-leads").click(); leads.select(id); } });
  for (const box of document.querySelectorAll("[data-layer]")) box.addEventListener("change", () => map.setGroup(box.dataset.layer, box.checked));
  legend();
  zoneImport($("zone-import-form"), $("zone-import-out"), () => map.loadBackground());
  if (session.can("admin")) {
    // draft zones and their backtests (issue 36): the list is asked for when the tab opens
    state.drafts = new DraftPanel({ root: $("panel-drafts"), map });
    $("tab-drafts").addEventListener("click", () => state.drafts.refresh());
  }
  // the land, zones and lines are asked for now, beside the list, not after it: a page
  // at 100,000 leads opened in 2.5 s with these in turn (docs/caseload.md)
  const background = map.loadBackground();
  await map.ready;
  const vesselsDrawn = refreshVessels(map);
  await leads.firstPage();  // the server's list for the link's filters (docs/caseload.md)
  const onEvent = (ev) => {
    if (ev.type === "vessel.position") return;  // reserved for the positions feed
    if (ev.type === "stream.reset") {
      // the store could not place our last event (restored from a backup, or replaced):
      // what the page shows may be stale, so it is replaced by the current leads the
      // reset carries, never kept as if nothing had happened (docs/operations.md); the
      // list is asked for again
      leads.reset(ev.data?.leads || []);
      return;
    }
    if (ev.data?.id) { leads.marks.set(ev.data.id, performance.now()); leads.put(ev.data, { fresh: ev.type === "lead.opened" }); }
  };
  const types = ["lead.opened", "lead.updated", "lead.status", "stream.reset"];
  const connect = () => openStream("/leads/stream", { onEvent, types, onState: (s) => {
    live(s);
    if (s === "missing") pollLeads(leads);
  } });
  if (feats.stream) state.stream = connect();
  else { live("missing"); pollLeads(leads); }
  await Promise.all([background, vesselsDrawn]);
  map.map.on("moveend", () => nudgeVessels(map));
  leads.render();  // the list came first: now with the zones' names instead of their ids
  map.map.resize();
  map.map.fitBounds(COAST, { duration: 0, padding: 10 });
  // a shared link (#/lead/<id>?filters) opens its lead, after the coast's first view so
  // the map is left on that lead; one pasted into the address bar later too
  await leads.openLink();
  window.addEventListener("hashchange", () => leads.openLink());
  state.loaded = true;
  document.body.dataset.loaded = "true";
}

function pollLeads(leads) {
  // only when the service has no stream (a clear feature check, shown in the header)
  if (state.polling) return;
  state.polling = setInterval(async () => {
    try { for (const l of (await api("/leads?limit=200")).leads) { const old = leads.leads.get(l.id); if (!old || old.status !== l.status || old.ended_at !== l.ended_at || old.evidence?.length !== l.evidence?.length) leads.put(l, { fresh: !old }); } }
    catch { live("off"); }
  }, LEAD_POLL_MS);
}

/** From VIEW_ZOOM in, the vessels asked for are those of the view padded by half a view
 * on each side (a harbour's, not the coast's); further out, all of them. */
function vesselBox(map) {
  const m = map.map;
  if (!m || m.getZoom() < VIEW_ZOOM) return null;
  const b = m.getBounds();
  const w = (b.getEast() - b.getWest()) / 2, h = (b.getNorth() - b.getSouth()) / 2;
  const r = (x) => Math.round(x * 1e4) / 1e4;
  return [r(Math.max(-180, b.getWest() - w)), r(Math.max(-90, b.getSouth() - h)),
    r(Math.min(180, b.getEast() + w)), r(Math.min(90, b.getNorth() + h))];
}

function holds(outer, m) {
  if (!outer) return true;  // the whole coast was asked for
  const b = m.map.getBounds();
  return b.getWest() >= outer[0] && b.getSouth() >= outer[1] && b.getEast() <= outer[2] && b.getNorth() <= outer[3];
}

async function refreshVessels(map) {
  // the whole layer now and then, deltas between: a refresh carries the vessels that
  // moved since the last answer, not all of them (issue 39). The whole layer also
  // brings fixes that arrived late with older times, which no delta holds; it is asked
  // again when the view leaves the box it was asked for, or zooms out of it. Zoomed out
  // over a busy sea the service answers clusters (docs/caseload.md): those are asked
  // again when the zoom changes and every CLUSTER_WHOLE_MS, never as deltas
  clearTimeout(state.vesselTimer);
  state.vesselBusy = true;
  try {
    if (!document.hidden) {
      const zoom = map.map ? map.map.getZoom() : 0;
      const zoomedIn = zoom >= VIEW_ZOOM;
      const whole = needsWhole(map);
      if (whole || state.clusterZoom == null) {
        const box = whole ? vesselBox(map) : state.vesselBox;
        const q = new URLSearchParams();
        if (box) q.set("bbox", box.join(","));
        if (!whole) q.set("since", state.vesselSince);
        else if (!zoomedIn) q.set("zoom", zoom.toFixed(2));
        const doc = await api(`/map/vessels${q.size ? "?" + q : ""}`);
        if (doc.clustered) {
          map.setClusters(doc);
          state.clusterZoom = Math.floor(zoom);
        } else if (whole) map.setVessels(doc); else map.mergeVessels(doc);
        if (whole) { state.vesselWholeAt = Date.now(); state.vesselBox = box; }
        if (!doc.clustered) state.clusterZoom = null;
        state.vesselSince = (whole ? doc.next_since : doc.next_since || state.vesselSince) || null;
      }
    }
  } catch (e) { console.warn("vessels", e.message); }
  state.vesselBusy = false;
  const soon = state.vesselAgain;
  state.vesselAgain = false;
  state.vesselTimer = setTimeout(() => refreshVessels(map), soon ? 0 : state.vesselRefreshMs || VESSEL_REFRESH_MS);
}

/** Whether the next refresh asks for the whole layer (or new clusters), not a delta. */
function needsWhole(map) {
  const zoom = map.map ? map.map.getZoom() : 0;
  const zoomedIn = zoom >= VIEW_ZOOM;
  const age = Date.now() - state.vesselWholeAt;
  if (state.clusterZoom != null) return zoomedIn || Math.floor(zoom) !== state.clusterZoom || age > CLUSTER_WHOLE_MS;
  const moved = state.vesselBox ? !zoomedIn || !holds(state.vesselBox, map) : zoomedIn;
  return !state.vesselSince || age > VESSEL_WHOLE_MS || moved;
}

/** A zoom or a pan that needs another layer (a cluster's click, leaving the box asked
 * for) asks for it at once, not at the next refresh. */
function nudgeVessels(map) {
  if (!needsWhole(map)) return;
  if (state.vesselBusy) { state.vesselAgain = true; return; }
  refreshVessels(map);
}

async function signIn(key) {
  setKey(key);
  try {
    return await api("/me");
  } catch (e) {
    setKey(null);
    throw e;
  }
}

function init() {
  for (const el of document.querySelectorAll("input[data-date]")) dateField(el, el.dataset.date === "datetime");
  apply(document);
  $("lang").value = getLang();
  $("lang").addEventListener("change", (e) => { setLang(e.target.value); if (state.map) legend(); });
  $("signin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    state.audio ||= new (window.AudioContext || window.webkitAudioContext)();
    try { await start(await signIn($("key").value.trim())); $("key").value = ""; }
    catch { $("signin-error").textContent = t("signin.bad"); }
  });
  $("signout").addEventListener("click", () => { setKey(null); location.reload(); });
  tabs();
  const key = getKey();
  if (key) signIn(key).then(start, () => { $("signin").hidden = false; });
  else $("key").focus();
}

init();
export { COAST };
