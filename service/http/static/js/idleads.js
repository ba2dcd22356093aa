// Identity leads in the panel (issue 34): what an inspector checks of a lead that is about
// what a vessel said of itself, not about a zone. GNSS interference names every ship
// that jumped (each opens the vessel panel), the spot and how spread they were; a track
// in circles gives its centre, radius, laps and how well a circle fits; a vessel on land
// where it first was, for how long, and how far past the rule's bands; two ships on one
// MMSI how far apart they were.
import { extend, t, number, timeEl, timeText } from "./i18n.js";
import { ruleName } from "./names.js";
import { positionEl } from "./position.js";

export const INTERFERENCE = "ID-INTERFERENCE";
export const IDENTITY_RULES = new Set([INTERFERENCE, "ID-CIRCLE", "ID-MMSI-SHARED", "ID-ON-LAND"]);

extend({
  "pt-BR": {
    "id.spot": "Ponto para onde saltaram", "id.spread": "Dispersão em torno dele",
    "id.ships": "Embarcações deslocadas ({n})", "id.when": "Quando", "id.from": "De onde",
    "id.jump": "Salto", "id.kn": "Velocidade implícita", "id.centre": "Centro do círculo",
    "id.radius": "Raio", "id.laps": "Voltas", "id.fit": "Afastamento do círculo (rms)",
    "id.cw": "sentido horário", "id.ccw": "sentido anti-horário", "id.apart": "Maior distância entre os dois navios",
    "id.segments": "Trechos de derrota", "id.rule": "Critério",
    "id.doubt": "Posição possivelmente falsa: interferência GNSS. Às {t} esta embarcação saltou {km} até aqui, com outras {n} embarcações ao mesmo tempo.",
    "id.doubt.open": "Ver a interferência", "id.doubt.short": "posição possivelmente falsa (interferência GNSS)",
    "id.victims": "Indícios que esta interferência explica ({n})",
    "id.land.at": "Primeira posição em terra", "id.land.fixes": "Posições em terra",
    "id.land.span": "Durante", "id.land.beyond": "Além das faixas de costa, rios, lagos e portos",
    "id.land.line": "{n} posições em terra durante {min} min",
  },
  en: {
    "id.spot": "Where they jumped to", "id.spread": "Spread around it",
    "id.ships": "Ships moved ({n})", "id.when": "When", "id.from": "From",
    "id.jump": "Jump", "id.kn": "Implied speed", "id.centre": "Centre of the circle",
    "id.radius": "Radius", "id.laps": "Laps", "id.fit": "Off the circle (rms)",
    "id.cw": "clockwise", "id.ccw": "counterclockwise", "id.apart": "Farthest apart the two ships were",
    "id.segments": "Track segments", "id.rule": "Criterion",
    "id.doubt": "Position possibly false: GNSS interference. At {t} this vessel jumped {km} to here, with {n} other vessels at once.",
    "id.doubt.open": "Open the interference", "id.doubt.short": "position possibly false (GNSS interference)",
    "id.victims": "Leads this interference explains ({n})",
    "id.land.at": "First position on land", "id.land.fixes": "Positions on land",
    "id.land.span": "For", "id.land.beyond": "Beyond the bands of coast, rivers, lakes and ports",
    "id.land.line": "{n} positions on land over {min} min",
  },
});

const km = (m) => `${number(m / 1000, 1)} km`;

/** The list's line for an identity lead: what it is about, not a zone and a distance. */
export function identityLine(l) {
  const d = l.details || {};
  if (l.rule === "ID-INTERFERENCE") return t("id.ships", { n: d.vessel_count ?? "?" });
  if (l.rule === "ID-CIRCLE") return `${t("id.radius")} ${number(d.radius_m, 0)} m · ${number(d.laps, 1)} ${t("id.laps").toLowerCase()}`;
  if (l.rule === "ID-ON-LAND") return t("id.land.line", { n: d.fixes ?? "?", min: number((d.span_s || 0) / 60, 0) });
  return `${t("id.apart")}: ${km(d.max_apart_m || 0)}`;
}

/** A lead raised where GNSS interference put the vessel (``interference``, linked by
 * the server when the lead is read): said first, before any fact of the lead, with the
 * event one click away. An empty list when nothing casts doubt on it. */
export function doubtNote(l, onLead) {
  return (l.interference || []).map((x) => {
    const p = document.createElement("p");
    p.className = "doubt"; p.setAttribute("role", "note");
    p.textContent = `⚠ ${t("id.doubt", { t: timeText(x.t), km: km(x.jump_m), n: Math.max((x.vessel_count || 1) - 1, 0) })} `;
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = t("id.doubt.open");
    b.addEventListener("click", () => onLead(x.lead_id));
    p.append(b);
    return p;
  });
}

/** The rows of a definition list and, for interference, the ships' table and the leads
 * the event explains (each opens that lead). */
export function identityPanel(l, onVessel, onLead) {
  const box = document.createElement("div");
  box.className = "identity-lead";
  const d = l.details || {};
  const dl = document.createElement("dl");
  const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = t(k); const dd = document.createElement("dd"); dd.append(v ?? "—"); dl.append(dt, dd); };
  if (l.rule === "ID-INTERFERENCE") {
    if (d.spot) add("id.spot", positionEl(d.spot[1], d.spot[0]));
    add("id.spread", `${number(d.spread_m, 0)} m`);
    box.append(dl, ships(d.vessels || [], onVessel));
    if (l.interference_victims?.length) box.append(victims(l.interference_victims, onLead));
  } else if (l.rule === "ID-CIRCLE") {
    if (d.centre) add("id.centre", positionEl(d.centre[1], d.centre[0]));
    add("id.radius", `${number(d.radius_m, 0)} m`);
    add("id.laps", `${number(d.laps, 1)} (${t(d.direction === "clockwise" ? "id.cw" : "id.ccw")})`);
    add("id.fit", `${number(d.fit_rms_m, 0)} m`);
    box.append(dl);
  } else if (l.rule === "ID-ON-LAND") {
    const cp = l.closest_point?.coordinates;
    if (cp) add("id.land.at", positionEl(cp[1], cp[0]));
    add("id.land.fixes", number(d.fixes, 0));
    add("id.land.span", `${number((d.span_s || 0) / 60, 0)} min`);
    add("id.land.beyond", km(d.beyond_bands_m || 0));
    box.append(dl);
  } else {
    add("id.apart", km(d.max_apart_m || 0));
    add("id.segments", (d.segments || []).join(", "));
    box.append(dl);
  }
  if (d.rule) {
    const p = document.createElement("p");
    p.className = "rule-text";
    p.textContent = `${t("id.rule")}: ${d.rule}`;
    box.append(p);
  }
  return box;
}

function ships(rows, onVessel) {
  const wrap = document.createElement("div");
  const h = document.createElement("h4");
  h.textContent = t("id.ships", { n: new Set(rows.map((r) => r.mmsi)).size });
  const tb = document.createElement("table");
  const head = tb.createTHead().insertRow();
  for (const k of ["d.vessel", "id.when", "id.from", "id.jump", "id.kn"]) { const th = document.createElement("th"); th.textContent = t(k); head.append(th); }
  const body = tb.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary"; b.textContent = `MMSI ${r.mmsi}`;
    b.addEventListener("click", () => onVessel(r.mmsi));
    row.insertCell().append(b);
    row.insertCell().append(timeEl(r.t));
    row.insertCell().append(positionEl(r.from[1], r.from[0]));
    row.insertCell().append(km(r.jump_m));
    row.insertCell().append(`${number(r.implied_kn, 0)} kn`);
  }
  wrap.append(h, tb);
  return wrap;
}

function victims(rows, onLead) {
  const wrap = document.createElement("div");
  const h = document.createElement("h4");
  h.textContent = t("id.victims", { n: rows.length });
  const ul = document.createElement("ul");
  for (const r of rows) {
    const b = document.createElement("button");
    b.type = "button"; b.className = "secondary";
    b.textContent = `${ruleName(r.rule)} · MMSI ${r.mmsi} · ${timeText(r.started_at)}`;
    b.title = r.rule;
    b.addEventListener("click", () => onLead(r.lead_id));
    const li = document.createElement("li");
    li.dataset.id = r.lead_id;
    li.append(b);
    ul.append(li);
  }
  wrap.className = "victims";
  wrap.append(h, ul);
  return wrap;
}
