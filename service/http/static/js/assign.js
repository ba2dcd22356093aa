// Who works a lead: PUT /leads/{id}/assignment names an officer (GET /officers lists
// the keys that may move leads), and the lead carries it as procedure.assignment
// {officer, by, at}; the change is a row of the lead's history.
import { api } from "./api.js";
import { t, timeText } from "./i18n.js";
import { esc } from "./map.js";
import { problemText } from "./moveform.js";
import "./names.js";

/** The officer a lead is assigned to, or null. */
export const assignee = (l) => l?.procedure?.assignment?.officer || null;

export class Assignment {
  constructor(panel) {
    this.panel = panel;
    this.officers = null;
  }

  /** "Ana Lima, desde 04/12/2026 15:02:11" or "ninguém". */
  static shown(l) {
    const a = l.procedure?.assignment;
    return a ? t("as.at", { who: a.officer, at: timeText(a.at) }) : t("as.none");
  }

  /** A history row that only changed the assignment, in words; null for any other. */
  static historyText(x) {
    if (x.from !== x.to || !x.after || !("assignment" in x.after)) return null;
    const a = x.after.assignment;
    return a ? t("as.history", { who: a.officer }) : t("as.history.none");
  }

  names() {
    this.officers ||= api("/officers").then((r) => r.officers.map((o) => o.name), () => []);
    return this.officers;
  }

  /** The assignment form: a list of officers, "assign", "assign to me", "take off". */
  form(l) {
    const f = document.createElement("form");
    f.className = "actions assign";
    f.id = "assign";
    const me = this.panel.session.name;
    const cur = assignee(l);
    f.innerHTML = `<label>${esc(t("as.to"))}<select name="officer"></select></label>
      <button type="submit">${esc(t("as.go"))}</button>
      <button type="button" class="secondary" data-act="me">${esc(t("as.me"))}</button>
      ${cur ? `<button type="button" class="secondary" data-act="clear">${esc(t("as.clear"))}</button>` : ""}
      <span class="msg" role="status"></span>`;
    const sel = f.elements.officer;
    const fill = (names) => {
      const all = [...new Set([cur, me, ...names].filter(Boolean))].sort((a, b) => a.localeCompare(b));
      sel.replaceChildren(...all.map((n) => new Option(n, n)));
      sel.value = cur || me;
    };
    fill([]);
    this.names().then(fill);
    const send = async (officer) => {
      const msg = f.querySelector(".msg");
      try {
        const out = await api(`/leads/${encodeURIComponent(l.id)}/assignment`, { method: "PUT", body: { officer } });
        this.panel.notice = { id: l.id, text: t(officer ? "as.done" : "as.cleared"), until: Date.now() + 15_000 };
        this.panel.put(out);
        await this.panel.select(l.id, { fit: false });
      } catch (err) { msg.textContent = `${t("err")}: ${problemText(err)}`; msg.className = "msg error"; }
    };
    f.addEventListener("submit", (e) => { e.preventDefault(); send(sel.value); });
    f.querySelector("[data-act=me]").addEventListener("click", () => send(me));
    f.querySelector("[data-act=clear]")?.addEventListener("click", () => send(null));
    return f;
  }
}
