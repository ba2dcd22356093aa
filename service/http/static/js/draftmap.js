// A draft zone on the map (issue 36): its zones and rule bands beside the zones in force
// (GET /drafts/{id}/map, drawn as /map/zones is, in the draft's own colour), a backtest's
// leads as points coloured and shaped by their mark (new, kept, gone), and a polygon
// drawn by clicks for a draft made on the map.
import * as maplibregl from "/ui/vendor/maplibre-gl/maplibre-gl.mjs";
import { t, timeText } from "./i18n.js";
import { LAYER_GROUPS, esc } from "./map.js";
import { ruleName } from "./names.js";

const EMPTY = { type: "FeatureCollection", features: [] };
export const DRAFT_COLOUR = "#c51162";
/** A mark's colour, and whether its point is filled: colour is never the only sign, a
 * gone lead is a hollow ring, a kept one has a white core. */
export const MARKS = {
  new: { colour: "#d50000", fill: "#d50000" },
  kept: { colour: "#1565c0", fill: "#ffffff" },
  gone: { colour: "#424242", fill: "rgba(0,0,0,0)" },
};

export class DraftMap {
  constructor(vmap) {
    this.vmap = vmap;
    this.m = vmap.map;
    this.points = [];
    this.ready = vmap.ready.then(() => this.setup());
  }

  setup() {
    const m = this.m;
    for (const id of ["draft", "draft-leads", "draft-draw"]) m.addSource(id, { type: "geojson", data: EMPTY });
    // under the vessels: a boat in the draft's band is still seen and clicked
    const below = m.getLayer("vessel-all") ? "vessel-all" : undefined;
    // the bands the rules measure, and an area's own polygon more lightly (an anchorage
    // or a channel has no band: its area is the rule)
    m.addLayer({ id: "draft-fill", type: "fill", source: "draft", filter: ["in", ["geometry-type"], ["literal", ["Polygon", "MultiPolygon"]]],
      paint: { "fill-color": DRAFT_COLOUR, "fill-opacity": ["case", ["==", ["get", "role"], "band"], 0.25, 0.1] } }, below);
    m.addLayer({ id: "draft-line", type: "line", source: "draft", filter: ["!=", ["geometry-type"], "Point"],
      paint: { "line-color": DRAFT_COLOUR, "line-width": ["case", ["==", ["get", "role"], "band"], 1.5, 2.5], "line-dasharray": [2, 1] } }, below);
    m.addLayer({ id: "draft-point", type: "circle", source: "draft", filter: ["==", ["geometry-type"], "Point"],
      paint: { "circle-radius": 4, "circle-color": DRAFT_COLOUR, "circle-stroke-color": "#fff", "circle-stroke-width": 1 } }, below);
    const mark = (k) => ["match", ["get", "change"], ...Object.entries(MARKS).flatMap(([c, v]) => [c, v[k]]), "#000"];
    m.addLayer({ id: "draft-lead", type: "circle", source: "draft-leads", paint: {
      "circle-radius": 6, "circle-color": mark("fill"), "circle-stroke-color": mark("colour"), "circle-stroke-width": 2.5 } });
    m.addLayer({ id: "draft-draw-line", type: "line", source: "draft-draw", paint: { "line-color": DRAFT_COLOUR, "line-width": 2 } });
    m.addLayer({ id: "draft-draw-point", type: "circle", source: "draft-draw", filter: ["==", ["geometry-type"], "Point"],
      paint: { "circle-radius": 4, "circle-color": "#fff", "circle-stroke-color": DRAFT_COLOUR, "circle-stroke-width": 2 } });
    LAYER_GROUPS.draft = ["draft-fill", "draft-line", "draft-point", "draft-lead"];
    const popup = this.vmap.popup;
    m.on("mousemove", "draft-lead", (e) => {
      if (this.vmap.drawing) return;
      m.getCanvas().style.cursor = "pointer";
      const p = e.features[0].properties;
      popup.setLngLat(e.lngLat).setHTML(`<strong>${esc(t("dr.mark1." + p.change))}</strong> · ${esc(ruleName(p.rule))}<br>` +
        `MMSI ${esc(p.mmsi)} · ${esc(this.zoneName(p.zone_id))}<br>${esc(timeText(p.started_at))}`).addTo(m);
    });
    m.on("mouseleave", "draft-lead", () => { m.getCanvas().style.cursor = ""; popup.remove(); });
    m.on("click", (e) => {
      if (!this.vmap.drawing) return;
      this.points.push([e.lngLat.lng, e.lngLat.lat]);
      this.showDrawing();
      this.onDraw?.(this.points.length);
    });
  }

  zoneName(id) { return this.names?.get(id) || this.vmap.zoneNames?.get(id) || id || "—"; }

  /** Draw a draft's zones and bands (a /drafts/{id}/map collection); fit the view. */
  async showDraft(fc) {
    await this.ready;
    this.names = new Map(fc.features.map((f) => [f.properties.id, f.properties.name || f.properties.id]));
    this.m.getSource("draft").setData(fc);
    this.fit(fc.features);
  }

  /** A backtest's leads (leads.geojson), each a point marked new, kept or gone. */
  async showLeads(fc) {
    await this.ready;
    this.m.getSource("draft-leads").setData(fc || EMPTY);
  }

  async clear() {
    await this.ready;
    this.m.getSource("draft").setData(EMPTY);
    this.m.getSource("draft-leads").setData(EMPTY);
  }

  fit(features) {
    const b = new maplibregl.LngLatBounds();
    const walk = (c) => (typeof c[0] === "number" ? b.extend(c) : c.forEach(walk));
    for (const f of features) if (f.geometry) walk(f.geometry.coordinates);
    if (!b.isEmpty()) this.m.fitBounds(b, { padding: 60, maxZoom: 14, duration: 0 });
  }

  /** Start drawing: each click on the map is a vertex (onDraw(n) after each). */
  startDrawing(onDraw) {
    this.points = [];
    this.onDraw = onDraw;
    this.vmap.drawing = true;
    this.m.doubleClickZoom.disable();
    this.m.getCanvas().style.cursor = "crosshair";
    this.showDrawing();
  }

  undo() { this.points.pop(); this.showDrawing(); this.onDraw?.(this.points.length); }

  /** Stop drawing; returns the closed ring (null under 3 vertices, or when cancelled). */
  stopDrawing(keep = true) {
    const ring = keep && this.points.length >= 3 ? [...this.points, this.points[0]] : null;
    this.vmap.drawing = false;
    this.m.doubleClickZoom.enable();
    this.m.getCanvas().style.cursor = "";
    this.points = [];
    this.m.getSource("draft-draw")?.setData(EMPTY);
    return ring;
  }

  showDrawing() {
    const p = this.points;
    const features = p.map((c) => ({ type: "Feature", geometry: { type: "Point", coordinates: c }, properties: {} }));
    if (p.length > 1) features.push({ type: "Feature", properties: {}, geometry: { type: "LineString", coordinates: p.length > 2 ? [...p, p[0]] : p } });
    this.m.getSource("draft-draw")?.setData({ type: "FeatureCollection", features });
  }
}
