// Texts in pt-BR (default) and English; times in America/Sao_Paulo with UTC on hover.
const TEXTS = {
  "pt-BR": {
    subtitle: "Monitoramento AIS", language: "Idioma", signout: "Sair",
    "live.live": "ao vivo", "live.poll": "sem fluxo ao vivo: consulta periódica", "live.off": "desconectado",
    "live.connecting": "conectando…",
    "signin.title": "Entrar", "signin.help": "Informe a chave de API. Ela fica só nesta aba e some ao fechá-la.",
    "signin.key": "Chave de API", "signin.go": "Entrar", "signin.bad": "Chave recusada pelo servidor.",
    "map.label": "Mapa", "layers.title": "Camadas", "layers.land": "Terra", "layers.zones": "Zonas e faixas",
    "layers.lines": "200/50 mn e isóbata 200 m", "layers.vessels": "Embarcações", "layers.leads": "Indícios abertos", "layers.labels": "Nomes",
    "tab.leads": "Indícios", "tab.vessel": "Embarcação", "tab.ballast": "Água de lastro",
    "f.rule": "Regra", "f.zone": "Zona", "f.authority": "Autoridade", "f.status": "Situação", "f.sort": "Ordem",
    "f.all": "todas", "f.newest": "mais recentes", "f.due": "prazo mais próximo",
    "count": "{n} indícios ({shown} exibidos)", "sar": "SOCORRO", "open": "em curso", "closed": "encerrado",
    "d.lines": "dentro das linhas de lastro (200 mn): a {nm} mn da costa",
    "d.citation": "Citação", "d.zone": "Zona", "d.distance": "Distância mínima", "d.sog": "Velocidade máx.",
    "d.started": "Início", "d.ended": "Fim", "d.authority": "Autoridade", "d.status": "Situação",
    "d.vessel": "Embarcação", "d.deadlines": "Prazos", "d.history": "Histórico", "d.repeats": "Reincidência",
    "d.due": "vence", "d.basis": "base legal", "d.at": "quando", "d.by": "por", "d.reason": "motivo",
    "d.closest": "ponto mais próximo", "d.evidence": "pontos de evidência",
    "wf.move": "Mover para", "wf.reason": "Motivo", "wf.apply": "Aplicar", "wf.done": "Situação alterada.",
    "wf.docs": "Documentos", "doc.notice": "Notificação para comparecimento (PDF)", "doc.auto": "Auto de Infração (PDF)",
    "sil.title": "Silenciar", "sil.until": "Até", "sil.scope": "Escopo", "sil.vessel": "embarcação",
    "sil.zone": "zona", "sil.both": "embarcação nesta zona", "sil.go": "Silenciar", "sil.done": "Silenciado.",
    "vessel.show": "Mostrar", "vessel.static": "Dados", "vessel.track": "Derrota", "vessel.leads": "Indícios da embarcação",
    "vessel.none": "Sem dados estáticos.", "vessel.points": "{n} posições", "name": "Nome", "type": "Tipo",
    "callsign": "Indicativo", "length": "Comprimento", "destination": "Destino", "flag": "MID", "class": "Classe",
    "speed": "Velocidade", "course": "Rumo", "seen": "Última posição", "stale": "desatualizada",
    "cluster.vessels": "{n} embarcações", "cluster.leads": "{n} indícios", "cluster.zoom": "clique para aproximar",
    "zone.source": "Fonte", "zone.source_date": "de",
    "zi.title": "Importar zonas", "zi.go": "Importar", "zi.sending": "Enviando…", "zi.refused": "Recusado",
    "zi.done": "{added} novas, {updated} alteradas, {unchanged} iguais, {retired} retiradas, {kept} mantidas, {skipped} ignoradas",
    "period.from": "De", "period.to": "Até",
    "ballast.route": "Rota classificada", "ballast.upload": "ou rota (CSV lat,lon[,t] / JSON)",
    "ballast.classify": "Classificar", "ballast.audit": "Auditoria de troca", "ballast.arrivals": "Chegadas",
    "ballast.a": "horas em águas a) (além de 200 mn, ≥ 200 m)", "ballast.b": "horas em águas b) (além de 50 mn, ≥ 200 m)",
    "ballast.beyond_200nm": "além de 200 mn", "ballast.between_50_200nm": "entre 50 e 200 mn", "ballast.within_50nm": "dentro de 50 mn",
    "ballast.points": "{n} pontos classificados", "ballast.need": "Informe um MMSI ou envie uma rota.",
    "audit.start": "Início", "audit.end": "Fim", "audit.slat": "Lat. início", "audit.slon": "Lon. início",
    "audit.elat": "Lat. fim", "audit.elon": "Lon. fim", "audit.volume": "Volume (m³)", "audit.method": "Método",
    "audit.run": "Auditar", "audit.verdict": "Parecer", "audit.leads": "indícios gerados",
    "verdict.compliant": "conforme", "verdict.compliant_fallback": "conforme (troca em águas b))",
    "verdict.noncompliant": "não conforme", "verdict.unverified": "não verificável",
    "reason.no_fix": "{point}: nenhuma posição AIS dentro da tolerância de horário",
    "reason.off_declared": "{point}: o AIS põe o navio a {offset_nm} mn da posição declarada",
    "reason.meets_200": "início, fim e cada posição AIS entre eles além de 200 mn e com 200 m de profundidade",
    "reason.fallback": "além de 50 mn e com 200 m de profundidade em todo o trecho; a viagem não ofereceu {needed_hours} h em águas a)",
    "reason.not_50": "nem sequer além de 50 mn da terra e com 200 m de profundidade em todo o trecho",
    "reason.a_water_available": "havia águas a) por {available_hours} h a partir de {start}; eram necessárias {needed_hours} h",
    "reason.point.start": "início", "reason.point.end": "fim",
    "arrivals.list": "Listar", "arrivals.none": "Nenhuma chegada no período.", "arrivals.port": "Porto/fundeadouro",
    "arrivals.at": "Chegada", "err": "Erro", "loading": "carregando…",
    "st.new": "novo", "st.triaged": "triado", "st.dismissed": "descartado", "st.notified": "notificado",
    "st.infraction": "auto lavrado", "st.defence": "defesa", "st.judged": "julgado", "st.appeal": "recurso",
    "st.closed": "encerrado", "st.reviewing": "em análise", "st.confirmed": "confirmado", "st.referred": "encaminhado",
    "cls.cargo": "carga", "cls.tanker": "tanque", "cls.passenger": "passageiros", "cls.fishing": "pesca",
    "cls.pleasure": "recreio/vela", "cls.service": "serviço/reboque", "cls.hsc": "alta velocidade", "cls.other": "outra/desconhecida",
    "cls.sar": "SAR / socorro", "cls.aton": "auxílio à navegação",
    legend: "Legenda", "leg.band": "faixa da regra (zona)", "leg.lead": "indício aberto", "leg.stale": "posição antiga (esmaecida)",
  },
  en: {
    subtitle: "AIS watch", language: "Language", signout: "Sign out",
    "live.live": "live", "live.poll": "no live stream: polling", "live.off": "disconnected",
    "live.connecting": "connecting…",
    "signin.title": "Sign in", "signin.help": "Enter your API key. It is kept for this tab only and gone when you close it.",
    "signin.key": "API key", "signin.go": "Sign in", "signin.bad": "The server refused this key.",
    "map.label": "Map", "layers.title": "Layers", "layers.land": "Land", "layers.zones": "Zones and bands",
    "layers.lines": "200/50 nm and 200 m isobath", "layers.vessels": "Vessels", "layers.leads": "Open leads", "layers.labels": "Names",
    "tab.leads": "Leads", "tab.vessel": "Vessel", "tab.ballast": "Ballast water",
    "f.rule": "Rule", "f.zone": "Zone", "f.authority": "Authority", "f.status": "Status", "f.sort": "Order",
    "f.all": "all", "f.newest": "newest first", "f.due": "due soonest",
    "count": "{n} leads ({shown} shown)", "sar": "DISTRESS", "open": "ongoing", "closed": "ended",
    "d.lines": "inside the ballast lines (200 nm): {nm} nm from the coast",
    "d.citation": "Citation", "d.zone": "Zone", "d.distance": "Closest distance", "d.sog": "Max speed",
    "d.started": "Started", "d.ended": "Ended", "d.authority": "Authority", "d.status": "Status",
    "d.vessel": "Vessel", "d.deadlines": "Deadlines", "d.history": "History", "d.repeats": "Repeat offences",
    "d.due": "due", "d.basis": "legal basis", "d.at": "when", "d.by": "by", "d.reason": "reason",
    "d.closest": "closest point", "d.evidence": "evidence points",
    "wf.move": "Move to", "wf.reason": "Reason", "wf.apply": "Apply", "wf.done": "Status changed.",
    "wf.docs": "Documents", "doc.notice": "Notice to Appear (PDF)", "doc.auto": "Auto de Infração (PDF)",
    "sil.title": "Silence", "sil.until": "Until", "sil.scope": "Scope", "sil.vessel": "vessel",
    "sil.zone": "zone", "sil.both": "vessel in this zone", "sil.go": "Silence", "sil.done": "Silenced.",
    "vessel.show": "Show", "vessel.static": "Data", "vessel.track": "Track", "vessel.leads": "The vessel's leads",
    "vessel.none": "No static data.", "vessel.points": "{n} positions", "name": "Name", "type": "Type",
    "callsign": "Call sign", "length": "Length", "destination": "Destination", "flag": "MID", "class": "Class",
    "speed": "Speed", "course": "Course", "seen": "Last position", "stale": "stale",
    "cluster.vessels": "{n} vessels", "cluster.leads": "{n} leads", "cluster.zoom": "click to zoom in",
    "zone.source": "Source", "zone.source_date": "of",
    "zi.title": "Import zones", "zi.go": "Import", "zi.sending": "Sending…", "zi.refused": "Refused",
    "zi.done": "{added} new, {updated} changed, {unchanged} unchanged, {retired} retired, {kept} kept, {skipped} skipped",
    "period.from": "From", "period.to": "To",
    "ballast.route": "Classified route", "ballast.upload": "or a route (CSV lat,lon[,t] / JSON)",
    "ballast.classify": "Classify", "ballast.audit": "Exchange audit", "ballast.arrivals": "Arrivals",
    "ballast.a": "hours in a)-water (beyond 200 nm, ≥ 200 m)", "ballast.b": "hours in b)-water (beyond 50 nm, ≥ 200 m)",
    "ballast.beyond_200nm": "beyond 200 nm", "ballast.between_50_200nm": "50 to 200 nm", "ballast.within_50nm": "within 50 nm",
    "ballast.points": "{n} points classified", "ballast.need": "Give an MMSI or upload a route.",
    "audit.start": "Start", "audit.end": "End", "audit.slat": "Start lat", "audit.slon": "Start lon",
    "audit.elat": "End lat", "audit.elon": "End lon", "audit.volume": "Volume (m³)", "audit.method": "Method",
    "audit.run": "Audit", "audit.verdict": "Verdict", "audit.leads": "leads raised",
    "verdict.compliant": "compliant", "verdict.compliant_fallback": "compliant (exchange in b)-water)",
    "verdict.noncompliant": "noncompliant", "verdict.unverified": "unverified",
    "reason.no_fix": "{point}: no AIS fix within the time tolerance",
    "reason.off_declared": "{point}: AIS puts the ship {offset_nm} nm from the declared position",
    "reason.meets_200": "start, end and every AIS fix between beyond 200 nm and 200 m deep",
    "reason.fallback": "beyond 50 nm and 200 m deep throughout; the voyage offered no a)-water for {needed_hours} h",
    "reason.not_50": "not even beyond 50 nm from land and 200 m deep throughout",
    "reason.a_water_available": "a)-water was available for {available_hours} h from {start}; {needed_hours} h were needed",
    "reason.point.start": "start", "reason.point.end": "end",
    "arrivals.list": "List", "arrivals.none": "No arrivals in the period.", "arrivals.port": "Port/anchorage",
    "arrivals.at": "Arrived", "err": "Error", "loading": "loading…",
    "st.new": "new", "st.triaged": "triaged", "st.dismissed": "dismissed", "st.notified": "notified",
    "st.infraction": "infraction", "st.defence": "defence", "st.judged": "judged", "st.appeal": "appeal",
    "st.closed": "closed", "st.reviewing": "reviewing", "st.confirmed": "confirmed", "st.referred": "referred",
    "cls.cargo": "cargo", "cls.tanker": "tanker", "cls.passenger": "passenger", "cls.fishing": "fishing",
    "cls.pleasure": "pleasure/sail", "cls.service": "service/tug", "cls.hsc": "high speed", "cls.other": "other/unknown",
    "cls.sar": "SAR / distress", "cls.aton": "aid to navigation",
    legend: "Legend", "leg.band": "rule band (zone)", "leg.lead": "open lead", "leg.stale": "old position (faded)",
  },
};

export const TZ = "America/Sao_Paulo";
let lang = localStorage.getItem("vigia.lang") || "pt-BR";
if (!TEXTS[lang]) lang = "pt-BR";
const listeners = [];

export function getLang() { return lang; }

export function t(key, vars = {}) {
  let s = TEXTS[lang][key] ?? TEXTS["pt-BR"][key] ?? key;
  for (const [k, v] of Object.entries(vars)) s = s.replace(`{${k}}`, String(v));
  return s;
}

export function setLang(next) {
  if (!TEXTS[next]) return;
  lang = next;
  localStorage.setItem("vigia.lang", next);
  apply(document);
  for (const fn of listeners) fn(next);
}

export function onLang(fn) { listeners.push(fn); }

/** Whether ``key`` has a text (so a caller can fall back to the API's own title). */
export function has(key) { return key in TEXTS[lang] || key in TEXTS["pt-BR"]; }

/** Add texts from another module (words.js), one dictionary per language. */
export function extend(dicts) {
  for (const [l, d] of Object.entries(dicts)) Object.assign(TEXTS[l] ||= {}, d);
}

/** Fill every [data-i18n] text and [data-i18n-aria] label under root. */
export function apply(root) {
  document.documentElement.lang = lang;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

const fmtCache = new Map();
// dates are day first in both languages: an English-reading officer in Brazil meets
// 05/02/2026 on every paper, and a month-first date beside it would be misread
const DATE_LOCALE = { "pt-BR": "pt-BR", en: "en-GB" };
function fmt(opts) {
  const key = lang + JSON.stringify(opts);
  if (!fmtCache.has(key)) fmtCache.set(key, new Intl.DateTimeFormat(DATE_LOCALE[lang] || lang, { timeZone: TZ, ...opts }));
  return fmtCache.get(key);
}

/** A calendar date (YYYY-MM-DD) as the app's language writes it: 05/02/2026. */
export function dateText(iso) {
  if (!iso) return "—";
  const [y, m, d] = iso.split("-").map(Number);
  return new Intl.DateTimeFormat(DATE_LOCALE[lang] || lang, { timeZone: "UTC" }).format(new Date(Date.UTC(y, m - 1, d)));
}

// Date fields are text, not <input type=date>: the browser draws those in its own
// locale (mm/dd/yyyy in an English chromium), whatever the app's language says.
const DMY = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ ,T]+(\d{1,2}):(\d{2}))?\s*$/;
const YMD = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}))?\s*$/;
const pad = (n) => String(n).padStart(2, "0");

/** What a date field holds, as {date: "YYYY-MM-DD", time: "HH:MM" | null}, or null when
 * it is no real date. Typed day first (05/02/2026 14:30); ISO is taken too. */
export function readDate(text) {
  let m = DMY.exec(text || "");
  let y, mo, d;
  if (m) [d, mo, y] = [m[1], m[2], m[3]].map(Number);
  else if ((m = YMD.exec(text || ""))) [y, mo, d] = [m[1], m[2], m[3]].map(Number);
  else return null;
  const day = new Date(Date.UTC(y, mo - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== mo - 1 || day.getUTCDate() !== d) return null;
  const [hh, mm] = [m[4], m[5]].map((x) => (x == null ? null : Number(x)));
  if (hh != null && (hh > 23 || mm > 59)) return null;
  return { date: `${y}-${pad(mo)}-${pad(d)}`, time: hh == null ? null : `${pad(hh)}:${pad(mm)}` };
}

/** Make a text input a date field of the app's language: placeholder, and a refusal in
 * words when what was typed is no date. ``withTime``: a date and an hour. */
export function dateField(el, withTime = false) {
  el.type = "text";
  el.autocomplete = "off";
  el.dataset.kind = withTime ? "datetime" : "date";
  el.dataset.i18nPlaceholder = withTime ? "ph.datetime" : "ph.date";
  el.placeholder = t(el.dataset.i18nPlaceholder);
  const check = () => el.setCustomValidity(!el.value || readDate(el.value) ? "" : t("ph.bad", { format: el.placeholder }));
  el.addEventListener("input", check);
  el.addEventListener("change", check);
  return el;
}

/** A <time> element: São Paulo time shown, the UTC instant on hover. */
export function timeEl(iso) {
  const el = document.createElement("time");
  if (!iso) { el.textContent = "—"; return el; }
  const d = new Date(iso);
  el.dateTime = d.toISOString();
  el.textContent = fmt({ dateStyle: "short", timeStyle: "medium" }).format(d);
  el.title = d.toISOString().replace(".000Z", "Z").replace("T", " ") + " UTC";
  return el;
}

export function timeText(iso) {
  return iso ? fmt({ dateStyle: "short", timeStyle: "medium" }).format(new Date(iso)) : "—";
}

/** A date field's value read as São Paulo wall time (UTC-3 all year since 2019); a
 * date without an hour is its midnight. */
export function localInputToIso(value) {
  const v = readDate(value);
  if (!v) return null;
  return new Date(`${v.date}T${v.time || "00:00"}:00-03:00`).toISOString();
}

/** An instant as a date field shows it, in São Paulo time: 10/01/2026 10:00. */
export function isoToLocalInput(iso) {
  const d = new Date(new Date(iso).getTime() - 3 * 3600e3).toISOString();
  return `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)} ${d.slice(11, 16)}`;
}

export function number(x, digits = 1) {
  return x == null ? "—" : new Intl.NumberFormat(lang, { maximumFractionDigits: digits }).format(x);
}
