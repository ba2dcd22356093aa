// The admin's draft zones (issue 36, docs/backtest.md): a GeoJSON file (or a polygon
// drawn on the map) sent to POST /drafts, drawn beside the zones in force; its backtest
// run over a period (POST /drafts/{id}/backtests), followed on the job's server-sent
// events (read with fetch, which sends the key as a header, as EventSource cannot; the
// job is polled when the stream fails); the report (leads a day, by rule, zone and
// authority, new/kept/gone against the zones in force) beside its leads on the map; then
// published, with a reason when the server says a zone's busiest day is over its lead
// budget (a 409 said in the page's language from its code), or dropped.
import { api, getKey, ApiError } from "./api.js";
import { t, onLang, timeText, dateText, number, localInputToIso } from "./i18n.js";
import { table } from "./leads.js";
import { ruleName, tn } from "./names.js";
import { problemText } from "./moveform.js";
import { DraftMap, MARKS, DRAFT_COLOUR } from "./draftmap.js";
import "./words.js";

const POLL_MS = 1000;
const CHANGES = ["new", "kept", "gone"];
const iso = (s) => (s == null ? null : new Date(s * 1000).toISOString());
const slug = (s) => s.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "area";

function node(tag, props = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "data") Object.assign(e.dataset, v);
    else e[k] = v;
  }
  e.append(...kids);
  return e;
}

/** A refused upload in words: the problem's code, the feature it names and the
 * server's own detail (the validator's sentence, which names what is wrong). */
function refusal(err) {
  const p = err?.problem || {};
  return `${t("dr.refused")}: ${problemText(err)}` + (p.feature ? ` ${t("dr.feature", { feature: p.feature })}` : "") +
    (p.detail ? ` (${p.detail})` : "");
}

/** The job's server-sent events, read from a fetch (the key goes as a header): each
 * `progress` view to onView, then the `done` or `failed` view, returned. */
export async function follow(jobId, onView) {
  const res = await fetch(`/backtests/${jobId}/events`, { headers: { "X-API-Key": getKey() || "", Accept: "text/event-stream" } });
  if (!res.ok || !res.body) throw new ApiError(res.status, null);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "", event = "message", data = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before the job did");
    buf += value;
    let m;
    while ((m = /\r\n|\n|\r(?=[^\n])/.exec(buf))) {
      const line = buf.slice(0, m.index);
      buf = buf.slice(m.index + m[0].length);
      if (line === "") {
        if (data.length) {
          const view = JSON.parse(data.join("\n"));
          onView(view);
          if (event === "done" || event === "failed") { reader.cancel().catch(() => {}); return view; }
        }
        event = "message"; data = [];
      } else if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
  }
}

/** The same job asked for every second (GET /backtests/{job}) until it ends. */
export async function poll(jobId, onView) {
  for (;;) {
    const view = await api(`/backtests/${jobId}`);
    onView(view);
    if (view.state !== "running") return view;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export class DraftPanel {
  constructor({ root, map }) {
    const $ = (id) => root.querySelector("#" + id);
    Object.assign(this, { vmap: map, dmap: new DraftMap(map), form: $("draft-form"), drawForm: $("draft-draw"),
      drawCount: $("draft-draw-count"), msg: $("draft-msg"), list: $("draft-list"), detail: $("draft-detail"),
      title: $("draft-title"), stateMsg: $("draft-state-msg"), zones: $("draft-zones"), openBox: $("draft-open"),
      budgetForm: $("draft-budget"), budgetMsg: $("draft-budget-msg"), tryForm: $("draft-try"), progress: $("draft-progress"),
      result: $("draft-result"), publishForm: $("draft-publish"), publishMsg: $("draft-publish-msg"), history: $("draft-history") });
    this.drafts = [];
    this.draft = null;  // the open draft (GET /drafts/{id})
    this.drawn = null;  // its zones and bands (GET /drafts/{id}/map)
    this.job = null;  // its latest backtest job in this page, as the server last said it
    this.marks = null;  // that job's leads.geojson
    this.notes = new Map();  // message element -> [text or () => text, class]
    const file = this.form.elements.file;
    file.addEventListener("change", () => {
      const name = this.form.querySelector(".file-name");
      if (file.files[0]) delete name.dataset.i18n; else name.dataset.i18n = "file.none";
      name.textContent = file.files[0] ? file.files[0].name : t("file.none");
    });
    this.form.addEventListener("submit", (e) => { e.preventDefault(); this.upload(); });
    this.wireDraw();
    this.budgetForm.addEventListener("submit", (e) => { e.preventDefault(); this.setBudget(); });
    const period = this.tryForm.elements.period;
    period.addEventListener("change", () => {
      for (const x of this.tryForm.querySelectorAll("[data-custom]")) x.hidden = period.value !== "custom";
    });
    this.tryForm.addEventListener("submit", (e) => { e.preventDefault(); this.run(); });
    this.publishForm.addEventListener("submit", (e) => { e.preventDefault(); this.publish(); });
    this.publishForm.elements.drop.addEventListener("click", () => this.drop());
    this.publishForm.elements.reason.addEventListener("input", (e) => e.target.removeAttribute("aria-invalid"));
    onLang(() => this.render());
  }

  /** A message that follows the language: ``text`` a string or a function giving it. */
  say(el, text, cls = "") {
    this.notes.set(el, [text, cls]);
    el.textContent = typeof text === "function" ? text() : text;
    el.classList.add("msg");
    el.classList.remove("ok", "error");
    if (cls) el.classList.add(cls);
  }

  async refresh() {
    try { this.drafts = (await api("/drafts")).drafts; }
    catch (err) { this.say(this.msg, () => `${t("err")}: ${problemText(err)}`, "error"); }
    this.renderList();
  }

  async upload() {
    const f = this.form.elements;
    const file = f.file.files[0];
    if (!file) { this.say(this.msg, () => t("dr.nofile"), "error"); return; }
    if (await this.create(await file.text(), f.name.value.trim() || file.name.replace(/\.(geo)?json$/i, ""))) {
      this.form.reset();
      f.file.dispatchEvent(new Event("change"));
    }
  }

  /** POST /drafts with the GeoJSON text as it is (the server validates it as a zone
   * upload and names the feature it refuses); opens the new draft. */
  async create(text, name) {
    this.say(this.msg, () => t("dr.sending"));
    try {
      const res = await fetch("/drafts?name=" + encodeURIComponent(name), { method: "POST", body: text,
        headers: { "X-API-Key": getKey() || "", "Content-Type": "application/geo+json", Accept: "application/json" } });
      const body = await res.json().catch(() => null);
      if (!res.ok) throw new ApiError(res.status, body);
      this.say(this.msg, () => t("dr.created", { id: body.id }), "ok");
      await this.refresh();
      await this.open(body.id);
      return true;
    } catch (err) { this.say(this.msg, () => refusal(err), "error"); return false; }
  }

  wireDraw() {
    const f = this.drawForm, b = f.elements;
    const count = (n) => this.say(this.drawCount, () => tn("dr.draw.points", n));
    const idle = () => { b.start.disabled = false; b.undo.disabled = b.cancel.disabled = true; };
    idle();
    b.start.addEventListener("click", () => {
      this.dmap.startDrawing(count);
      count(0);
      b.start.disabled = true; b.undo.disabled = b.cancel.disabled = false;
    });
    b.undo.addEventListener("click", () => this.dmap.undo());
    b.cancel.addEventListener("click", () => { this.dmap.stopDrawing(false); idle(); this.say(this.drawCount, ""); });
    f.addEventListener("submit", async (e) => {
      e.preventDefault();
      if (!this.vmap.drawing || this.dmap.points.length < 3) { this.say(this.drawCount, () => t("dr.draw.need"), "error"); return; }
      const ring = this.dmap.stopDrawing();
      idle();
      this.say(this.drawCount, "");
      const name = b.name.value.trim() || t("dr.drawn");
      const props = { id: `${b.kind.value}-${slug(name)}-${Date.now().toString(36)}`, kind: b.kind.value, name };
      const d = Number(b.distance.value.replace(",", "."));
      if (b.distance.value && Number.isFinite(d) && d >= 0) props.distance_m = d;
      if (await this.create(JSON.stringify({ type: "Feature", properties: props, geometry: { type: "Polygon", coordinates: [ring] } }), name)) f.reset();
    });
  }

  /** Open a draft: its zones drawn, its latest report, its history. */
  async open(id) {
    try {
      const [draft, drawn] = await Promise.all([api(`/drafts/${id}`), api(`/drafts/${id}/map`, { accept: "application/geo+json" })]);
      if (this.draft?.id !== id) {
        this.job = this.marks = null;
        this.dmap.showLeads(null);
        this.progress.hidden = true;
        for (const el of [this.stateMsg, this.budgetMsg, this.publishMsg]) this.say(el, "");
        this.publishForm.reset();
      }
      Object.assign(this, { draft, drawn });
      await this.dmap.showDraft(drawn);
      this.render();
    } catch (err) { this.say(this.msg, () => `${t("err")}: ${problemText(err)}`, "error"); }
  }

  render() {
    this.renderList();
    for (const [el, [text]] of this.notes) el.textContent = typeof text === "function" ? text() : text;
    const d = this.draft;
    this.detail.hidden = !d;
    if (!d) return;
    this.detail.dataset.state = d.state;
    this.title.replaceChildren(`#${d.id} ${d.name || t("dr.unnamed")} · `, node("span", { className: "state" }, t("dr.state." + d.state)));
    const feats = d.features?.features || [];
    const ul = node("ul", { className: "draft-zones" });
    for (const f of feats) {
      const p = f.properties;
      const sw = node("i", { className: "swatch" });
      sw.style.cssText = `background:${DRAFT_COLOUR}55;border:2px dashed ${DRAFT_COLOUR}`;
      ul.append(node("li", { data: { zone: p.id } }, sw, `${p.name || p.id} · ${t("kind." + p.kind)}` +
        (p.distance_m != null ? ` · ${number(p.distance_m, 0)} m` : "") + ` · ${p.id}`));
    }
    this.zones.replaceChildren(node("h4", {}, t("dr.zones")), ul);
    const sel = this.budgetForm.elements.zone;
    const cur = sel.value;
    sel.replaceChildren(...feats.map((f) => new Option(f.properties.name || f.properties.id, f.properties.id)));
    if (cur) sel.value = cur;
    this.openBox.hidden = this.publishForm.hidden = d.state !== "draft";
    this.renderResult();
    const rows = (d.history || []).map((h) => ({ at: iso(h.at), by: h.by, action: t("dr.action." + h.action), reason: h.reason || "—" }));
    this.history.replaceChildren(table(t("dr.history"), ["at", "by", "action", "reason"], rows, [t("d.at"), t("d.by"), t("dr.action"), t("d.reason")]));
  }

  renderList() {
    const items = this.drafts.map((d) => {
      const b = node("button", { type: "button", className: "secondary" },
        `#${d.id} ${d.name || t("dr.unnamed")} · ${t("dr.state." + d.state)} · ${timeText(iso(d.updated_at))}`);
      b.addEventListener("click", () => this.open(d.id));
      const li = node("li", { data: { id: String(d.id), state: d.state } }, b);
      if (this.draft?.id === d.id) li.setAttribute("aria-current", "true");
      return li;
    });
    this.list.replaceChildren(...(items.length ? items : [node("li", { className: "count" }, t("dr.none"))]));
  }

  /** The latest report: this page's job once done, else the one kept with the draft. */
  renderResult() {
    const job = this.job;
    this.result.replaceChildren();
    if (job && job.state !== "done") return;  // running (its progress says so) or failed
    const report = job ? job.report : this.draft?.backtest;
    if (!report) {
      if (this.draft?.state === "draft") this.result.append(node("p", { className: "count" }, t("dr.untried")));
      return;
    }
    const box = node("section", { className: "report", data: { since: report.since, until: report.until } });
    box.append(node("h4", {}, t("dr.result")));
    box.append(node("p", { className: "summary" }, `${tn("dr.nleads", report.leads)} · ${tn("dr.nvessels", report.vessels)} · ` +
      t("dr.span", { since: timeText(report.since), until: timeText(report.until) })));
    // the difference, which is also the map's legend: each mark's shape and colour
    const diff = report.difference || {};
    const legend = node("ul", { className: "marks", ariaLabel: t("dr.diff") });
    for (const c of CHANGES) {
      const sw = node("i", { className: "mark" });
      sw.style.cssText = `background:${MARKS[c].fill};border:3px solid ${MARKS[c].colour}`;
      legend.append(node("li", { data: { mark: c } }, sw, `${t("dr.mark." + c)}: `, node("strong", {}, String(diff[c] ?? 0)),
        node("small", {}, ` ${t("dr.mark." + c + ".hint")}`)));
    }
    box.append(node("h4", {}, t("dr.diff")), legend);
    const counts = (key, title, label, extra) => {
      const entries = Object.entries(report[key] || {});
      const cols = extra ? ["k", "n", "x"] : ["k", "n"];
      const heads = extra ? [label, t("dr.leads"), t("dr.most")] : [label, t("dr.leads")];
      const w = table(title, cols, entries.map(([k, n]) => ({ k: k, n: String(n), x: extra?.(k) })), heads);
      w.dataset.report = key;
      w.querySelectorAll("tbody tr").forEach((tr, i) => { tr.dataset.key = entries[i][0]; });
      return w;
    };
    const perDay = counts("per_day", t("dr.perday"), t("dr.day"));
    perDay.querySelectorAll("tbody tr td:first-child").forEach((td) => { td.textContent = dateText(td.parentElement.dataset.key); });
    const byRule = counts("by_rule", t("dr.byrule"), t("dr.rule"));
    byRule.querySelectorAll("tbody tr td:first-child").forEach((td) => { td.title = td.textContent; td.textContent = ruleName(td.textContent); });
    const most = report.most_in_a_day || {};
    const byZone = counts("by_zone", t("dr.byzone"), t("dr.zone"), (z) => String(most[z] ?? "—"));
    byZone.querySelectorAll("tbody tr td:first-child").forEach((td) => { td.title = td.textContent; td.textContent = this.dmap.zoneName(td.textContent); });
    const byAuth = counts("by_authority", t("dr.byauth"), t("dr.authority"));
    byAuth.querySelectorAll("tbody tr td:first-child").forEach((td) => { if (td.textContent === "-") td.textContent = t("dr.noauth"); });
    box.append(perDay, byRule, byZone, byAuth);
    if (report.silenced) box.append(node("p", { className: "count" }, tn("dr.silenced", report.silenced)));
    const read = report.read || {};
    box.append(node("p", { className: "count" }, t("dr.read", { vessels: number(read.vessels ?? 0, 0),
      positions: number(read.positions_replayed ?? 0, 0), seconds: number(report.seconds ?? 0, 1) })));
    if (job?.state === "done") {
      const csv = node("button", { type: "button", className: "secondary", name: "csv" }, t("dr.csv"));
      csv.addEventListener("click", () => this.download(job.id));
      box.append(csv);
    }
    this.result.append(box);
  }

  async setBudget() {
    const f = this.budgetForm.elements;
    const n = Number(f.n.value);
    const zone = f.zone.value;
    try {
      await api(`/zone-budgets/${encodeURIComponent(zone)}`, { method: "PUT", body: { leads_per_day: n } });
      this.say(this.budgetMsg, () => t("dr.budget.done", { zone: this.dmap.zoneName(zone), n }), "ok");
    } catch (err) { this.say(this.budgetMsg, () => `${t("err")}: ${problemText(err)}`, "error"); }
  }

  /** Run the backtest for the period chosen; follow its progress; draw its leads. */
  async run() {
    const d = this.draft;
    const f = this.tryForm.elements;
    const body = f.period.value === "custom"
      ? { since: localInputToIso(f.start.value), until: localInputToIso(f.end.value) || undefined } : { since: f.period.value };
    if (!body.since) { this.say(this.stateMsg, () => t("dr.pneed"), "error"); return; }
    f.run.disabled = true;
    this.say(this.stateMsg, "");
    this.job = { state: "running", stage: "queued", progress: 0 };
    this.showProgress(this.job);
    this.marks = null;
    this.dmap.showLeads(null);
    this.renderResult();
    const mine = () => this.draft?.id === d.id;
    const seen = (view) => { if (mine()) { this.job = view; this.showProgress(view); } };
    try {
      const job = await api(`/drafts/${d.id}/backtests`, { method: "POST", body });
      seen(job);
      let end;
      try { this.progress.dataset.via = "stream"; end = await follow(job.id, seen); }
      catch { this.progress.dataset.via = "poll"; end = await poll(job.id, seen); }
      if (!mine()) return;
      if (end.state === "done") {
        this.draft = await api(`/drafts/${d.id}`);  // its history now says it was tried
        this.marks = await api(`/backtests/${end.id}/leads.geojson`, { accept: "application/geo+json" });
        await this.dmap.showLeads(this.marks);
        this.dmap.fit([...(this.drawn?.features || []), ...this.marks.features]);
      }
      this.render();
      this.result.scrollIntoView({ block: "start" });
    } catch (err) {
      if (mine() && !this.job?.id) { this.job = null; this.renderResult(); }  // no job was started
      this.say(this.stateMsg, () => `${t("err")}: ${problemText(err)}`, "error");
    } finally { f.run.disabled = false; }
  }

  showProgress(v) {
    this.progress.hidden = false;
    this.progress.dataset.state = v.state;
    const bar = this.progress.querySelector("progress");
    bar.value = v.progress ?? 0;
    const text = () => (v.state === "failed" ? t("dr.failed", { error: v.error || "" })
      : `${number((v.progress ?? 0) * 100, 0)} % · ${t("dr.stage." + (v.state === "done" ? "done" : v.stage))}`);
    this.say(this.progress.querySelector("span"), text, v.state === "failed" ? "error" : "");
  }

  /** Publish; a 409 over a zone's lead budget is said in words, and the reason field
   * asked for: the admin gives one and publishes again. */
  async publish() {
    const d = this.draft;
    const field = this.publishForm.elements.reason;
    const reason = field.value.trim();
    this.say(this.publishMsg, "");
    try {
      this.draft = await api(`/drafts/${d.id}/publish`, { method: "POST", body: reason ? { reason } : {} });
      field.required = false;
      await this.dmap.showDraft({ type: "FeatureCollection", features: [] });  // now among the zones in force
      await Promise.all([this.vmap.loadBackground(), this.refresh()]);
      this.render();
      this.say(this.stateMsg, () => t("dr.published"), "ok"); this.stateMsg.scrollIntoView({ block: "nearest" });
    } catch (err) {
      const p = err?.problem || {};
      if (err?.status === 409 && p.reason === "lead-budget-exceeded") {
        const f = p.facts || {};
        this.say(this.publishMsg, () => problemText(err) + (f.count && f.count !== "1" ? " " + t("dr.over.all", { zones: f.zones }) : ""), "error");
        field.required = true;
        field.setAttribute("aria-invalid", "true");
        field.focus();
      } else this.say(this.publishMsg, () => `${t("err")}: ${problemText(err)}`, "error");
    }
  }

  async drop() {
    const d = this.draft;
    const reason = this.publishForm.elements.reason.value.trim();
    try {
      this.draft = await api(`/drafts/${d.id}?${new URLSearchParams(reason ? { reason } : {})}`, { method: "DELETE" });
      await this.dmap.clear();
      this.marks = null;
      await this.refresh();
      this.render();
      this.say(this.stateMsg, () => t("dr.dropped"), "ok");
    } catch (err) { this.say(this.publishMsg, () => `${t("err")}: ${problemText(err)}`, "error"); }
  }

  /** The job's leads as CSV (fetched with the key, saved from a blob). */
  async download(jobId) {
    try {
      const res = await api(`/backtests/${jobId}/leads.csv`, { accept: "text/csv", raw: true });
      const url = URL.createObjectURL(await res.blob());
      const a = node("a", { href: url, download: `rascunho-${this.draft?.id}-teste-${jobId}.csv` });
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) { this.say(this.stateMsg, () => `${t("err")}: ${problemText(err)}`, "error"); }
  }
}
