// A match's score sheet as a dialog: each round's points by seat, the totals, and a last
// column of what a finished round offers (its replay and deal check online, the coach's
// review in the practice). The table's score sheet (room.ts) and a finished practice
// match's (practice/box.ts) are drawn by it.

import { h, nameEl } from "./dom";
import { t } from "./i18n";

export interface ScoreSheet {
  /** The dialog's heading. */
  title: string;
  /** Each seat's name, in seat order. */
  names: string[];
  /** Each round's points by seat (null: the seat had no score that round). */
  rounds: (number | null)[][];
  totals: number[];
  /** The last column's heading cell. */
  linksHead: HTMLElement;
  /** The last cell of round `k` (from 1). */
  links: (k: number) => HTMLElement;
  /** What stands between the table and the close button (winners, play again). */
  after?: (HTMLElement | null)[];
  /** Shown above the table (nothing played yet). */
  before?: HTMLElement | null;
  close: () => void;
}

/** The last column's heading for the coach's reviews: its icon, named. */
export function reviewHead(): HTMLElement {
  return h(
    "th",
    { scope: "col", class: "links-col", title: t("coach.title"), "aria-label": t("coach.title") },
    "🔍",
  );
}

const points = (x: number | null) => (x === null ? "—" : x > 0 ? `+${x}` : String(x));

/** The score sheet's dialog (`#scores-modal`), closed by its button, Escape or a tap
 * beside it; not yet in the page. */
export function scoreSheet(sheet: ScoreSheet): HTMLElement {
  const { close } = sheet;
  const table = h(
    "table",
    { class: "score-table" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", { scope: "col" }, t("scores.round")),
        sheet.names.map((name) => h("th", { scope: "col" }, nameEl(name))),
        sheet.linksHead,
      ),
    ),
    h(
      "tbody",
      null,
      sheet.rounds.map((line, k) =>
        h(
          "tr",
          { "data-testid": `scores-round-${k + 1}` },
          h("th", { scope: "row" }, String(k + 1)),
          line.map((x) => h("td", { class: (x ?? 0) < 0 ? "neg" : "pos" }, points(x))),
          sheet.links(k + 1),
        ),
      ),
    ),
    h(
      "tfoot",
      null,
      h(
        "tr",
        { "data-testid": "scores-totals" },
        h("th", { scope: "row" }, t("scores.total")),
        sheet.totals.map((x) => h("td", null, String(x))),
        h("td", { class: "round-links" }),
      ),
    ),
  );
  return h(
    "div",
    {
      class: "modal-back",
      id: "scores-modal",
      onclick: (e: Event) => e.target === e.currentTarget && close(),
      onkeydown: (e: KeyboardEvent) => e.key === "Escape" && close(),
    },
    h(
      "div",
      {
        class: "modal",
        role: "dialog",
        "aria-modal": "true",
        "aria-label": t("scores.title"),
        "data-testid": "scores",
      },
      h("h2", null, sheet.title),
      sheet.before ?? null,
      h("div", { class: "scroll-x" }, table),
      ...(sheet.after ?? []),
      h(
        "div",
        { class: "row end" },
        h(
          "button",
          { type: "button", class: "primary", "data-testid": "scores-close", onclick: close },
          t("common.close"),
        ),
      ),
    ),
  );
}
