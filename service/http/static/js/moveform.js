// The procedure move form, built from the service's own OpenAPI schema for
// PATCH /leads/{id}: every field the body accepts is rendered from its JSON Schema
// (type, format, enum, required, maxLength), so fields the API gains (payment, parties'
// documents...) appear without a change here. Which fields a step asks for first is the
// only thing this page knows; anything else the schema offers sits under "more data".
import { t, has, dateField, readDate, localInputToIso, dateText } from "./i18n.js";
import { esc } from "./map.js";
import "./names.js";

// the top-level properties each arrival asks for (NORMAM-07 0306, Lei 9.966 art. 25);
// names the schema lacks are skipped, so a renamed field degrades to "more data"
const STEP_FIELDS = {
  // the regime is the rule's (workflow.py), so it is no choice to offer at triage
  triaged: ["seat_state", "seat_municipality"],
  notified: ["notice"],
  // a pollution defence runs from knowledge of the Laudo (0404 b)), entered with the Auto
  infraction: ["auto", "responsible", "report_known_date"],
  defence: ["defence_received"],
  judged: ["decision"],
  appeal: ["appeal"],
  closed: ["payment_notice_date"],
  dismissed: [],
};
// what the state machine refuses the step without (workflow.py _enter_step); the rest
// of a step's fields are offered but optional
const NEEDED = ["notice", "auto", "defence_received", "decision", "appeal"];
// arriving here is refused without a reason (workflow.py: dismissing needs one)
const REASON_REQUIRED = ["dismissed"];

/** The request-body schema of PATCH /leads/{lead_id} in the OpenAPI document. */
export function changeSchema(doc) {
  const path = Object.keys(doc?.paths || {}).find((p) => /^\/leads\/\{[^}]+\}$/.test(p) && doc.paths[p].patch);
  const body = path && doc.paths[path].patch.requestBody?.content?.["application/json"]?.schema;
  return body ? deref(doc, body) : null;
}

function deref(doc, s) {
  let out = s;
  for (let i = 0; out?.$ref && i < 10; i += 1) out = out.$ref.split("/").slice(1).reduce((o, k) => o?.[k], doc);
  return out;
}

/** A property schema without its "or null" (3.1 anyOf or 3.0 nullable). */
function core(doc, s) {
  s = deref(doc, s);
  if (s?.anyOf || s?.oneOf) {
    const alts = (s.anyOf || s.oneOf).filter((x) => x.type !== "null");
    if (alts.length === 1) return { ...deref(doc, alts[0]), title: s.title ?? alts[0].title, description: s.description ?? alts[0].description };
  }
  return s || {};
}

const label = (name, s) => (has("fld." + name) ? t("fld." + name) : s.title || name);
const valueLabel = (v) => (has("v." + v) ? t("v." + v) : has("st." + v) ? t("st." + v) : v);

function input(doc, name, path, s, required) {
  s = core(doc, s);
  const wrap = document.createElement("label");
  wrap.append(label(name, s));
  let el;
  if (s.enum) {
    el = document.createElement("select");
    if (!required) el.add(new Option("—", ""));
    for (const v of s.enum) el.add(new Option(valueLabel(v), v));
  } else if (s.type === "boolean") {
    el = document.createElement("input");
    el.type = "checkbox";
    el.dataset.kind = "bool";
  } else if ((s.maxLength || 0) > 500) {
    el = document.createElement("textarea");
    el.rows = 2;
    el.maxLength = s.maxLength;
  } else {
    el = document.createElement("input");
    if (s.format === "date") dateField(el);
    else if (s.format === "date-time") dateField(el, true);
    else if (s.type === "number" || s.type === "integer") numberField(el, s.type === "integer", name);
    else if (s.maxLength) el.maxLength = s.maxLength;
  }
  el.name = path;
  if (required) el.required = true;
  if (s.description) wrap.title = s.description;
  wrap.append(el);
  return wrap;
}

// a number as people write it here: "1500,50" (or 1.500,50, or 1500.50); a text field,
// since <input type=number> follows the browser's locale and refuses the comma in some
const NUMBER = /^\s*-?(\d{1,3}(\.\d{3})+|\d+)([,.]\d+)?\s*$/;

/** "1.500,50" -> 1500.5; null when it is no number. */
export function readNumber(text) {
  const v = String(text ?? "").trim();
  if (!NUMBER.test(v)) return null;
  const grouped = /^-?\d{1,3}(\.\d{3})+(,\d+)?$/.test(v);
  const n = Number((grouped ? v.replaceAll(".", "") : v).replace(",", "."));
  return Number.isFinite(n) ? n : null;
}

function numberField(el, integer, name) {
  el.type = "text";
  el.inputMode = integer ? "numeric" : "decimal";
  el.dataset.kind = "number";
  if (name === "fine_brl") { el.placeholder = "1500,50"; el.title = t("fine.hint"); }
  const check = () => {
    const n = readNumber(el.value);
    el.setCustomValidity(!el.value || (n != null && (!integer || Number.isInteger(n))) ? "" : t("fine.hint"));
  };
  el.addEventListener("input", check);
}

/** A list of texts (the Auto's witnesses): one field each, and "add" up to the schema's
 * maxItems, instead of one textarea whose lines nobody was told about. */
function textList(doc, name, path, s) {
  const fs = document.createElement("fieldset");
  fs.dataset.path = path;
  fs.dataset.kind = "texts";
  fs.innerHTML = `<legend>${esc(label(name, s))}</legend><span class="hint">${esc(t("witness.hint"))}</span>`;
  const add = document.createElement("button");
  add.type = "button"; add.className = "secondary"; add.textContent = t("mv.add");
  const item = core(doc, s.items);
  const row = () => {
    const i = fs.querySelectorAll(":scope > label").length;
    const wrap = document.createElement("label");
    wrap.append(t("witness.n", { n: i + 1 }));
    const el = document.createElement("input");
    el.name = `${path}.${i}`;
    if (item.maxLength) el.maxLength = item.maxLength;
    wrap.append(el);
    fs.insertBefore(wrap, add);
    add.hidden = s.maxItems != null && i + 1 >= s.maxItems;
  };
  fs.append(add);
  add.addEventListener("click", row);
  row();
  row();
  return fs;
}

/** One fieldset per object, one field per scalar, a repeatable row per array of objects. */
function field(doc, name, path, s, required) {
  const c = core(doc, s);
  if (c.type === "array" && core(doc, c.items).type === "string") return textList(doc, name, path, c);
  if (c.type === "object" || c.properties) {
    const fs = document.createElement("fieldset");
    fs.dataset.path = path;
    fs.innerHTML = `<legend>${esc(label(name, c))}</legend>`;
    const req = new Set(c.required || []);
    for (const [k, sub] of Object.entries(c.properties || {})) fs.append(field(doc, k, `${path}.${k}`, sub, required && req.has(k)));
    return fs;
  }
  if (c.type === "array" && core(doc, c.items).properties) {
    const fs = document.createElement("fieldset");
    fs.dataset.path = path;
    fs.dataset.kind = "rows";
    fs.innerHTML = `<legend>${esc(label(name, c))}</legend>`;
    const add = document.createElement("button");
    add.type = "button"; add.className = "secondary"; add.textContent = t("mv.add");
    const item = core(doc, c.items);
    const row = () => {
      const i = fs.querySelectorAll(":scope > fieldset").length;
      const r = field(doc, `${name}.item`, `${path}.${i}`, item, false);
      r.querySelector("legend").textContent = `${label(name, c)} ${i + 1}`;
      fs.insertBefore(r, add);
    };
    fs.append(add);
    add.addEventListener("click", row);
    row();
    return fs;
  }
  return input(doc, name, path, s, required);
}

/** The body the form holds: empty fields left out, so the API's defaults apply. */
export function collect(form) {
  const body = {};
  for (const el of form.querySelectorAll("input, select, textarea")) {
    if (!el.name) continue;
    let v = el.value;
    if (el.dataset.kind === "bool") { if (!el.checked) continue; v = true; }
    else if (v === "" || v == null) continue;
    else if (el.dataset.kind === "number") v = readNumber(v) ?? v;  // a bad one is refused by the API
    else if (el.dataset.kind === "date") v = readDate(v)?.date ?? v;  // a bad one is refused by the API
    else if (el.dataset.kind === "datetime") v = localInputToIso(v) ?? v;
    const keys = el.name.split(".");
    let o = body;
    keys.slice(0, -1).forEach((k, i) => { o[k] ??= /^\d+$/.test(keys[i + 1]) ? [] : {}; o = o[k]; });
    o[keys.at(-1)] = v;
  }
  return compact(body);
}

/** Arrays without the holes left by empty rows ("Testemunha 1" blank, 2 filled). */
function compact(v) {
  if (Array.isArray(v)) return v.filter((x) => x != null && x !== "").map(compact);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, compact(x)]));
  return v;
}

/** The move form for ``lead``: a select of the moves the API allows and the fields of
 * the chosen one. ``onSubmit(body)`` sends it. */
export function moveForm(doc, lead, onSubmit) {
  const schema = changeSchema(doc);
  const form = document.createElement("form");
  form.className = "actions move";
  form.id = "workflow";
  const moves = lead.allowed_moves || [];
  if (!schema || !moves.length) return null;
  const props = schema.properties || {};
  form.innerHTML = `<label>${esc(t("wf.move"))}<select name="status">${moves.map((s) => `<option value="${esc(s)}">${esc(t("st." + s))}</option>`).join("")}</select></label>
    <div class="step-fields"></div><details class="more"><summary>${esc(t("mv.more"))}</summary><div class="more-fields"></div></details>
    <label>${esc(t("wf.reason"))}<textarea name="reason" rows="2" maxlength="${core(doc, props.reason || {}).maxLength || 500}"></textarea></label>
    <button type="submit">${esc(t("wf.apply"))}</button><span class="msg" role="status"></span>`;
  const sel = form.elements.status;
  const step = form.querySelector(".step-fields");
  const more = form.querySelector(".more-fields");
  const draw = () => {
    const to = sel.value;
    const want = (STEP_FIELDS[to] || []).filter((k) => k in props);
    step.replaceChildren(...want.map((k) => field(doc, k, k, props[k], NEEDED.includes(k))));
    const rest = Object.keys(props).filter((k) => !["status", "reason"].includes(k) && !want.includes(k));
    more.replaceChildren(...rest.map((k) => field(doc, k, k, props[k], false)));
    form.elements.reason.required = REASON_REQUIRED.includes(to);
  };
  sel.addEventListener("change", draw);
  draw();
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = collect(form);
    onSubmit(body, form.querySelector(".msg"));
  });
  return form;
}

/** A problem+json said in the user's language, from its stable code (the `type` URN)
 * and, for a refused body, the names of the fields it points at. */
export function problemText(err) {
  const p = err?.problem || {};
  const code = String(p.type || "").split(":").pop();
  let s = has("err." + code) ? t("err." + code) : t("err.http", { status: err?.status ?? "?" });
  // the server's own reason, when it gives one as a code with its figures
  const why = reasonText(p);
  if (why) s = why;
  if (code === "procedure-conflict" && Array.isArray(p.allowed)) {
    s += " " + t("err.allowed", { moves: p.allowed.map((m) => t("st." + m)).join(", ") || "—" });
  }
  // the body member at fault (the problem's stable `field` extension), in words
  if (p.field) s += " " + t("err.field", { field: fieldName(p.field) });
  if (Array.isArray(p.errors) && p.errors.length) {
    const names = p.errors.map((e) => String(e.loc || "").split(".").filter((x) => x !== "body" && !/^\d+$/.test(x)).map((x) => (has("fld." + x) ? t("fld." + x) : x)).join(" › "));
    s += " (" + [...new Set(names)].join("; ") + ")";
  }
  return s;
}

/** A problem's `reason` code and `facts` in the page's language; null without one. */
export function reasonText(p) {
  if (!p?.reason || !has("reason." + p.reason)) return null;
  const f = p.facts || {};
  return t("reason." + p.reason, { ...f, due: f.due ? dateText(f.due) : "" });
}

/** Say a refusal beside the field it names (opening "more data" if it sits there), and
 * take the mark off when that field is edited. */
export function markField(form, err) {
  for (const old of form.querySelectorAll(".field-error")) old.remove();
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const path = err?.problem?.field;
  const el = path && form.querySelector(`[name="${CSS.escape(path)}"]`);
  if (!el) return null;
  const note = document.createElement("span");
  note.className = "field-error";
  note.setAttribute("role", "alert");
  note.textContent = reasonText(err.problem) || problemText(err);
  el.setAttribute("aria-invalid", "true");
  el.after(note);
  const more = el.closest("details");
  if (more) more.open = true;
  el.addEventListener("input", () => { note.remove(); el.removeAttribute("aria-invalid"); }, { once: true });
  return el;
}

/** "notice.appear_by" as "Notificação para comparecimento › Comparecer até". */
export function fieldName(path) {
  return String(path).split(".").filter((x) => !/^\d+$/.test(x)).map((x) => (has("fld." + x) ? t("fld." + x) : x)).join(" › ");
}
