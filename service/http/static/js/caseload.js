// The lead list as the server holds it (issue 39, docs/caseload.md): each choice of
// filters or order is one request, GET /leads?<filters>&sort=<newest|due>&limit=100, and
// "Carregar mais" follows the answer's `next` link (a cursor), so a lead a year old is
// as reachable as today's; the count is the server's (`numberMatched`, an estimate when
// `numberMatchedExact` is false). A lead from the stream joins the list where the
// server's order puts it, if it meets the filters and falls inside what is loaded; the
// leads themselves stay in the panel's store (its Map), which the map and detail read.
import { api } from "./api.js";
import { assignee } from "./assign.js";

export const PAGE = 100;
const SAR = "SAR-DISTRESS";
/** The newest distress leads meeting the filters are asked for beside the first page:
 * a beacon stays on top of the list in either order, whatever page it would be on. */
const PINNED = 20;

const ms = (iso) => Date.parse(iso || "") || 0;
const byId = (a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const newest = (a, b) => ms(b.started_at) - ms(a.started_at) || byId(a, b);
const byDue = (a, b) => (a.due == null) - (b.due == null) || (a.due < b.due ? -1 : a.due > b.due ? 1 : 0) || newest(a, b);

/** The server's orders (service/db/lead_pages.py), each total: newest = started_at
 * descending, then id; due = a pending deadline first, soonest first, then newest. */
export const order = (sort) => (sort === "due" ? byDue : newest);

/** The filter form's values: {rule, zone, authority, status, sort, mine}. */
export const filtersOf = (form) => Object.fromEntries(new FormData(form));

/** Whether lead l meets the filters f (as the server's query would), ``me`` the key's
 * name for "meus indícios"; silenced leads are not listed by default. */
export function matches(l, f, me) {
  return (!f.rule || l.rule === f.rule) && (!f.zone || l.zone_id === f.zone) &&
    (!f.authority || l.authority === f.authority) && (!f.status || l.status === f.status) &&
    (!f.mine || assignee(l) === me) && !l.silenced;
}

/** The /leads query string of filters f (``over`` replaces or adds parameters). */
export function query(f, me, over = {}) {
  const q = new URLSearchParams();
  const set = (k, v) => { if (v) q.set(k, v); };
  set("rule", f.rule); set("zone_id", f.zone); set("authority", f.authority); set("status", f.status);
  set("assignee", f.mine ? me : "");
  q.set("sort", f.sort === "due" ? "due" : "newest");
  q.set("limit", String(PAGE));
  for (const [k, v] of Object.entries(over)) q.set(k, String(v));
  return q.toString();
}

export class Caseload {
  /** ``store(lead)`` keeps a lead the server sent in the panel's store. */
  constructor(store) {
    this.store = store;
    this.ids = new Set();  // the leads in the list (pages, pinned beacons, the stream)
    this.f = {};
    this.me = "";
    this.key = null;  // the query string of what is loaded
    this.total = null;  // the server's numberMatched, kept up to date by what arrives
    this.exact = true;
    this.next = null;  // the `next` link: more to load
    this.edge = null;  // the last lead of the last page (its sort key when it came)
    this.gen = 0;  // a newer request makes an older answer stale
    this.busy = false;  // a page is on its way
    this.loading = false;  // a first page is on its way
    this.meanwhile = [];  // leads that arrived meanwhile
  }

  /** Ask for the first page of filters f; false when a newer request overtook it. */
  async load(f, me) {
    const gen = ++this.gen;
    const key = query(f, me);
    this.busy = this.loading = true;
    this.meanwhile = [];
    try {
      const [page, pinned] = await Promise.all([api("/leads?" + key),
        f.rule ? null : api("/leads?" + query({ ...f, sort: "newest" }, me, { rule: SAR, limit: PINNED }))]);
      if (gen !== this.gen) return false;
      Object.assign(this, { f, me, key, ids: new Set(), next: null, edge: null });
      for (const l of pinned?.leads || []) this.add(l);
      this.take(page);
      // a lead may have come on the stream between the server's answer and now
      for (const l of this.meanwhile.splice(0)) this.admit(l, null, false);
      return true;
    } finally {
      if (gen === this.gen) this.busy = this.loading = false;
    }
  }

  /** Follow the `next` link: the following page, appended; false if there is none. */
  async more() {
    if (!this.next || this.busy) return false;
    const gen = this.gen;
    const u = new URL(this.next, location.href);
    this.busy = true;
    try {
      const page = await api(u.pathname + u.search);
      if (gen !== this.gen) return false;
      this.take(page);
      return true;
    } finally {
      if (gen === this.gen) this.busy = false;
    }
  }

  add(l) { this.store(l); this.ids.add(l.id); }

  take(page) {
    for (const l of page.leads) this.add(l);
    this.total = page.numberMatched;
    this.exact = page.numberMatchedExact !== false;
    this.next = page.links?.find((x) => x.rel === "next")?.href || null;
    const last = page.leads.at(-1);
    if (last) this.edge = { id: last.id, started_at: last.started_at, due: last.due ?? null };
  }

  /** Whether l falls inside what is loaded: the list is whole, or l comes before the
   * last lead loaded in the list's order (after it, it comes with a later page). */
  inside(l) { return !this.next || !this.edge || order(this.f.sort)(l, this.edge) <= 0; }

  /** A lead from the stream, the poll or an answer to a change (``old``: the version
   * held before it, if any; ``fresh``: just opened). It joins the list or leaves it,
   * and the count follows: a new match adds one, a lead that no longer matches takes
   * one off (the server counted it once); a lead never seen is taken as counted. */
  admit(l, old, fresh) {
    if (this.loading) this.meanwhile.push(l);
    if (this.key === null) return;  // no list yet: the first page decides
    const now = matches(l, this.f, this.me);
    const was = old ? matches(old, this.f, this.me) : fresh ? false : now;
    if (this.total != null) this.total += (now ? 1 : 0) - (was ? 1 : 0);
    if (!now) this.ids.delete(l.id);
    else if (l.rule === SAR || this.inside(l)) this.ids.add(l.id);
  }

  /** The list's rows from the store: in the server's order, distress beacons on top. */
  rows(leads) {
    const out = [];
    for (const id of this.ids) {
      const l = leads.get(id);
      if (l && matches(l, this.f, this.me) && (l.rule === SAR || this.inside(l))) out.push(l);
    }
    const cmp = order(this.f.sort);
    return out.sort((a, b) => (b.rule === SAR) - (a.rule === SAR) || cmp(a, b));
  }
}

/** The rule and status codes and the register's offices the service knows (the leads'
 * queryables), so the filters offer what no loaded lead has; empty if it does not say. */
export async function catalogue() {
  try {
    const doc = await api("/collections/leads/queryables", { accept: "application/schema+json" });
    const p = doc.properties || {};
    return { rules: p.rule?.enum || [], statuses: p.status?.enum || [], authorities: p.authority?.examples || [] };
  } catch { return { rules: [], statuses: [], authorities: [] }; }
}
