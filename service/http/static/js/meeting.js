// A meeting at sea (STS-ENCOUNTER, issue 37): the lead names two vessels. The map draws
// the partner's track (details.partner_evidence) beside the lead's own, in another colour,
// and marks where they came closest; the panel names both ships, the closest approach and
// how long they stayed together.
import { extend, t, number } from "./i18n.js";

export const ENCOUNTER = "STS-ENCOUNTER";
/** The lead's own track is map.js's sel-path (red); the partner's is indigo. */
export const OWN_COLOUR = "#d50000";
export const PARTNER_COLOUR = "#1a237e";
const EMPTY = { type: "FeatureCollection", features: [] };

extend({
  "pt-BR": {
    "mt.between": "Encontro entre navios: {a} e {b}", "mt.closest": "Aproximação máxima",
    "mt.duration": "Duração", "mt.at": "às", "mt.provisional": "provisório (menos de 2 h até agora)",
    "mt.own": "derrota do indício", "mt.partner": "derrota do outro navio", "mt.meeting": "encontro",
  },
  en: {
    "mt.between": "Meeting between ships: {a} and {b}", "mt.closest": "Closest approach",
    "mt.duration": "Duration", "mt.at": "at", "mt.provisional": "provisional (under 2 h so far)",
    "mt.own": "the lead's track", "mt.partner": "the other ship's track", "mt.meeting": "meeting",
  },
});

const named = (v) => v?.name || `MMSI ${v?.mmsi ?? "?"}`;

/** Both ships of a meeting lead: [its own, the partner], from details.vessels. */
export function vesselsOf(l) {
  const vs = l.details?.vessels || [];
  const own = vs.find((v) => v.mmsi === l.mmsi) || { mmsi: l.mmsi, name: l.vessel?.name };
  const other = vs.find((v) => v.mmsi !== l.mmsi) || { mmsi: l.details?.partner_mmsi };
  return [own, other];
}

/** "3 h 05 min" / "45 min". */
export function durationText(s) {
  const m = Math.round((s || 0) / 60);
  const h = Math.floor(m / 60);
  return h ? `${h} h ${String(m % 60).padStart(2, "0")} min` : `${m} min`;
}

function layers(m) {
  if (m.getSource("meeting")) return;
  m.addSource("meeting", { type: "geojson", data: EMPTY });
  const kind = (k) => ["==", ["get", "kind"], k];
  // drawn above the lead's own layers: added last
  m.addLayer({ id: "sel-partner", type: "line", source: "meeting", filter: kind("partner"),
    paint: { "line-color": PARTNER_COLOUR, "line-width": 3 } });
  m.addLayer({ id: "sel-partner-points", type: "circle", source: "meeting", filter: kind("partner_evidence"),
    paint: { "circle-radius": 3, "circle-color": "#fff", "circle-stroke-color": PARTNER_COLOUR, "circle-stroke-width": 1.5 } });
  m.addLayer({ id: "sel-approach", type: "line", source: "meeting", filter: kind("approach"),
    paint: { "line-color": "#000", "line-width": 2, "line-dasharray": [1, 1] } });
  m.addLayer({ id: "sel-meeting", type: "circle", source: "meeting", filter: kind("meeting"),
    paint: { "circle-radius": 14, "circle-color": "rgba(255,235,59,0.25)", "circle-stroke-color": "#000", "circle-stroke-width": 2.5 } });
}

/** Draw (or, for any other lead, clear) the partner's track and the meeting point. */
export function showMeeting(vm, l) {
  const m = vm.map;
  if (l?.rule !== ENCOUNTER) { m.getSource("meeting")?.setData(EMPTY); return; }
  layers(m);
  const d = l.details || {};
  const pts = (d.partner_evidence || []).filter((p) => p.lon != null && p.lat != null).sort((a, b) => (a.t < b.t ? -1 : 1));
  const coords = pts.map((p) => [p.lon, p.lat]);
  const feats = pts.map((p) => ({ type: "Feature", geometry: { type: "Point", coordinates: [p.lon, p.lat] }, properties: { kind: "partner_evidence", ...p } }));
  if (coords.length >= 2) feats.push({ type: "Feature", geometry: { type: "LineString", coordinates: coords }, properties: { kind: "partner", mmsi: d.partner_mmsi } });
  const a = l.closest_point?.coordinates;
  const b = d.partner_closest_point;
  if (a && b) {
    feats.push({ type: "Feature", geometry: { type: "LineString", coordinates: [a, b] }, properties: { kind: "approach" } });
    feats.push({ type: "Feature", geometry: { type: "Point", coordinates: [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] },
      properties: { kind: "meeting", distance_m: d.closest_approach_m, t: d.closest_approach_at } });
  } else if (a) {
    feats.push({ type: "Feature", geometry: { type: "Point", coordinates: a }, properties: { kind: "meeting" } });
  }
  m.getSource("meeting").setData({ type: "FeatureCollection", features: feats });
  // the view covers both tracks; the distance label names the meeting, not a zone
  const all = [...coords, ...(l.evidence || []).map((p) => [p.lon, p.lat]), ...(a ? [a] : [])];
  if (all.length) {
    const w = Math.min(...all.map((c) => c[0])), e = Math.max(...all.map((c) => c[0]));
    const s = Math.min(...all.map((c) => c[1])), n = Math.max(...all.map((c) => c[1]));
    m.fitBounds([[w, s], [e, n]], { padding: 80, maxZoom: 15, duration: 0 });
  }
  if (a) vm.distPopup?.setLngLat(a).setText(`${t("mt.meeting")}: ${number(d.closest_approach_m ?? l.min_distance_m, 0)} m`);
}

/** The panel's words for a meeting: both ships (with their tracks' colours), the
 * closest approach and the duration. */
export function meetingPanel(l) {
  const box = document.createElement("div");
  box.className = "meeting";
  const [own, other] = vesselsOf(l);
  const d = l.details || {};
  const p = document.createElement("p");
  const strong = document.createElement("strong");
  strong.textContent = t("mt.between", { a: named(own), b: named(other) });
  p.append(strong);
  const ul = document.createElement("ul");
  ul.className = "meeting-legend";
  for (const [v, colour, key] of [[own, OWN_COLOUR, "mt.own"], [other, PARTNER_COLOUR, "mt.partner"]]) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.display = "inline-block"; sw.style.width = "18px"; sw.style.height = "4px";
    sw.style.verticalAlign = "middle"; sw.style.marginRight = "6px"; sw.style.background = colour;
    li.append(sw, `${named(v)} (MMSI ${v.mmsi ?? "?"}): ${t(key)}`);
    ul.append(li);
  }
  const facts = document.createElement("p");
  const dist = d.closest_approach_m ?? l.min_distance_m;
  facts.textContent = `${t("mt.closest")}: ${number(dist, 0)} m · ${t("mt.duration")}: ${durationText(d.duration_s)}` +
    (d.provisional ? ` · ${t("mt.provisional")}` : "");
  box.append(p, ul, facts);
  return box;
}
