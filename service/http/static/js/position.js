// Positions an officer can read out to a rescue coordination centre: degrees and
// decimal minutes (the maritime form, 22°59,400'S 043°10,800'W) and decimal degrees,
// with a button that copies both.
import { t, getLang } from "./i18n.js";

/** One coordinate in degrees and decimal minutes, to the thousandth of a minute. Works in
 * integer thousandths so 59,9996' carries to the next degree instead of printing 60,000'. */
export function ddmPart(value, isLat, sep = ",") {
  const hemi = isLat ? (value < 0 ? "S" : "N") : (value < 0 ? "W" : "E");
  const total = Math.round(Math.abs(value) * 60000);
  const deg = Math.floor(total / 60000);
  const milli = total % 60000;
  const min = `${String(Math.floor(milli / 1000)).padStart(2, "0")}${sep}${String(milli % 1000).padStart(3, "0")}`;
  return `${String(deg).padStart(isLat ? 2 : 3, "0")}°${min}'${hemi}`;
}

export function ddm(lat, lon, sep = getLang() === "en" ? "." : ",") {
  return `${ddmPart(lat, true, sep)} ${ddmPart(lon, false, sep)}`;
}

export function decimal(lat, lon) {
  return `${lat.toFixed(6)}, ${lon.toFixed(6)}`;
}

/** "há 3 min" / "3 min ago" from an ISO instant. */
export function age(iso, now = Date.now()) {
  const s = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  // "auto" says "agora" / "now" for zero ("há 0 segundo" read as a broken clock)
  const rtf = new Intl.RelativeTimeFormat(getLang(), { numeric: "auto" });
  if (s < 5) return rtf.format(0, "second");
  if (s < 90) return rtf.format(-s, "second");
  if (s < 5400) return rtf.format(-Math.round(s / 60), "minute");
  if (s < 172800) return rtf.format(-Math.round(s / 3600), "hour");
  return rtf.format(-Math.round(s / 86400), "day");
}

/** A position block: both forms and a copy button. */
export function positionEl(lat, lon, extra = "") {
  const box = document.createElement("span");
  box.className = "pos";
  const text = `${ddm(lat, lon)} (${decimal(lat, lon)})`;
  const code = document.createElement("code");
  code.textContent = ddm(lat, lon);
  const dec = document.createElement("small");
  dec.textContent = ` ${decimal(lat, lon)}${extra ? " · " + extra : ""} `;
  const b = document.createElement("button");
  b.type = "button"; b.className = "secondary copy"; b.textContent = t("pos.copy");
  b.dataset.copy = text;
  b.addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(text); b.textContent = t("pos.copied"); }
    catch { getSelection().selectAllChildren(box); b.textContent = t("pos.selected"); }
  });
  box.append(code, dec, b);
  return box;
}
