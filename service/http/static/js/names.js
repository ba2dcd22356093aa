// Names for codes the page would otherwise show raw: rule codes, key roles, the reasons
// a refused move gives (problem+json `reason`), the assignment of a lead. Each code has
// its words here and nowhere else; the code itself stays in a title (hover) as a hint.
import { extend, t, has } from "./i18n.js";

extend({
  "pt-BR": {
    "rule.BATH-SAIL": "banhistas: vela/remo", "rule.BATH-MOTOR": "banhistas: motor",
    "rule.BATH-APPROACH": "banhistas: aproximação", "rule.BATH-LAUNCH": "área de lançamento",
    "rule.SEC-BATHERS": "área de banhistas", "rule.SEC-MILITARY": "área militar", "rule.SEC-PLANT": "usina",
    "rule.SEC-ANCHORAGE": "fundeadouro", "rule.SEC-CHANNEL": "canal de acesso", "rule.SEC-PORT": "instalação portuária",
    "rule.SEC-PLATFORM": "plataforma", "rule.SEC-NOTICE": "Aviso aos Navegantes", "rule.SAR-DISTRESS": "socorro",
    "rule.BW-EXCH-200": "lastro: 200 mn", "rule.BW-EXCH-50": "lastro: 50 mn", "rule.BW-RECORD": "lastro: registro",
    "rule.PROC-SEAL": "embarcação lacrada", "rule.ATON-DAMAGE": "dano a sinal náutico", "rule.AIS-GAP": "sinal perdido",
    "rule.ID-TYPE-CLAIM": "tipo de Estado declarado", "rule.ID-MMSI-SHARED": "MMSI compartilhado",
    "rule.ID-MID-FLAG": "MID e bandeira divergentes", "rule.ID-STATIC-CHANGE": "identidade alterada",
    "rule.ID-INTERFERENCE": "interferência GNSS",
    "rule.ID-CIRCLE": "trajetória em círculos",
    "rule.ID-ON-LAND": "posição em terra",
    "rule.STS-ENCOUNTER": "encontro no mar", "rule.LOITER": "permanência suspeita",
    "role.viewer": "consulta", "role.inspector": "fiscal", "role.admin": "administração",
    "as.title": "Responsável", "as.none": "ninguém", "as.to": "Atribuir a", "as.go": "Atribuir", "as.me": "Atribuir a mim",
    "as.clear": "Retirar", "as.done": "Atribuído.", "as.cleared": "Atribuição retirada.", "as.history": "atribuído a {who}",
    "as.history.none": "atribuição retirada", "as.at": "{who}, desde {at}", "f.mine": "meus indícios",
    "count.one": "{n} indício ({shown} exibido)", "count.other": "{n} indícios ({shown} exibidos)",
    "count.about": "cerca de {n} indícios ({shown} exibidos)", "list.more": "Carregar mais",
    "dl.in.one": "vence amanhã", "vessel.points.one": "{n} posição", "rep.yes.one": "sim, {n} infração anterior",
    "rep.yes.other": "sim, {n} infrações anteriores", "ballast.points.one": "{n} ponto classificado",
    "reason.defence-term-running": "Nenhuma defesa foi recebida e o prazo de defesa corre até {due} ({basis}): o julgamento só pode vir depois dessa data.",
    "reason.defence-term-not-started": "O prazo de defesa ainda não começou: informe a ciência do Auto e do Laudo Técnico Ambiental (NORMAM-07/DPC 0404 b)); sem defesa recebida, não há julgamento antes de o prazo correr.",
    "fine.hint": "Use vírgula para os centavos: 1500,50", "witness.hint": "Uma testemunha por campo.",
    "witness.n": "Testemunha {n}", "file.pick": "Escolher arquivo", "file.none": "nenhum arquivo escolhido",
    "band.motor": "faixa a motor", "band.sail": "faixa de vela e remo", "band.rule": "faixa da regra", "band.null": "faixa",
  },
  en: {
    "rule.BATH-SAIL": "bathers: sail/oar", "rule.BATH-MOTOR": "bathers: engine",
    "rule.BATH-APPROACH": "bathers: approach", "rule.BATH-LAUNCH": "launch area",
    "rule.SEC-BATHERS": "bathing area", "rule.SEC-MILITARY": "military area", "rule.SEC-PLANT": "power plant",
    "rule.SEC-ANCHORAGE": "anchorage", "rule.SEC-CHANNEL": "access channel", "rule.SEC-PORT": "port facility",
    "rule.SEC-PLATFORM": "platform", "rule.SEC-NOTICE": "Notice to Mariners", "rule.SAR-DISTRESS": "distress",
    "rule.BW-EXCH-200": "ballast: 200 nm", "rule.BW-EXCH-50": "ballast: 50 nm", "rule.BW-RECORD": "ballast: record",
    "rule.PROC-SEAL": "sealed vessel", "rule.ATON-DAMAGE": "damage to a sea mark", "rule.AIS-GAP": "AIS silence",
    "rule.ID-TYPE-CLAIM": "state type claimed", "rule.ID-MMSI-SHARED": "shared MMSI",
    "rule.ID-MID-FLAG": "MID against flag", "rule.ID-STATIC-CHANGE": "identity changed",
    "rule.ID-INTERFERENCE": "GNSS interference",
    "rule.ID-CIRCLE": "track in circles",
    "rule.ID-ON-LAND": "position on land",
    "rule.STS-ENCOUNTER": "encounter at sea", "rule.LOITER": "loitering",
    "role.viewer": "viewer", "role.inspector": "inspector", "role.admin": "admin",
    "as.title": "Assigned to", "as.none": "nobody", "as.to": "Assign to", "as.go": "Assign", "as.me": "Assign to me",
    "as.clear": "Unassign", "as.done": "Assigned.", "as.cleared": "Unassigned.", "as.history": "assigned to {who}",
    "as.history.none": "unassigned", "as.at": "{who}, since {at}", "f.mine": "my leads",
    "count.one": "{n} lead ({shown} shown)", "count.other": "{n} leads ({shown} shown)",
    "count.about": "about {n} leads ({shown} shown)", "list.more": "Load more",
    "dl.in.one": "due tomorrow", "vessel.points.one": "{n} position", "rep.yes.one": "yes, {n} prior infraction",
    "rep.yes.other": "yes, {n} prior infractions", "ballast.points.one": "{n} point classified",
    "reason.defence-term-running": "No defence was received and its term runs until {due} ({basis}): the judgment can only come after it.",
    "reason.defence-term-not-started": "The defence term has not started: enter when the infractor knew of the Auto and of the Laudo (NORMAM-07/DPC 0404 b)); without a defence there is no judgment before the term ran out.",
    "fine.hint": "Decimals with a comma or a point: 1500,50", "witness.hint": "One witness per field.",
    "witness.n": "Witness {n}", "file.pick": "Choose a file", "file.none": "no file chosen",
    "band.motor": "engine band", "band.sail": "sail and oar band", "band.rule": "rule band", "band.null": "band",
  },
});

/** A rule code in words ("banhistas: motor"); an unknown code is shown as it is. */
export const ruleName = (code) => (has("rule." + code) ? t("rule." + code) : code || "—");

/** A text with its number in the right form: "key.one" for 1 where it exists, else the
 * plain (plural) key; Portuguese counts 0 as plural in speech ("0 indícios"). */
export function tn(key, n, vars = {}) {
  const k = n === 1 && has(key + ".one") ? key + ".one" : has(key + ".other") ? key + ".other" : key;
  return t(k, { n, ...vars });
}
