// The lead panel: a store of the leads seen (pages of /leads, the stream), the list the
// server keeps for the filters (caseload.js: pages, "Carregar mais", the count), newest
// first with SAR-DISTRESS on top, and the selected lead's detail and workflow.
import { api } from "./api.js";
import { t, has, timeEl, timeText, number, onLang, localInputToIso, dateField, dateText, getLang } from "./i18n.js";
import { esc } from "./map.js";
import { moveForm, problemText, markField } from "./moveform.js";
import "./words.js";
import { ruleName, tn } from "./names.js";
import { Assignment, assignee } from "./assign.js";
import { readLink, writeLink, applyFilters } from "./link.js";
import { positionEl, age, ddm } from "./position.js";
import { Caseload, filtersOf, catalogue, query } from "./caseload.js";
import { IDENTITY_RULES, INTERFERENCE, doubtNote, identityPanel, identityLine } from "./idleads.js";
import { showMeeting, meetingPanel, ENCOUNTER } from "./meeting.js";

const SAR = "SAR-DISTRESS";
// a lead in these states is finished: nothing is drafted, silenced or "ongoing" there
const FINISHED = ["closed", "dismissed"];
/** When the episode ended; a finished lead whose vessel was never seen leaving is not
 * "em curso": the case is over even if the track never said so. */
const endedText = (l) => (l.ended_at ? null : FINISHED.includes(l.status) ? t("d.noend") : t("open"));
// service/http/routes/documents.py DRAFTABLE: the states a draft is made in
const DRAFTABLE = ["triaged", "notified", "infraction"];
const SHAPES = { "SAR-DISTRESS": "⚠", "SEC-PLATFORM": "◆", "SEC-MILITARY": "■", "BATH-MOTOR": "●", "BATH-SAIL": "○", "SEC-NOTICE": "▲" };

/** The soonest pending deadline: the API's `due`, else from the lead's deadlines. */
function dueOf(lead) {
  if (lead.due !== undefined) return lead.due;
  const ds = (lead.deadlines || []).map((d) => d.due).filter(Boolean).sort();
  return ds[0] || null;
}

/** A silence with no closed area near it raised for lying inside the ballast lines
 * (AIS-GAP, RULES.md): where it was, in words, instead of a zone and a distance to one. */
function insideLines(l) {
  const b = l.zone_id ? null : l.details?.ballast_lines;
  return b ? t("d.lines", { nm: number(Math.min(b.start_nm, b.end_nm), 0) }) : "";
}

export class LeadPanel {
  constructor({ list, detail, count, filters, map, session, features, onVessel, beep }) {
    Object.assign(this, { list, detail, count, filters, map, session, features, onVessel, beep });
    this.leads = new Map();
    this.selected = null;
    this.marks = new Map();  // lead id -> performance.now() when its event arrived
    this.assignment = new Assignment(this);
    this.caseload = new Caseload((l) => this.store(l));
    this.known = { rules: [], statuses: [] };
    this.more = document.createElement("button");
    Object.assign(this.more, { type: "button", className: "secondary more", hidden: true });
    this.more.dataset.i18n = "list.more";
    this.more.textContent = t("list.more");
    this.more.addEventListener("click", () => this.loadMore());
    list.after(this.more);
    filters.addEventListener("change", () => { writeLink(this.selected, filters); this.reload(); });
    onLang(() => { this.render(); if (this.selected) this.select(this.selected, { fit: false }); });
  }

  /** The first list: a shared link's filters, then their first page; the rules the
   * service knows come beside it, for the filter. */
  async firstPage() {
    applyFilters(this.filters, readLink().filters);
    [this.known] = await Promise.all([catalogue(), this.reload()]);
    this.render();
  }

  /** Ask the server for the first page of the filters as they are now. */
  async reload() {
    this.list.setAttribute("aria-busy", "true");
    try {
      if (await this.caseload.load(filtersOf(this.filters), this.session.name)) this.render();
    } catch (err) {
      this.count.textContent = `${t("err")}: ${problemText(err)}`;
    } finally { this.list.removeAttribute("aria-busy"); }
  }

  /** "Carregar mais": the next page, after the rows shown. */
  async loadMore() {
    this.more.disabled = true;
    try { if (await this.caseload.more()) this.render(); }
    catch (err) { this.count.textContent = `${t("err")}: ${problemText(err)}`; }
    finally { this.more.disabled = false; }
  }

  /** A stream reset: the store becomes the leads it carries, the list is asked again. */
  reset(leads) {
    this.leads.clear();
    for (const l of leads) this.leads.set(l.id, l);
    this.render();
    return this.reload();
  }

  /** Keep a lead the server listed (no list or count change: the page says those). */
  store(lead) {
    const old = this.leads.get(lead.id);
    this.leads.set(lead.id, old ? { ...old, ...lead } : lead);
  }

  /** Take a lead from the stream, the poll or a PATCH answer. */
  put(lead, { fresh = false } = {}) {
    const old = this.leads.get(lead.id);
    this.leads.set(lead.id, old ? { ...old, ...lead } : lead);
    this.caseload.admit(this.leads.get(lead.id), old, fresh && !old);
    if (fresh && lead.rule === SAR && !old) this.beep();
    if (!old && lead.rule === INTERFERENCE) this.markVictims(lead.id);
    this.fresh = fresh ? lead.id : null;
    this.scheduleRender();
    if (this.selected === lead.id && old) this.renderDetail(this.leads.get(lead.id));
  }

  /** An interference event settles hours after the leads it explains went out live, so
   * those rows, already here, learn their doubt when it arrives: each is read again (the
   * server links them when read, in this key's scope). */
  async markVictims(id) {
    try {
      const ev = await api(`/leads/${encodeURIComponent(id)}`);
      for (const v of ev.interference_victims || []) {
        if (!this.leads.has(v.lead_id)) continue;
        this.put(await api(`/leads/${encodeURIComponent(v.lead_id)}`));
      }
    } catch { /* the next read of the list brings them */ }
  }

  scheduleRender() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.render(); });
  }

  /** Offer every value of ``values`` (a choice once offered stays, as does one a link
   * set), in words, in the order of their words. */
  fillSelect(name, values, label = (v) => v) {
    const sel = this.filters.elements[name];
    const cur = sel.value;
    const have = new Set([...sel.options].map((o) => o.value));
    let changed = sel.dataset.lang !== getLang();
    for (const v of values) {
      if (v && !have.has(v)) { sel.add(new Option(label(v), v)); have.add(v); changed = true; }
    }
    // labelled again each time: zone names arrive after the first list, and the language
    // may change; the code stays as the option's hover text
    const opts = [...sel.options].filter((o) => o.value);
    for (const o of opts) { o.textContent = label(o.value); o.title = o.value; }
    if (!changed) return;
    opts.sort((a, b) => a.textContent.localeCompare(b.textContent, getLang()));
    sel.append(...opts);
    sel.value = cur;
    sel.dataset.lang = getLang();
  }

  zoneName(id) { return id ? this.map.zoneNames?.get(id) || id : "—"; }

  render() {
    const all = [...this.leads.values()];
    // the choices: the service's rules, the map's zones and the register's offices,
    // whatever is loaded, and those of the leads seen (a jurisdiction zone's authority)
    this.fillSelect("rule", new Set([...this.known.rules, ...all.map((l) => l.rule)]), ruleName);
    this.fillSelect("zone", new Set([...(this.map.zoneNames?.keys() || []), ...all.map((l) => l.zone_id)]), (v) => this.zoneName(v));
    this.fillSelect("authority", new Set([...(this.known.authorities || []), ...all.map((l) => l.authority)]));
    this.fillSelect("status", new Set([...all.map((l) => l.status), ...(this.features.statuses || []), ...this.known.statuses]), (v) => t("st." + v));
    const rows = this.caseload.rows(this.leads);
    this.count.textContent = this.countText(rows.length);
    this.more.hidden = !this.caseload.next;
    const frag = document.createDocumentFragment();
    for (const l of rows) frag.append(this.row(l));
    this.list.replaceChildren(frag);
    this.map.setLeads(all.filter((l) => !["dismissed", "closed"].includes(l.status) && (l.ended_at == null || l.status === "new")));
    const now = performance.now();
    for (const [id, t0] of this.marks) {
      if (this.list.querySelector(`[data-id="${CSS.escape(id)}"]`)) {
        (window.__vigiaRowTimes ||= []).push(now - t0);
        this.marks.delete(id);
      }
    }
  }

  /** "700 indícios (100 exibidos)": the server's count; an estimate said as one. */
  countText(shown) {
    const c = this.caseload;
    if (c.total == null) return "";
    const vars = { n: number(c.total, 0), shown: number(shown, 0) };
    return c.exact ? tn("count", c.total, vars) : t("count.about", vars);
  }

  row(l) {
    const li = document.createElement("li");
    li.dataset.id = l.id;
    li.dataset.rule = l.rule;
    if (l.rule === SAR) li.classList.add("sar");
    if (l.id === this.fresh) li.classList.add("fresh");
    if (l.id === this.selected) li.setAttribute("aria-current", "true");
    const b = document.createElement("button");
    b.type = "button";
    const badge = document.createElement("span");
    badge.className = "badge";
    badge.textContent = `${SHAPES[l.rule] || "•"} ${ruleName(l.rule)}`;
    badge.title = l.rule;
    const who = document.createElement("span");
    who.className = "who";
    // a beacon's MMSI is what tells two beacons apart: the badge already says "socorro",
    // and the name or number is never cut (two "SOCORRO: MMSI 9701…" looked the same)
    who.textContent = l.vessel?.name || `MMSI ${l.mmsi}`;
    const mine = assignee(l);
    if (mine) who.title = t("as.title") + ": " + mine;
    const st = document.createElement("span");
    st.className = "st";
    st.textContent = t("st." + l.status);
    const meta = document.createElement("span");
    meta.className = "meta";
    const cp = l.closest_point?.coordinates;
    const where = l.rule === SAR && cp ? ddm(cp[1], cp[0]) : IDENTITY_RULES.has(l.rule) ? identityLine(l) : insideLines(l) || `${this.zoneName(l.zone_id)} · ${number(l.min_distance_m, 0)} m`;
    meta.append(`${where} · `, timeEl(l.started_at),
      l.ended_at || FINISHED.includes(l.status) ? "" : ` · ${t("open")}`, dueOf(l) ? ` · ${t("d.due")} ${dateText(dueOf(l))}` : "");
    if (l.interference?.length) {
      // GNSS interference put the ship here (issue 34): said on the list, not only inside
      const doubt = document.createElement("span");
      doubt.className = "doubt-mark";
      doubt.textContent = `⚠ ${t("id.doubt.short")}`;
      meta.append(" · ", doubt);
    }
    b.append(badge, who, st, meta);
    b.addEventListener("click", () => this.select(l.id));
    li.append(b);
    return li;
  }

  /** Open what the address names (a shared link): its filters' list, then its lead. */
  async openLink() {
    const { lead, filters } = readLink();
    applyFilters(this.filters, filters);
    const f = filtersOf(this.filters);
    if (query(f, this.session.name) !== this.caseload.key) await this.reload();
    else this.render();
    if (lead) {
      try { await this.select(lead); } catch (err) {
        this.detail.hidden = false;
        this.detail.textContent = `${t("err")}: ${problemText(err)}`;
      }
    }
  }

  async select(id, { fit = true } = {}) {
    this.selected = id;
    writeLink(id, this.filters);
    for (const li of this.list.children) li.toggleAttribute("aria-current", li.dataset.id === id);
    for (const li of this.list.children) if (li.dataset.id === id) li.setAttribute("aria-current", "true");
    // a later select (another click, or the one after an edit) outdates this one: its
    // answers, read before that edit, must not paint over the newer lead
    const seq = (this.selectSeq = (this.selectSeq || 0) + 1);
    const [lead, ev] = await Promise.all([api(`/leads/${encodeURIComponent(id)}`), api(`/leads/${encodeURIComponent(id)}/evidence`, { accept: "application/geo+json" })]);
    if (seq !== this.selectSeq) return;
    this.leads.set(id, { ...this.leads.get(id), ...lead });
    if (fit) { this.map.showEvidence(ev, lead); showMeeting(this.map, lead); }
    this.renderDetail(lead);
  }

  renderDetail(l) {
    const d = this.detail;
    d.hidden = false;
    d.replaceChildren();
    const h = document.createElement("h3");
    h.textContent = `${l.rule === SAR ? "⚠ " + t("sar") + " · " : ""}${ruleName(l.rule)} · ${l.vessel?.name || "MMSI " + l.mmsi}`;
    h.title = l.rule;
    if (l.rule === SAR) h.className = "sar-text";
    const dl = document.createElement("dl");
    const add = (k, v) => { const dt = document.createElement("dt"); dt.textContent = t(k); const dd = document.createElement("dd"); dd.append(v ?? "—"); dl.append(dt, dd); };
    const mm = document.createElement("button");
    mm.type = "button"; mm.className = "secondary"; mm.textContent = `MMSI ${l.mmsi}`;
    mm.addEventListener("click", () => this.onVessel(l.mmsi));
    add("d.vessel", mm);
    add("d.citation", l.citation);
    const own = IDENTITY_RULES.has(l.rule);  // about what a vessel said, not a zone
    if (l.rule === SAR) {
      // a beacon has no zone: what the rescue centre needs is where it is now
      const last = [...(l.evidence || [])].sort((a, b) => (a.t < b.t ? -1 : 1)).at(-1);
      if (last) add("d.lastfix", positionEl(last.lat, last.lon, `${timeText(last.t)} (${age(last.t)})`));
    } else if (!own) {
      add("d.zone", l.zone_kind ? `${this.zoneName(l.zone_id)} (${t("kind." + l.zone_kind)})` : insideLines(l) || this.zoneName(l.zone_id));
      if (l.zone_id || !insideLines(l)) add("d.distance", `${number(l.min_distance_m, 0)} m`);
    }
    const cp = l.closest_point?.coordinates;
    if (cp && l.rule !== SAR && !own) add("d.closestpos", positionEl(cp[1], cp[0]));
    if (!own) add("d.sog", `${number(l.max_sog_kn)} kn`);
    add("d.started", timeEl(l.started_at));
    add("d.ended", l.ended_at ? timeEl(l.ended_at) : endedText(l));
    add("d.authority", l.authority || "—");
    add("d.status", t("st." + l.status));
    add("as.title", Assignment.shown(l));
    add("d.evidence", String(l.evidence?.length ?? 0));
    // a position GNSS interference put there is said before any fact of the lead
    d.append(h, ...doubtNote(l, (id) => this.select(id)), dl);
    if (l.rule === ENCOUNTER) d.append(meetingPanel(l));  // both ships named (issue 37)
    if (own) d.append(identityPanel(l, (m) => this.onVessel(m), (id) => this.select(id)));
    if (this.notice && this.notice.id === l.id && Date.now() < this.notice.until) {
      // kept for a while after the move: the move's own event rebuilds this detail at
      // once, and a confirmation that vanishes before it is read confirms nothing
      const p = document.createElement("p");
      p.className = "notice"; p.setAttribute("role", "status"); p.textContent = this.notice.text;
      d.append(p);
    }
    if (l.deadlines?.length) d.append(table(t("d.deadlines"), ["name", "due", "state", "basis"], l.deadlines.map((x) => ({ ...x, name: word("dl.", x.name), due: dateText(x.due), state: deadlineState(x) })), [t("name"), t("d.due"), t("dl.state"), t("d.basis")]));
    const rep = l.repeat_offence;
    if (rep) {
      const p = document.createElement("p");
      p.innerHTML = `<strong>${esc(t("d.repeats"))}:</strong> ${esc(rep.applies ? tn("rep.yes", (rep.prior || []).length) : t("rep.no"))} <small>${esc(rep.basis || "")}</small>`;
      d.append(p);
    }
    if (l.history?.length) d.append(table(t("d.history"), ["at", "by", "move", "reason"], l.history.map((x) => ({ ...x, by: typeof x.by === "object" ? `${x.by.name} (${t("role." + x.by.role)})` : x.by, move: Assignment.historyText(x) || `${x.from ? t("st." + x.from) : "—"} → ${t("st." + x.to)}` })), [t("d.at"), t("d.by"), t("d.move"), t("d.reason")]));
    if (this.session.can("inspector")) d.append(this.assignment.form(l), this.workflow(l));
    d.focus({ preventScroll: true });
  }

  workflow(l) {
    const box = document.createElement("div");
    // the moves and their fields come from the API: the lead's allowed_moves and the
    // PATCH body's schema, so the page offers nothing the server would refuse as a move
    const form = moveForm(this.features.doc, l, async (body, msg) => {
      try {
        const out = await api(`/leads/${encodeURIComponent(l.id)}`, { method: "PATCH", body });
        this.notice = { id: l.id, text: t("wf.done"), until: Date.now() + 15_000 };
        this.put(out);
        await this.select(l.id, { fit: false });
      } catch (err) { msg.textContent = `${t("err")}: ${problemText(err)}`; msg.className = "msg error"; markField(form, err); }
    });
    if (form) box.append(form);
    // drafts exist once a lead was looked at and while its Notice or Auto may be issued
    if (this.features.documents.length && DRAFTABLE.includes(l.status)) {
      const docs = document.createElement("div");
      docs.className = "actions";
      const said = document.createElement("span");
      said.className = "msg"; said.setAttribute("role", "status");
      for (const p of this.features.documents) {
        const b = document.createElement("button");
        b.type = "button"; b.className = "secondary";
        const kind = /notice|notifica/i.test(p) ? "doc.notice" : /auto|infraction/i.test(p) ? "doc.auto" : null;
        const file = p.split("/").pop().replace(/\.pdf$/, "");
        b.textContent = kind ? t(kind) : file;
        b.addEventListener("click", () => download(p.replace(/\{[^}]+\}/, encodeURIComponent(l.id)), `${l.id}-${file}.pdf`)
          .catch((err) => { said.textContent = `${t("err")}: ${problemText(err)}`; said.className = "msg error"; }));
        docs.append(b);
      }
      docs.append(said);
      box.append(docs);
    }
    // silencing a finished lead's vessel or zone is a decision about new leads, not this
    // one: offered from a lead still being worked
    if (this.features.silences && !FINISHED.includes(l.status)) box.append(this.silenceForm(l));
    return box;
  }

  silenceForm(l) {
    const f = document.createElement("form");
    f.className = "actions";
    f.innerHTML = `<label>${esc(t("sil.scope"))}<select name="scope"><option value="vessel">${esc(t("sil.vessel"))}</option><option value="zone">${esc(t("sil.zone"))}</option><option value="both">${esc(t("sil.both"))}</option></select></label>
      <label>${esc(t("sil.until"))}<input name="until" required></label><label>${esc(t("wf.reason"))}<input name="reason" required maxlength="500"></label>
      <button type="submit">${esc(t("sil.go"))}</button><span class="msg" role="status"></span>`;
    dateField(f.elements.until, true);
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      const fd = new FormData(f);
      const scope = fd.get("scope");
      const body = { until: localInputToIso(fd.get("until")), reason: fd.get("reason") };
      if (scope !== "zone") body.mmsi = l.mmsi;
      if (scope !== "vessel") body.zone_id = l.zone_id;
      try { await api(this.features.silences, { method: "POST", body }); f.querySelector(".msg").textContent = t("sil.done"); }
      catch (err) { f.querySelector(".msg").textContent = `${t("err")}: ${problemText(err)}`; }
    });
    return f;
  }
}

async function download(path, name) {
  const res = await api(path, { accept: "application/pdf", raw: true });
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url; a.download = name; a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const word = (prefix, code) => (has(prefix + code) ? t(prefix + code) : code);

/** pendente / vence em N dias / vencido / cumprido, from the API's pending, met_on, late. */
function deadlineState(x) {
  if (x.met_on) return t(x.late ? "dl.met_late" : "dl.met", { on: dateText(x.met_on) });
  if (!x.pending) return "—";
  if (!x.due) return t("dl.pending");
  const today = new Date(new Date().toLocaleString("en-US", { timeZone: "America/Sao_Paulo" }));
  const [y, m, day] = x.due.split("-").map(Number);
  const days = Math.round((Date.UTC(y, m - 1, day) - Date.UTC(today.getFullYear(), today.getMonth(), today.getDate())) / 86400e3);
  if (days < 0) return t("dl.late");
  return days === 0 ? t("dl.today") : tn("dl.in", days);
}

export function table(title, cols, rows, heads = cols) {
  const wrap = document.createElement("div");
  const h = document.createElement("h4");
  h.textContent = title;
  const tb = document.createElement("table");
  const tr = tb.createTHead().insertRow();
  heads.forEach((x) => { const th = document.createElement("th"); th.textContent = x; tr.append(th); });
  const body = tb.createTBody();
  for (const r of rows) {
    const row = body.insertRow();
    for (const c of cols) {
      const v = r[c];
      const td = row.insertCell();
      td.append(typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? timeEl(v) : v == null ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v));
    }
  }
  wrap.append(h, tb);
  return wrap;
}
