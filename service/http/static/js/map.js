// The map: Vigia's own land, zones with their rule bands, ballast lines, vessels, leads.
// No glyphs, tiles or fonts are fetched: labels are HTML popups, arrows a canvas image.
import * as maplibregl from "/ui/vendor/maplibre-gl/maplibre-gl.mjs";
import { api } from "./api.js";
import { t, timeText, number } from "./i18n.js";
import { ruleName } from "./names.js";

export const COAST = [[-54.5, -34.5], [-28.5, 5.5]];
const STALE_S = 30 * 60;

export const ZONE_COLOURS = {
  bather_beach: "#0d47a1", military: "#6a1b9a", platform: "#e65100", anchorage: "#2e7d32",
  access_channel: "#00695c", port_facility: "#4e342e", power_plant: "#ad1457",
  special_area: "#b71c1c", launch_area: "#1565c0", jurisdiction: "#37474f",
};
export const CLASS_COLOURS = {
  cargo: "#2e7d32", tanker: "#bf360c", passenger: "#1565c0", fishing: "#f9a825",
  pleasure: "#8e24aa", service: "#00838f", hsc: "#ffd600", other: "#616161",
  sar: "#ff1744", aton: "#5d4037",
};

export function shipClass(deviceClass, shipType) {
  if (["sart", "mob", "epirb", "sar_aircraft"].includes(deviceClass)) return "sar";
  if (deviceClass === "aton" || deviceClass === "base_station") return "aton";
  const s = shipType ?? -1;
  if (s === 30) return "fishing";
  if (s === 36 || s === 37) return "pleasure";
  if ((s >= 31 && s <= 35) || (s >= 50 && s <= 59)) return "service";
  if (s >= 40 && s <= 49) return "hsc";
  if (s >= 60 && s <= 69) return "passenger";
  if (s >= 70 && s <= 79) return "cargo";
  if (s >= 80 && s <= 89) return "tanker";
  return "other";
}

const EMPTY = { type: "FeatureCollection", features: [] };

function arrowImage(size = 32) {
  // an SDF arrow pointing up (north); MapLibre tints it per vessel with icon-color
  const c = document.createElement("canvas");
  c.width = c.height = size;
  const g = c.getContext("2d");
  g.fillStyle = "#fff";
  g.beginPath();
  g.moveTo(size / 2, 2); g.lineTo(size - 7, size - 4); g.lineTo(size / 2, size - 11); g.lineTo(7, size - 4);
  g.closePath(); g.fill();
  return g.getImageData(0, 0, size, size);
}

/** Zoom from which moving vessels are drawn as heading arrows (dots below it). */
const ARROW_ZOOM = 7;

export const LAYER_GROUPS = {
  land: ["land-fill", "land-line"],
  zones: ["zone-fill", "zone-line", "zone-ref-line", "zone-ref-point"],
  lines: ["line-200", "line-50", "line-iso"],
  vessels: ["vessel-all", "vessel-arrow", "vessel-dot", "vessel-cluster"],
  leads: ["lead-ring", "lead-sar", "lead-cluster"],
};

/** Below this zoom the open leads are drawn as clusters (MapLibre's own), distress aside. */
const LEAD_CLUSTER_BELOW = 9;

/** A cluster's circle grows with its count (7 px for a few vessels, 20 px for thousands). */
const clusterRadius = ["interpolate", ["linear"], ["ln", ["get", "count"]], 0, 7, 9, 20];

/** A /map/vessels row as a map feature, its id the MMSI (so a delta can replace it). */
function vesselFeature(row, ref) {
  const [mmsi, lon, lat, cog, heading, sog, ts, dc, st, name] = row;
  const dir = heading ?? cog;
  return { type: "Feature", id: mmsi, geometry: { type: "Point", coordinates: [lon, lat] },
    properties: { mmsi, cog, sog, t: ts, name, ship_type: st, cls: shipClass(dc, st), dir: dir ?? 0,
      moving: dir != null && (sog ?? 0) >= 0.5, stale: ref - Date.parse(ts) > STALE_S * 1000 } };
}

export class VigiaMap {
  constructor(container, { onVessel, onLead }) {
    this.onVessel = onVessel;
    this.onLead = onLead;
    this.vesselRows = new Map();
    this.map = new maplibregl.Map({
      container,
      style: { version: 8, sources: {}, layers: [{ id: "sea", type: "background", paint: { "background-color": "#a8c7e0" } }] },
      bounds: COAST,
      attributionControl: false,
      maxPitch: 0,
      dragRotate: false,
      fadeDuration: 0,
    });
    this.map.addControl(new maplibregl.NavigationControl({ showCompass: false }), "top-right");
    this.map.addControl(new maplibregl.ScaleControl({ unit: "nautical" }), "bottom-right");
    this.map.addControl(new maplibregl.AttributionControl({ compact: true, customAttribution: "Natural Earth · DHN ENC · ETOPO1" }));
    this.popup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, maxWidth: "280px" });
    this.distPopup = new maplibregl.Popup({ closeButton: false, closeOnClick: false, className: "dist" });
    this.ready = new Promise((resolve) => this.map.on("load", () => {
      // the container may have been sized after the map was made (the page was hidden)
      this.map.resize();
      this.map.fitBounds(COAST, { duration: 0, padding: 10 });
      this.setup();
      resolve();
    }));
  }

  setup() {
    const m = this.map;
    m.addImage("arrow", arrowImage(), { sdf: true });
    for (const id of ["land", "zones", "lines", "vessels", "vclusters", "sar", "sel", "seltrack", "ballast"]) {
      m.addSource(id, { type: "geojson", data: EMPTY, ...(id === "vessels" ? { buffer: 0, tolerance: 0 } : {}) });
    }
    // the open leads far out are counted in clusters (issue 39: 500 leads off Campos were
    // one blob); a distress beacon has a source of its own, never hidden in a count
    m.addSource("leads", { type: "geojson", data: EMPTY, cluster: true, clusterMaxZoom: LEAD_CLUSTER_BELOW - 1, clusterRadius: 40 });
    m.addLayer({ id: "land-fill", type: "fill", source: "land", paint: { "fill-color": "#e8e2d0" } });
    m.addLayer({ id: "land-line", type: "line", source: "land", paint: { "line-color": "#6d6250", "line-width": 0.8 } });
    const kindColour = ["match", ["get", "kind"], ...Object.entries(ZONE_COLOURS).flat(), "#333"];
    m.addLayer({ id: "zone-fill", type: "fill", source: "zones", filter: ["all", ["==", ["get", "role"], "band"], ["!=", ["get", "kind"], "jurisdiction"]],
      paint: { "fill-color": kindColour, "fill-opacity": ["case", ["==", ["get", "band"], "sail"], 0.35, 0.22] } });
    m.addLayer({ id: "zone-line", type: "line", source: "zones", filter: ["any", ["==", ["get", "role"], "band"], ["==", ["get", "kind"], "jurisdiction"]],
      paint: { "line-color": kindColour, "line-width": 1.4, "line-dasharray": [3, 2] } });
    m.addLayer({ id: "zone-ref-line", type: "line", source: "zones", filter: ["all", ["==", ["get", "role"], "reference"], ["!=", ["geometry-type"], "Point"]],
      paint: { "line-color": kindColour, "line-width": 2 } });
    m.addLayer({ id: "zone-ref-point", type: "circle", source: "zones", filter: ["all", ["==", ["get", "role"], "reference"], ["==", ["geometry-type"], "Point"]],
      paint: { "circle-radius": 3, "circle-color": kindColour, "circle-stroke-color": "#fff", "circle-stroke-width": 1 } });
    m.addLayer({ id: "line-200", type: "line", source: "lines", filter: ["==", ["get", "line"], "200nm"], paint: { "line-color": "#0d2f5e", "line-width": 2, "line-dasharray": [6, 3] } });
    m.addLayer({ id: "line-50", type: "line", source: "lines", filter: ["==", ["get", "line"], "50nm"], paint: { "line-color": "#1f5fa8", "line-width": 1.6, "line-dasharray": [2, 2] } });
    m.addLayer({ id: "line-iso", type: "line", source: "lines", filter: ["==", ["get", "line"], "isobath_200m"], paint: { "line-color": "#3e7cb1", "line-width": 1, "line-opacity": 0.8 } });
    m.addLayer({ id: "ballast-seg", type: "line", source: "ballast", paint: { "line-width": 4,
      "line-color": ["match", ["get", "zone"], "beyond_200nm", "#1b5e20", "between_50_200nm", "#f9a825", "#b71c1c"] } });
    m.addLayer({ id: "seltrack-line", type: "line", source: "seltrack", filter: ["==", ["geometry-type"], "LineString"], paint: { "line-color": "#000", "line-width": 2 } });
    const opacity = ["case", ["get", "stale"], 0.35, 1];
    const colour = ["match", ["get", "cls"], ...Object.entries(CLASS_COLOURS).flat(), "#616161"];
    // zoomed out (the whole coast, thousands of vessels) every vessel is a plain dot: a
    // rotated icon per vessel costs a software-WebGL page a frame of seconds at 20,000;
    // from ARROW_ZOOM in, moving vessels get their heading arrows
    m.addLayer({ id: "vessel-all", type: "circle", source: "vessels", maxzoom: ARROW_ZOOM,
      paint: { "circle-radius": 2.5, "circle-color": colour, "circle-opacity": opacity } });
    m.addLayer({ id: "vessel-dot", type: "circle", source: "vessels", minzoom: ARROW_ZOOM, filter: ["!", ["get", "moving"]],
      paint: { "circle-radius": 3.5, "circle-color": colour, "circle-opacity": opacity, "circle-stroke-color": "#222", "circle-stroke-width": 0.6, "circle-stroke-opacity": opacity } });
    m.addLayer({ id: "vessel-arrow", type: "symbol", source: "vessels", minzoom: ARROW_ZOOM, filter: ["get", "moving"],
      layout: { "icon-image": "arrow", "icon-size": 0.7, "icon-rotate": ["get", "dir"], "icon-rotation-alignment": "map", "icon-allow-overlap": true, "icon-ignore-placement": true },
      paint: { "icon-color": colour, "icon-opacity": opacity, "icon-halo-color": "#222", "icon-halo-width": 1 } });
    m.addLayer({ id: "vessel-cluster", type: "circle", source: "vclusters", paint: {
      "circle-radius": clusterRadius, "circle-color": "#37474f", "circle-opacity": 0.7, "circle-stroke-color": "#fff", "circle-stroke-width": 1 } });
    m.addLayer({ id: "lead-cluster", type: "circle", source: "leads", filter: ["has", "point_count"], paint: {
      "circle-radius": ["interpolate", ["linear"], ["ln", ["get", "point_count"]], 0, 9, 7, 20], "circle-color": "rgba(255,109,0,0.25)",
      "circle-stroke-width": 3, "circle-stroke-color": "#ff6d00" } });
    const ring = (sar) => ({ "circle-radius": sar ? 13 : 9, "circle-color": "rgba(0,0,0,0)", "circle-stroke-width": sar ? 4 : 3, "circle-stroke-color": sar ? "#d50000" : "#ff6d00" });
    m.addLayer({ id: "lead-ring", type: "circle", source: "leads", filter: ["!", ["has", "point_count"]], paint: ring(false) });
    m.addLayer({ id: "lead-sar", type: "circle", source: "sar", paint: ring(true) });
    m.addLayer({ id: "sel-reach", type: "fill", source: "sel", filter: ["==", ["get", "kind"], "reach"], paint: { "fill-color": "#d50000", "fill-opacity": 0.12, "fill-outline-color": "#d50000" } });
    m.addLayer({ id: "sel-path", type: "line", source: "sel", filter: ["==", ["get", "kind"], "path"], paint: { "line-color": "#d50000", "line-width": 3 } });
    // a silence (AIS-GAP): the vessel was not seen on this line, so it is dashed
    m.addLayer({ id: "sel-silence", type: "line", source: "sel", filter: ["==", ["get", "kind"], "silence"], paint: { "line-color": "#d50000", "line-width": 3, "line-dasharray": [2, 2] } });
    m.addLayer({ id: "sel-points", type: "circle", source: "sel", filter: ["==", ["get", "kind"], "evidence"], paint: { "circle-radius": 3, "circle-color": "#fff", "circle-stroke-color": "#d50000", "circle-stroke-width": 1.5 } });
    m.addLayer({ id: "sel-link", type: "line", source: "sel", filter: ["==", ["get", "kind"], "link"], paint: { "line-color": "#000", "line-width": 1.5, "line-dasharray": [1, 1] } });
    m.addLayer({ id: "sel-closest", type: "circle", source: "sel", filter: ["==", ["get", "kind"], "closest_point"], paint: { "circle-radius": 7, "circle-color": "#ffeb3b", "circle-stroke-color": "#000", "circle-stroke-width": 2 } });

    const hover = (layer, html) => {
      m.on("mousemove", layer, (e) => { m.getCanvas().style.cursor = "pointer"; const f = e.features[0]; this.popup.setLngLat(e.lngLat).setHTML(html(f)).addTo(m); });
      m.on("mouseleave", layer, () => { m.getCanvas().style.cursor = ""; this.popup.remove(); });
    };
    const vesselHtml = (f) => {
      const p = f.properties;
      return `<strong>${esc(p.name || "MMSI " + p.mmsi)}</strong><br>MMSI ${p.mmsi} · ${esc(t("cls." + p.cls))}${p.ship_type != null ? " (" + p.ship_type + ")" : ""}` +
        `<br>${t("speed")}: ${number(p.sog)} kn · ${t("course")}: ${number(p.cog, 0)}°<br>${t("seen")}: ${esc(timeText(p.t))}${p.stale ? " · <em>" + t("stale") + "</em>" : ""}`;
    };
    hover("vessel-arrow", vesselHtml);
    hover("vessel-dot", vesselHtml);
    hover("vessel-all", vesselHtml);
    const zoneHtml = (f) => `<strong>${esc(f.properties.name || f.properties.id)}</strong><br>${esc(t("kind." + f.properties.kind))}` +
      (f.properties.width_m ? ` · ${number(f.properties.width_m, 0)} m (${esc(t("band." + f.properties.band))})` : "") +
      // where the zone came from and how old that is (chart issue date, register date)
      (f.properties.source ? `<br><small>${esc(t("zone.source"))}: ${esc(f.properties.source)}` +
        (f.properties.source_date ? ` (${esc(t("zone.source_date"))} ${esc(f.properties.source_date)})` : "") + "</small>" : "");
    hover("zone-fill", zoneHtml);
    const leadHtml = (f) => `<strong>${esc(ruleName(f.properties.rule))}</strong><br>${esc(f.properties.label)}`;
    hover("lead-ring", leadHtml);
    hover("lead-sar", leadHtml);
    hover("vessel-cluster", (f) => `<strong>${esc(t("cluster.vessels", { n: number(f.properties.count, 0) }))}</strong><br>${esc(t("cluster.zoom"))}`);
    hover("lead-cluster", (f) => `<strong>${esc(t("cluster.leads", { n: number(f.properties.point_count, 0) }))}</strong><br>${esc(t("cluster.zoom"))}`);
    // while a draft is drawn (draftmap.js) a click is a vertex, never a vessel or a lead
    for (const l of ["vessel-all", "vessel-arrow", "vessel-dot"]) m.on("click", l, (e) => { if (!this.drawing) this.onVessel(Number(e.features[0].properties.mmsi)); });
    for (const l of ["lead-ring", "lead-sar"]) m.on("click", l, (e) => { if (!this.drawing) this.onLead(e.features[0].properties.id); });
    // a cluster opens onto its members: its vessels' box, or the zoom where its leads part
    m.on("click", "vessel-cluster", (e) => {
      if (this.drawing) return;
      const p = e.features[0].properties;
      this.popup.remove();  // the cluster is gone once the layer at the new zoom comes
      m.fitBounds([[p.west, p.south], [p.east, p.north]], { padding: 60, maxZoom: Math.max(m.getZoom() + 2, 9), duration: 0 });
    });
    m.on("idle", () => this.markLeadClusters());
    m.on("click", "lead-cluster", async (e) => {
      if (this.drawing) return;
      const f = e.features[0];
      this.popup.remove();
      const zoom = await m.getSource("leads").getClusterExpansionZoom(f.properties.cluster_id);
      m.easeTo({ center: f.geometry.coordinates, zoom, duration: 0 });
    });
  }

  async loadBackground() {
    // asked for at once; drawn once the map has loaded
    const got = Promise.all([api("/map/land", { accept: "application/geo+json" }),
      api("/map/zones", { accept: "application/geo+json" }), api("/ballast/lines", { accept: "application/geo+json" }),
      api("/map/labels", { accept: "application/geo+json" })]);
    await this.ready;
    const [land, zones, lines, labels] = await got;
    this.setLabels(labels);
    this.map.getSource("land").setData(land);
    this.map.getSource("zones").setData(zones);
    // every bundled zone has a name: panels show it instead of the id
    this.zoneNames = new Map(zones.features.filter((f) => f.properties?.name).map((f) => [f.properties.id, f.properties.name]));
    this.map.getSource("lines").setData(lines);
    this.counts = { land: land.features.length, zones: zones.features.length, lines: lines.features.length };
  }

  /** Replace the vessel layer with rows from /map/vessels (the whole layer). */
  setVessels(doc) {
    const rows = doc.vessels;
    this.vesselNewest = 0;
    for (const r of rows) { const ts = Date.parse(r[6]); if (ts > this.vesselNewest) this.vesselNewest = ts; }
    const ref = this.staleRef();
    const features = new Array(rows.length);
    this.vesselRows = new Map();
    for (let i = 0; i < rows.length; i++) {
      features[i] = vesselFeature(rows[i], ref);
      this.vesselRows.set(rows[i][0], rows[i]);
    }
    this.vesselCount = rows.length;
    this.map.getSource("vessels").setData({ type: "FeatureCollection", features });
    this.setClusterMarks([]);
    this.clusterTotal = null;
  }

  /** Zoomed out over more vessels than are worth drawing: the service's clusters (rows
   * [lon, lat, count, west, south, east, north]) in place of the vessels, each with its
   * count written on it. */
  setClusters(doc) {
    this.vesselRows = new Map();
    this.vesselCount = 0;
    this.clusterTotal = doc.total;
    this.map.getSource("vessels").setData(EMPTY);
    const features = doc.clusters.map(([lon, lat, count, west, south, east, north]) => ({ type: "Feature",
      geometry: { type: "Point", coordinates: [lon, lat] }, properties: { count, west, south, east, north } }));
    this.map.getSource("vclusters").setData({ type: "FeatureCollection", features });
    this.setClusterMarks(doc.clusters);
  }

  /** The counts on the lead clusters MapLibre made for the view, once the map is still. */
  markLeadClusters() {
    const found = new Map();  // a cluster is in every tile it touches: once each
    for (const f of this.map.querySourceFeatures("leads", { filter: ["has", "point_count"] })) found.set(f.properties.cluster_id, f);
    const key = [...found.values()].map((f) => `${f.geometry.coordinates}:${f.properties.point_count}`).sort().join(";");
    if (key === this.leadMarksKey) return;  // idle fires after every still frame
    this.leadMarksKey = key;
    for (const mk of this.leadMarks || []) mk.remove();
    this.leadMarks = [];
    for (const f of found.values()) {
      const el = document.createElement("div");
      el.className = "cluster-count lead-count";
      el.textContent = String(f.properties.point_count);
      this.leadMarks.push(new maplibregl.Marker({ element: el, anchor: "center" }).setLngLat(f.geometry.coordinates).addTo(this.map));
    }
  }

  /** The counts on the clusters, as HTML (the map fetches no glyphs to write with). */
  setClusterMarks(rows) {
    for (const mk of this.clusterMarks || []) mk.remove();
    if (!rows.length) this.map.getSource("vclusters")?.setData(EMPTY);
    this.clusterMarks = rows.map(([lon, lat, count]) => {
      const el = document.createElement("div");
      el.className = "cluster-count vessel-count";
      el.textContent = count >= 1000 ? `${Math.round(count / 100) / 10}k` : String(count);
      return new maplibregl.Marker({ element: el, anchor: "center" }).setLngLat([lon, lat]).addTo(this.map);
    });
  }

  /** Apply a delta of /map/vessels?since=: the vessels that moved on since the last
   * answer replace their old points; the others stay as drawn (their "stale" shade is
   * brought up to date by the next whole layer). */
  mergeVessels(doc) {
    const rows = doc.vessels;
    if (!rows.length) return;
    for (const r of rows) { const ts = Date.parse(r[6]); if (ts > this.vesselNewest) this.vesselNewest = ts; }
    const ref = this.staleRef();
    const moved = rows.filter((r) => this.vesselRows.has(r[0])).map((r) => r[0]);
    for (const r of rows) this.vesselRows.set(r[0], r);
    this.vesselCount = this.vesselRows.size;
    const src = this.map.getSource("vessels");
    // MapLibre applies a diff by feature id in its worker: no whole layer re-sent to it
    if (typeof src.updateData === "function") src.updateData({ remove: moved, add: rows.map((r) => vesselFeature(r, ref)) });
    else src.setData({ type: "FeatureCollection", features: [...this.vesselRows.values()].map((r) => vesselFeature(r, ref)) });
  }

  /** A replay of old traffic would fade everything against the wall clock, so "stale"
   * is measured from the newest position heard (never later than now). */
  staleRef() { return Math.min(Date.now(), this.vesselNewest || Date.now()); }

  setLeads(leads) {
    const features = leads.map((l) => ({ type: "Feature", geometry: l.closest_point,
      properties: { id: l.id, rule: l.rule, sar: l.rule === "SAR-DISTRESS", label: `${l.vessel?.name || "MMSI " + l.mmsi} · ${this.zoneNames?.get(l.zone_id) || l.zone_id || ""}` } }));
    this.map.getSource("leads")?.setData({ type: "FeatureCollection", features: features.filter((f) => !f.properties.sar) });
    this.map.getSource("sar")?.setData({ type: "FeatureCollection", features: features.filter((f) => f.properties.sar) });
  }

  /** Draw a lead's evidence, closest point and distance; fit the view to it. */
  showEvidence(fc, lead) {
    const feats = [...fc.features];
    const cp = fc.features.find((f) => f.properties.kind === "closest_point");
    this.map.getSource("sel").setData({ type: "FeatureCollection", features: feats });
    const b = new maplibregl.LngLatBounds();
    for (const f of feats) {
      const g = f.geometry;
      const c = g.type === "Point" ? [g.coordinates] : g.type === "Polygon" ? g.coordinates[0] : g.coordinates;
      for (const x of c) b.extend(x);
    }
    // a beacon's few fixes would fill the screen at street scale; the rescue picture
    // needs the coast around it, so a distress lead opens at most at zoom 9 (~20 nm wide)
    const maxZoom = lead.rule === "SAR-DISTRESS" ? 9 : 15;
    if (!b.isEmpty()) this.map.fitBounds(b, { padding: 80, maxZoom, duration: 0 });
    // a distance to a zone: none for a beacon, an identity lead (ID-*) or a silence
    // raised inside the ballast lines (no zone: its line is the panel's)
    if (cp && lead.zone_id && lead.rule !== "SAR-DISTRESS" && !lead.rule.startsWith("ID-")) {
      this.distPopup.setLngLat(cp.geometry.coordinates)
        .setHTML(`<strong>${number(cp.properties.distance_m, 0)} m</strong> · ${esc(this.zoneNames?.get(lead.zone_id) || lead.zone_id || "")}`).addTo(this.map);
    }
  }

  clearEvidence() {
    this.map.getSource("sel")?.setData(EMPTY);
    this.distPopup.remove();
  }

  showTrack(fc) {
    this.map.getSource("seltrack").setData(fc);
    const line = fc.features.find((f) => f.geometry.type === "LineString");
    if (line) {
      const b = new maplibregl.LngLatBounds();
      for (const c of line.geometry.coordinates) b.extend(c);
      this.map.fitBounds(b, { padding: 60, maxZoom: 14, duration: 0 });
    }
  }

  showBallast(points) {
    const features = [];
    for (let i = 1; i < points.length; i++) {
      features.push({ type: "Feature", geometry: { type: "LineString", coordinates: [[points[i - 1].lon, points[i - 1].lat], [points[i].lon, points[i].lat]] },
        properties: { zone: points[i].zone } });
    }
    this.map.getSource("ballast").setData({ type: "FeatureCollection", features });
    if (points.length) {
      const b = new maplibregl.LngLatBounds();
      for (const p of points) b.extend([p.lon, p.lat]);
      this.map.fitBounds(b, { padding: 60, maxZoom: 10, duration: 0 });
    }
  }

  /** Place and zone names as HTML markers (no glyphs to fetch): Capitanias' towns from
   * zoom 5, every seat town from 8, zone names from 11 (where their bands are drawn large
   * enough to name); the whole coast stays unlabelled, its towns would overlap. */
  setLabels(doc) {
    for (const mk of this.labels || []) mk.remove();
    this.labels = doc.features.map((f) => {
      const el = document.createElement("div");
      el.className = `map-label map-label-${f.properties.kind}` + (f.properties.rank ? ` rank-${f.properties.rank}` : "");
      el.textContent = f.properties.name;
      // a zone's name beside it (not over its band or a boat in it), a town's above its dot
      const at = f.properties.kind === "zone" ? { anchor: "left", offset: [8, 0] } : { anchor: "bottom", offset: [0, -2] };
      return new maplibregl.Marker({ element: el, ...at }).setLngLat(f.geometry.coordinates).addTo(this.map);
    });
    const box = this.map.getContainer();
    const band = () => {
      const z = this.map.getZoom();
      box.dataset.labels = z >= 11 ? "near" : z >= 8 ? "region" : z >= 5 ? "mid" : "far";
    };
    if (!this.labelsWired) { this.map.on("zoom", band); this.labelsWired = true; }
    band();
  }

  setGroup(group, visible) {
    if (group === "labels") { this.map.getContainer().classList.toggle("labels-off", !visible); return; }
    for (const id of LAYER_GROUPS[group] || []) this.map.setLayoutProperty(id, "visibility", visible ? "visible" : "none");
    this.map.getContainer().classList.toggle(`${group}-off`, !visible);
  }
}

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
