// The address follows the selected lead and the list's filters
// (/ui/#/lead/<id>?rule=…&mine=1), so a lead can be sent to a colleague as a link:
// opened in a fresh page, after the key is given, it opens that lead with those filters.
// The key never goes into the address (it stays in the tab's session storage).
const FILTERS = ["rule", "zone", "authority", "status", "sort", "mine"];

/** {lead, filters} from an address's fragment; nothing for an unknown one. */
export function readLink(hash = location.hash) {
  const m = /^#\/(?:lead\/([^?]+))?(?:\?(.*))?$/.exec(hash || "");
  if (!m) return { lead: null, filters: {} };
  const q = new URLSearchParams(m[2] || "");
  const filters = {};
  for (const k of FILTERS) if (q.has(k)) filters[k] = q.get(k);
  return { lead: m[1] ? decodeURIComponent(m[1]) : null, filters };
}

/** Put the selected lead and the filters in the address, without a new history entry
 * per click (the back button leaves the dashboard, as before). */
export function writeLink(lead, form) {
  const q = new URLSearchParams();
  for (const k of FILTERS) {
    const el = form.elements[k];
    if (!el) continue;
    const v = el.type === "checkbox" ? (el.checked ? "1" : "") : el.value;
    if (v && !(k === "sort" && v === "newest")) q.set(k, v);
  }
  const s = q.toString();
  const hash = `#/${lead ? "lead/" + encodeURIComponent(lead) : ""}${s ? "?" + s : ""}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

/** Set the filters a link carries; a value the list has not offered yet is added (its
 * words come with the next render). */
export function applyFilters(form, filters) {
  for (const k of FILTERS) {
    const el = form.elements[k];
    if (!el) continue;
    const v = filters[k] ?? "";
    if (el.type === "checkbox") { el.checked = v === "1"; continue; }
    if (v && ![...el.options].some((o) => o.value === v)) el.add(new Option(v, v));
    el.value = v || (k === "sort" ? "newest" : "");
  }
}
