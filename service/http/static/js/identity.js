// A vessel's identity history in its panel (issue 34): each stored change of its name,
// call sign, IMO, ship type, length or beam (and an IMO failing its check digit), newest
// first, from GET /vessels/{mmsi}/identity. The words are in words.js.
import { t, timeEl, number, dateText } from "./i18n.js";
import { tn } from "./names.js";
import "./words.js";

const METRES = new Set(["length_m", "beam_m"]);

function shown(field, v) {
  if (v == null || v === "") return "—";
  return METRES.has(field) ? `${number(v)} m` : String(v);
}

function note(text) {
  const p = document.createElement("p");
  p.className = "count";
  p.textContent = text;
  return p;
}

function fillRows(tbody, rows) {
  for (const c of rows) {
    const tr = tbody.insertRow();
    tr.insertCell().append(timeEl(c.t));
    const field = tr.insertCell();
    field.textContent = t("idf." + c.field);
    field.title = `${c.field} · AIS ${c.msg_type} · ${c.source}`;
    tr.insertCell().textContent = c.field === "imo_check"
      ? t("idh.check_fails", { imo: c.after })
      : `${shown(c.field, c.before)} → ${shown(c.field, c.after)}`;
  }
}

/** The history as a small table (time, field, before → after), or a line saying there
 * is none; what the table leaves out (older changes, a day's changes past its cap) is
 * said under it. ``older(cursor)`` reads the next page (``history_next``): a button
 * adds its changes to the table. */
export function identityHistory(body, older) {
  const box = document.createElement("section");
  box.className = "identity";
  box.setAttribute("aria-labelledby", "identity-title");
  const h4 = document.createElement("h4");
  h4.id = "identity-title";
  h4.textContent = t("idh.title");
  box.append(h4);
  const rows = body?.history || [];
  if (!rows.length) {
    box.append(note(t("idh.none")));
    return box;
  }
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const key of ["idh.when", "idh.field", "idh.change"]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = t(key);
    head.append(th);
  }
  const tbody = table.createTBody();
  fillRows(tbody, rows);
  box.append(table);
  const left = note("");
  let shownRows = rows.length;
  let next = body.history_next;
  const more = document.createElement("button");
  more.type = "button"; more.className = "secondary"; more.textContent = t("idh.older");
  const says = () => {
    const n = (body.history_total || 0) - shownRows;
    left.textContent = n > 0 ? tn("idh.more", n) : "";
    more.hidden = !(next && older);
  };
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const page = await older(next);
      fillRows(tbody, page.history || []);
      shownRows += (page.history || []).length;
      next = page.history_next;
    } finally { more.disabled = false; says(); }
  });
  says();
  // only when the table leaves changes out: a short history says nothing more
  if ((body.history_total || 0) > rows.length) box.append(left, more);
  for (const d of body.history_not_kept || []) {
    box.append(note(t("idh.not_kept", { n: d.changes - d.kept, day: dateText(d.day), cap: body.history_day_cap })));
  }
  return box;
}
