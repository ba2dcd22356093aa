// The vessel panel (static data, identity history, track for a period, its leads) and
// the ballast panel (classified route, a)/b)-water hours, audit form, arrivals).
import { api } from "./api.js";
import { t, timeEl, timeText, number, localInputToIso, isoToLocalInput, dateText } from "./i18n.js";
import { identityHistory } from "./identity.js";
import { table } from "./leads.js";
import { shipClass } from "./map.js";
import { ruleName, tn } from "./names.js";
import { readNumber } from "./moveform.js";

function msg(el, text, cls = "") { const p = document.createElement("p"); p.className = cls; p.textContent = text; el.replaceChildren(p); }
const qs = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v != null && v !== "")).toString();

export class VesselPanel {
  constructor({ form, out, map, leadPanel }) {
    Object.assign(this, { form, out, map, leadPanel });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.show(); });
  }

  /** Open a vessel: the period defaults to the 24 h before its latest position. */
  open(mmsi) {
    const f = this.form.elements;
    f.mmsi.value = mmsi;
    const row = this.map.vesselRows.get(mmsi);
    const end = row ? Date.parse(row[6]) : Date.now();
    f.end.value = isoToLocalInput(new Date(end + 60e3).toISOString());
    f.start.value = isoToLocalInput(new Date(end - 24 * 3600e3).toISOString());
    return this.show();
  }

  async show() {
    const f = this.form.elements;
    const mmsi = Number(f.mmsi.value);
    if (!Number.isInteger(mmsi) || mmsi <= 0) return;
    msg(this.out, t("loading"));
    const period = { start: localInputToIso(f.start.value), end: localInputToIso(f.end.value) };
    try {
      const [v, track, leads, ident] = await Promise.all([
        api(`/vessels/${mmsi}`).catch((e) => (e.status === 404 ? null : Promise.reject(e))),
        api(`/vessels/${mmsi}/track?${qs(period)}`, { accept: "application/geo+json" }),
        api(`/leads?${qs({ mmsi, limit: 100 })}`),
        api(`/vessels/${mmsi}/identity?limit=50`),
      ]);
      this.out.replaceChildren();
      const h = document.createElement("h3");
      h.textContent = `${v?.name || "MMSI " + mmsi}`;
      this.out.append(h);
      if (v) {
        const rows = [["MMSI", v.mmsi], [t("name"), v.name], [t("callsign"), v.callsign], ["IMO", v.imo],
          [t("type"), v.ship_type != null ? `${v.ship_type} (${t("cls." + shipClass(v.device_class, v.ship_type))})` : null],
          [t("length"), v.length_m != null ? `${number(v.length_m)} m` : null], [t("destination"), v.destination], [t("flag"), v.flag_mid]];
        const dl = document.createElement("dl");
        for (const [k, val] of rows) { const dt = document.createElement("dt"); dt.textContent = k; const dd = document.createElement("dd"); dd.textContent = val ?? "—"; dl.append(dt, dd); }
        this.out.append(dl);
      } else {
        const p = document.createElement("p"); p.textContent = t("vessel.none"); this.out.append(p);
      }
      this.out.append(identityHistory(ident, (before) =>
        api(`/vessels/${mmsi}/identity?${qs({ limit: 50, before })}`)));
      const line = track.features.find((x) => x.geometry.type === "LineString");
      const p = document.createElement("p");
      p.textContent = `${t("vessel.track")}: ${tn("vessel.points", track.features.length - (line ? 1 : 0))}`;
      this.out.append(p);
      this.map.showTrack(track);
      const list = document.createElement("ul");
      for (const l of leads.leads) {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.type = "button"; b.className = "secondary";
        b.title = l.rule;
        b.append(`${ruleName(l.rule)} · ${this.map.zoneNames?.get(l.zone_id) || l.zone_id || "—"} · `, timeEl(l.started_at), ` · ${t("st." + l.status)}`);
        b.addEventListener("click", () => { this.leadPanel.put(l); document.getElementById("tab-leads").click(); this.leadPanel.select(l.id); });
        li.append(b); list.append(li);
      }
      const h4 = document.createElement("h4"); h4.textContent = `${t("vessel.leads")} (${leads.numberMatched})`;
      this.out.append(h4, list);
    } catch (e) { msg(this.out, `${t("err")}: ${e.message}`, "error"); }
  }
}

/** Parse an uploaded route: CSV with lat,lon[,t|time] columns, a JSON list of
 * {lat, lon[, t]}, or GeoJSON (a LineString or Points). */
export function parseRoute(text) {
  text = text.trim();
  if (text.startsWith("{") || text.startsWith("[")) {
    const j = JSON.parse(text);
    if (Array.isArray(j)) return j.map((p) => ({ lat: Number(p.lat), lon: Number(p.lon), t: p.t ?? p.time ?? null }));
    const feats = j.type === "FeatureCollection" ? j.features : [j.type === "Feature" ? j : { geometry: j, properties: {} }];
    const out = [];
    for (const f of feats) {
      const g = f.geometry;
      if (g.type === "Point") out.push({ lon: g.coordinates[0], lat: g.coordinates[1], t: f.properties?.t ?? null });
      else if (g.type === "LineString") for (const c of g.coordinates) out.push({ lon: c[0], lat: c[1], t: null });
    }
    return out;
  }
  const lines = text.split(/\r?\n/).filter(Boolean);
  const head = lines[0].toLowerCase().split(/[,;]/).map((s) => s.trim());
  const ix = { lat: head.indexOf("lat"), lon: head.indexOf("lon"), t: Math.max(head.indexOf("t"), head.indexOf("time")) };
  if (ix.lat < 0 || ix.lon < 0) throw new Error("CSV needs lat and lon columns");
  return lines.slice(1).map((l) => { const c = l.split(/[,;]/); return { lat: Number(c[ix.lat]), lon: Number(c[ix.lon]), t: ix.t >= 0 ? c[ix.t] : null }; })
    .filter((p) => Number.isFinite(p.lat) && Number.isFinite(p.lon));
}

/** Hours where each point's stretch (from the previous fix) meets 200 / 50 (a)/b)-water). */
export function waterHours(points) {
  let a = 0, b = 0;
  for (let i = 1; i < points.length; i++) {
    const t0 = Date.parse(points[i - 1].t), t1 = Date.parse(points[i].t);
    if (!Number.isFinite(t0) || !Number.isFinite(t1) || t1 <= t0) continue;
    const h = (t1 - t0) / 3600e3;
    if (points[i].meets_200 && points[i - 1].meets_200) a += h;
    if (points[i].meets_50 && points[i - 1].meets_50) b += h;
  }
  return { a, b };
}

export class BallastPanel {
  constructor({ form, out, auditForm, auditOut, arrivalsForm, arrivalsOut, map, onLead }) {
    Object.assign(this, { form, out, auditForm, auditOut, arrivalsForm, arrivalsOut, map, onLead });
    form.addEventListener("submit", (e) => { e.preventDefault(); this.classify(); });
    form.elements.file.addEventListener("change", () => {
      const name = form.querySelector(".file-name");
      const file = form.elements.file.files[0];
      if (file) delete name.dataset.i18n;  // a file's name is no text to translate
      else name.dataset.i18n = "file.none";
      name.textContent = file ? file.name : t("file.none");
    });
    auditForm.addEventListener("submit", (e) => { e.preventDefault(); this.audit(); });
    arrivalsForm.addEventListener("submit", (e) => { e.preventDefault(); this.arrivals(); });
  }

  async classify() {
    const f = this.form.elements;
    msg(this.out, t("loading"));
    try {
      let points;
      let screening = null;
      const file = f.file.files[0];
      if (file) points = parseRoute(await file.text());
      else if (f.mmsi.value) {
        const period = { start: localInputToIso(f.start.value), end: localInputToIso(f.end.value) };
        const track = await api(`/vessels/${Number(f.mmsi.value)}/track?${qs(period)}`, { accept: "application/geo+json" });
        points = track.features.filter((x) => x.geometry.type === "Point").map((x) => ({ lon: x.geometry.coordinates[0], lat: x.geometry.coordinates[1], t: x.properties.t }));
        screening = await api(`/ballast/screening/${Number(f.mmsi.value)}?${qs(period)}`).catch(() => null);
      } else { msg(this.out, t("ballast.need"), "error"); return; }
      const assessed = [];
      for (let i = 0; i < points.length; i += 5000) {
        const chunk = points.slice(i, i + 5000);
        const res = await api("/ballast/assess", { method: "POST", body: { points: chunk.map((p) => ({ lat: p.lat, lon: p.lon })) } });
        res.points.forEach((r, j) => assessed.push({ ...r, t: chunk[j].t }));
      }
      this.map.showBallast(assessed);
      const counts = {};
      for (const p of assessed) counts[p.zone] = (counts[p.zone] || 0) + 1;
      const hours = screening ? { a: screening.a_water?.total_hours, b: screening.b_water?.total_hours } : waterHours(assessed);
      this.out.replaceChildren();
      const rows = [[tn("ballast.points", assessed.length), ""],
        ...["beyond_200nm", "between_50_200nm", "within_50nm"].map((z) => [t("ballast." + z), counts[z] || 0]),
        [t("ballast.a"), number(hours.a)], [t("ballast.b"), number(hours.b)]];
      this.out.append(table("", ["k", "v"], rows.map(([k, v]) => ({ k, v: String(v) })), ["", ""]));
    } catch (e) { msg(this.out, `${t("err")}: ${e.message}`, "error"); }
  }

  async audit() {
    const f = this.auditForm.elements;
    // a decimal comma is how coordinates and volumes are written here: -22,85
    const pt = (tm, lat, lon) => ({ time: localInputToIso(tm), lat: readNumber(lat) ?? Number(lat), lon: readNumber(lon) ?? Number(lon) });
    const ex = { start: pt(f.st.value, f.slat.value, f.slon.value), end: pt(f.et.value, f.elat.value, f.elon.value), method: f.method.value };
    if (f.volume.value) ex.volume_m3 = readNumber(f.volume.value) ?? Number(f.volume.value);
    msg(this.auditOut, t("loading"));
    try {
      const res = await api("/ballast/audits", { method: "POST", body: { mmsi: Number(f.mmsi.value), exchanges: [ex] } });
      this.auditOut.replaceChildren();
      const tb = table(t("audit.verdict"), ["i", "verdict", "reason"], res.exchanges.map((x, i) => ({ i: String(i + 1), verdict: t("verdict." + x.verdict), reason: reasonText(x) })), ["#", t("audit.verdict"), t("d.reason")]);
      // the verdict in words, and its code kept on the cell (colour is never the only signal)
      tb.querySelectorAll("td:nth-child(2)").forEach((td, i) => { td.className = "verdict-" + res.exchanges[i].verdict; td.dataset.verdict = res.exchanges[i].verdict; });
      const p = document.createElement("p"); p.textContent = `${res.leads.length} ${t("audit.leads")} · ${res.id}`;
      this.auditOut.append(tb, p);
      if (res.leads.length) this.auditOut.append(await this.raised(res.leads));
    } catch (e) { msg(this.auditOut, `${t("err")}: ${e.message}`, "error"); }
  }

  /** The leads an audit raised, each with its repeat offence as the lead's own detail
   * carries it (GET /leads/{id} repeat_offence): the audit answer has no such block, and
   * a repeat offender's fine is tripled (NORMAM-20 1.5.3 b)). */
  async raised(leads) {
    const list = document.createElement("ul");
    list.className = "raised";
    for (const l of leads) {
      const li = document.createElement("li");
      li.dataset.lead = l.id;
      const b = document.createElement("button");
      b.type = "button"; b.className = "secondary";
      b.textContent = `${ruleName(l.rule)} · ${t("ballast.open")}`;
      b.title = l.rule;
      b.addEventListener("click", () => this.onLead?.(l.id));
      const rep = await api(`/leads/${encodeURIComponent(l.id)}`).then((x) => x.repeat_offence, () => null);
      const p = document.createElement("p");
      li.dataset.repeat = String(Boolean(rep?.applies));
      if (rep) {
        const strong = document.createElement("strong");
        strong.textContent = `${t("d.repeats")}: `;
        const prior = (rep.prior || []).map((x) => dateText(x.auto_date)).join(", ");
        p.append(strong, rep.applies ? tn("rep.yes", rep.prior.length) + ` (${t("rep.autos")} ${prior})` : t("rep.no"));
        if (rep.fine_factor) p.append(` · ${t("rep.factor", { n: rep.fine_factor })}`);
        const small = document.createElement("small");
        small.textContent = ` ${rep.basis || ""}`;
        p.append(small);
        if (rep.applies) p.className = "sar-text";
      } else p.textContent = `${t("d.repeats")}: —`;
      li.append(b, p);
      list.append(li);
    }
    return list;
  }

  async arrivals() {
    const f = this.arrivalsForm.elements;
    msg(this.arrivalsOut, t("loading"));
    try {
      const res = await api(`/ballast/arrivals?${qs({ start: localInputToIso(f.start.value), end: localInputToIso(f.end.value) })}`);
      if (!res.arrivals.length) { msg(this.arrivalsOut, t("arrivals.none")); return; }
      const rows = res.arrivals.map((a) => ({ mmsi: String(a.mmsi), name: a.vessel?.name || "—", port: a.port_zone_id, at: a.arrived_at,
        a: number(a.screening?.a_water?.total_hours), b: number(a.screening?.b_water?.total_hours) }));
      this.arrivalsOut.replaceChildren(table(`${res.numberMatched}`, ["mmsi", "name", "port", "at", "a", "b"], rows, ["MMSI", t("name"), t("arrivals.port"), t("arrivals.at"), "a) h", "b) h"]));
    } catch (e) { msg(this.arrivalsOut, `${t("err")}: ${e.message}`, "error"); }
  }
}

/** An audit's reasons in the app's language, from the codes and figures the API gives
 * beside its English sentences (an older audit without codes shows those). */
function reasonText(x) {
  if (!x.reason_codes) return x.reasons.join("; ");
  return x.reason_codes.map((r) => t("reason." + r.code, {
    point: r.point ? t("reason.point." + r.point) : "",
    offset_nm: number(r.offset_nm), needed_hours: number(r.needed_hours),
    available_hours: number(r.available_hours), start: r.start ? timeText(r.start) : "",
  })).join("; ");
}
