// The lobby's practice on this device (offline): settings (variant, 2–4 players with the
// short game for 2, a bot level per seat, the turn timer, the end condition), resume the
// match kept on this device, and the history of finished practice matches with their
// score sheets (each finished round reviewed by the coach from there). The choices come
// from the catalogue; the worker's engine checks them.

import { variantFacts, variantName, variants } from "../catalogue";
import { practiceReviewButton } from "../coach";
import { clear, h } from "../dom";
import { formatWhen, t } from "../i18n";
import { reviewHead, scoreSheet } from "../scoresheet";
import { practiceMark, warmPractice } from "./local";
import {
  dropGame,
  history,
  HISTORY_KEPT,
  loadGame,
  type HistoryEntry,
  type PracticeSettings,
} from "./store";

const TURNS = [null, 15, 30, 60, 120];
const LEVELS = ["easy", "normal", "hard"];
export const NEW_KEY = "remi.practice.new";

/** The settings of the last practice started here, shown again in the box. */
export const LAST_KEY = "remi.practice.last";

function lastSettings(): Partial<PracticeSettings> {
  try {
    return (JSON.parse(localStorage.getItem(LAST_KEY) ?? "null") ??
      {}) as Partial<PracticeSettings>;
  } catch {
    return {};
  }
}

function remember(settings: PracticeSettings): void {
  try {
    localStorage.setItem(LAST_KEY, JSON.stringify(settings));
  } catch {
    /* not remembered */
  }
}

/** Start a new practice match: the room page reads it once (a reload then resumes). */
export function startLocal(settings: PracticeSettings, go: (hash: string) => void): void {
  practiceMark("practice:start");
  remember(settings);
  warmPractice();
  sessionStorage.setItem(NEW_KEY, JSON.stringify(settings));
  go("#/practice");
}

/** A finished match's score sheet (as the practice table's, room.ts): a 🔍 per round
 * kept with it opens the coach's review of that round for the player (seat 0). */
function historyScores(e: HistoryEntry): void {
  document.getElementById("scores-modal")?.remove();
  const name = (i: number) =>
    i === 0 ? (e.name ?? t("practice.you")) : t("practice.bot", { n: i });
  const faces = variantFacts(e.settings.variant)?.faces ?? "cards";
  const close = () => modal.remove();
  const review = (k: number) => {
    const round = e.rounds?.find((r) => r.number === k);
    return h(
      "td",
      { class: "round-links" },
      round ? practiceReviewButton(k, 0, faces, close, round) : null,
    );
  };
  const modal = scoreSheet({
    title: `${t("scores.title")} · ${variantName(e.settings.variant)}`,
    names: e.scores.totals.map((_, i) => name(i)),
    rounds: e.scores.rounds,
    totals: e.scores.totals,
    linksHead: reviewHead(),
    links: review,
    close,
  });
  document.body.append(modal);
  modal.querySelector<HTMLElement>("[data-testid=scores-close]")?.focus();
}

function historyList(entries: HistoryEntry[]): HTMLElement {
  if (!entries.length)
    return h(
      "p",
      { class: "muted", "data-testid": "practice-history-empty" },
      t("practice.history.none"),
    );
  return h(
    "ol",
    { class: "practice-history", "data-testid": "practice-history" },
    entries.slice(0, HISTORY_KEPT).map((e) => {
      const when = formatWhen(e.finished_at);
      const totals = e.scores.totals
        .map(
          (x, i) =>
            `${i === 0 ? (e.name ?? t("practice.you")) : t("practice.bot", { n: i })}: ${x}`,
        )
        .join(" · ");
      const won = e.scores.winners.includes(0);
      return h(
        "li",
        { "data-testid": "practice-history-entry" },
        h("strong", null, variantName(e.settings.variant)),
        ` · ${when} · ${t("practice.history.rounds", { n: e.scores.rounds.length })} · `,
        h(
          "span",
          { class: won ? "pos" : "neg" },
          won ? t("practice.history.won") : t("practice.history.lost"),
        ),
        h("div", { class: "muted" }, totals),
        h(
          "button",
          {
            type: "button",
            class: "small",
            "data-testid": "practice-history-scores",
            onclick: () => historyScores(e),
          },
          t("scores.title"),
        ),
      );
    }),
  );
}

export function localPracticeBox(go: (hash: string) => void): HTMLElement {
  // The last settings started here, where the catalogue still has them.
  const last = lastSettings();
  const first =
    last.variant && variantFacts(last.variant) ? last.variant : (variants()[0]?.id ?? "remi");
  const variant = h(
    "select",
    { "aria-label": t("settings.variant"), "data-testid": "local-variant" },
    variants().map((v) => h("option", { value: v.id }, variantName(v.id))),
  );
  variant.value = first;
  const seats = h("select", { "aria-label": t("settings.seats"), "data-testid": "local-seats" });
  const short = h("input", { type: "checkbox", "data-testid": "local-short" });
  const shortRow = h("label", { class: "check" }, short, " ", t("settings.short"));
  const levels = h("div", { class: "row wrap", "data-testid": "local-levels" });
  const turn = h(
    "select",
    { "aria-label": t("settings.turn"), "data-testid": "local-turn" },
    TURNS.map((n) =>
      h(
        "option",
        { value: n === null ? "" : String(n) },
        n === null ? t("practice.turn.off") : t("settings.turn.s", { n }),
      ),
    ),
  );
  const end = h(
    "select",
    { "aria-label": t("settings.end"), "data-testid": "local-end" },
    h("option", { value: "one" }, t("practice.end.one")),
    h("option", { value: "rounds" }, t("settings.end.rounds")),
    h("option", { value: "target" }, t("settings.end.target")),
  );
  const endValue = h("input", {
    type: "number",
    min: 1,
    value: 3,
    "aria-label": t("settings.rounds"),
    "data-testid": "local-end-value",
    hidden: true,
  });
  const resume = h("div", { class: "row" });
  const past = h("div", null, h("p", { class: "muted" }, t("common.loading")));

  const levelSelects: HTMLSelectElement[] = [];
  const layout = () => {
    const facts = variantFacts(variant.value);
    const min = facts?.players.min ?? 2;
    const max = facts?.players.max ?? 4;
    const was = Number(seats.value) || max;
    clear(seats);
    for (let n = min; n <= max; n++) seats.append(h("option", { value: String(n) }, String(n)));
    seats.value = String(Math.min(max, Math.max(min, was)));
    const n = Number(seats.value);
    shortRow.hidden = !(facts?.short_game && n === 2);
    if (shortRow.hidden) short.checked = false;
    while (levelSelects.length < n - 1) {
      const i = levelSelects.length + 1;
      const sel = h(
        "select",
        { "aria-label": t("practice.bot.level", { n: i }), "data-testid": `local-level-${i}` },
        LEVELS.map((l) => h("option", { value: l }, t(`settings.bot.${l}`))),
      );
      sel.value = "normal";
      levelSelects.push(sel);
    }
    clear(levels);
    levelSelects
      .slice(0, n - 1)
      .forEach((sel, k) =>
        levels.append(h("label", null, t("practice.bot", { n: k + 1 }), " ", sel)),
      );
    endValue.hidden = end.value === "one";
    endValue.setAttribute(
      "aria-label",
      end.value === "target" ? t("settings.target") : t("settings.rounds"),
    );
  };
  if (last.variant === first) {
    if (last.seats) seats.append(h("option", { value: String(last.seats) }, String(last.seats)));
    if (last.seats) seats.value = String(last.seats);
  }
  layout(); // the seats the variant has (the remembered count, if it has it)
  if (last.variant === first) {
    short.checked = !!last.short_game && !shortRow.hidden;
    (last.bot_levels ?? []).forEach((l, k) => {
      if (levelSelects[k] && LEVELS.includes(l)) levelSelects[k].value = l;
    });
  }
  if (last.turn_seconds !== undefined)
    turn.value = last.turn_seconds === null ? "" : String(last.turn_seconds);
  if (last.end?.kind === "target") {
    end.value = "target";
    endValue.value = String(last.end.points);
  } else if (last.end?.kind === "rounds" && last.end.rounds > 1) {
    end.value = "rounds";
    endValue.value = String(last.end.rounds);
  }
  variant.addEventListener("change", layout);
  seats.addEventListener("change", layout);
  end.addEventListener("change", () => {
    if (end.value === "target" && Number(endValue.value) < 50) endValue.value = "500";
    if (end.value === "rounds" && Number(endValue.value) > 50) endValue.value = "3";
    layout();
  });
  layout();

  const settings = (): PracticeSettings => {
    const n = Number(seats.value);
    const v = Math.max(1, Math.floor(Number(endValue.value) || 1));
    return {
      variant: variant.value,
      seats: n,
      short_game: short.checked,
      bot_levels: levelSelects.slice(0, n - 1).map((s) => s.value),
      turn_seconds: turn.value ? Number(turn.value) : null,
      end:
        end.value === "target"
          ? { kind: "target", points: v }
          : { kind: "rounds", rounds: end.value === "one" ? 1 : v },
    };
  };

  // Every choice is remembered as it is made (and at Start): the box shows it next time.
  for (const el of [variant, seats, short, turn, end, endValue, levels])
    el.addEventListener("change", () => remember(settings()));

  void loadGame().then(
    (kept) => {
      clear(resume);
      if (!kept) return;
      warmPractice(); // a kept match: the player is likely to resume it
      resume.append(
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-testid": "local-resume",
            onclick: () => go("#/practice"),
          },
          t("practice.resume", { variant: variantName(kept.settings.variant) }),
        ),
        h(
          "button",
          {
            type: "button",
            class: "small",
            "data-testid": "local-drop",
            onclick: async () => {
              await dropGame();
              clear(resume);
            },
          },
          t("practice.drop"),
        ),
      );
    },
    () => undefined,
  );
  void history().then(
    (entries) => {
      clear(past);
      past.append(historyList(entries));
    },
    () => clear(past),
  );

  return h(
    "section",
    // Reaching into the box (a setting chosen, a tap, the keyboard) starts Pyodide while
    // the player chooses; looking at the lobby does not.
    {
      class: "card practice local",
      "data-testid": "local-practice",
      onpointerdown: warmPractice,
      onfocusin: warmPractice,
    },
    h("h2", null, t("practice.title")),
    h("p", { class: "muted" }, t("practice.hint")),
    resume,
    h(
      "div",
      { class: "row wrap" },
      h("label", null, t("settings.variant"), " ", variant),
      h("label", null, t("practice.players"), " ", seats),
    ),
    shortRow,
    levels,
    h(
      "div",
      { class: "row wrap" },
      h("label", null, t("settings.turn"), " ", turn),
      h("label", null, t("settings.end"), " ", end),
      endValue,
    ),
    h(
      "div",
      { class: "row" },
      h(
        "button",
        {
          type: "button",
          class: "primary big",
          "data-testid": "local-start",
          onclick: () => startLocal(settings(), go),
        },
        t("practice.start"),
      ),
    ),
    h("h3", null, t("practice.history")),
    past,
  );
}
