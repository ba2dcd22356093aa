// The admin's zone import (issue 40): one chart or register file sent to POST
// /zones/imports as `vigia zones import` would read it, then the map's zones redrawn.
// A zip goes base64-encoded: the API's request guard refuses any body holding a NUL byte.
import { getKey } from "./api.js";
import { t } from "./i18n.js";

function base64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export function zoneImport(form, out, onDone) {
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const file = form.querySelector("input[type=file]").files[0];
    if (!file) return;
    out.textContent = t("zi.sending");
    const zip = file.name.toLowerCase().endsWith(".zip");
    const body = zip ? base64(await file.arrayBuffer()) : await file.text();
    const res = await fetch("/zones/imports?name=" + encodeURIComponent(file.name), {
      method: "POST", body,
      headers: { "X-API-Key": getKey() || "", "Content-Type": zip ? "text/plain" : file.name.endsWith(".csv") ? "text/csv" : "application/geo+json" },
    });
    let report = null;
    try { report = await res.json(); } catch { /* not JSON */ }
    if (!res.ok) { out.textContent = `${t("zi.refused")}: ${report?.detail || res.status}`; return; }
    const c = report.counts || {};
    out.textContent = t("zi.done", { added: c.added || 0, updated: c.updated || 0, unchanged: c.unchanged || 0,
      retired: c.retired || 0, kept: (c.kept_edited || 0) + (c.kept_foreign || 0), skipped: report.skipped.length });
    onDone();
  });
}
