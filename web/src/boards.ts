// Leaderboards and player profiles, each on its own route so
// that the lobby stays short on a phone: #/leaderboard/<variant> (by rating in the
// variant) or #/leaderboard/balance, and #/player/<id>. The server computes everything
// (ratings: openskill's Plackett–Luce, docs/economy.md); these pages only show its pages
// of rows, one "more" at a time.
import { accountChip } from "./account";
import * as api from "./api";
import { replayHash } from "./replay";
import { loadCatalogue, variantName, variants } from "./catalogue";
import { clear, h, nameEl } from "./dom";
import { formatWhen, t } from "./i18n";
import { showApiError } from "./lobby";
import type { App } from "./main";

type Page = { dispose(): void; relabel(): void };

function topbar(app: App, title: string): HTMLElement {
  return h(
    "header",
    { class: "topbar" },
    h(
      "button",
      {
        type: "button",
        class: "icon back",
        "aria-label": t("common.back"),
        "data-testid": "back",
        onclick: () => app.go("#/"),
      },
      "←",
    ),
    h("h1", null, title),
    h("span", { class: "spacer" }),
    app.player ? accountChip() : null,
    app.langButton(),
  );
}

/** The rating as players know it: 1500 for a new player, 40 points per unit of the model's
 * value (openskill's ordinal mu − 3·sigma, 0 for a new player; docs/economy.md). The order is
 * the model's. */
export const shownRating = (ordinal: number): number => Math.round(1500 + 40 * ordinal);
const fmtRating = (r: number | null) => (r === null ? "—" : String(shownRating(r)));
const pct = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)}%`);

function playerLink(id: string, name: string): HTMLElement {
  return h("a", { href: `#/player/${encodeURIComponent(id)}`, class: "player-link" }, nameEl(name));
}

/** Draw once the catalogue is here (the variants' names and tabs come from it). */
function withCatalogue(draw: () => void, alive: () => boolean): void {
  if (variants().length) {
    draw();
    return;
  }
  loadCatalogue().then(
    () => {
      if (alive()) draw();
    },
    (err) => {
      if (alive()) showApiError(err);
    },
  );
}

/** #/leaderboard/<variant|balance>: a tab per variant and one for the balance. */
export function renderLeaderboard(app: App, which: string): Page {
  let disposed = false;
  const draw = () => {
    clear(app.root);
    const ids = variants().map((v) => v.id);
    const tab = which === "balance" || ids.includes(which) ? which : (ids[0] ?? "balance");
    const tabs = h(
      "nav",
      { class: "tabs", "aria-label": t("board.tabs"), "data-testid": "board-tabs" },
      [...ids, "balance"].map((id) =>
        h(
          "a",
          {
            href: `#/leaderboard/${encodeURIComponent(id)}`,
            class: id === tab ? "tab current" : "tab",
            "aria-current": id === tab ? "page" : null,
            "data-testid": `board-tab-${id}`,
          },
          id === "balance" ? t("board.balance") : variantName(id),
        ),
      ),
    );
    const body = h("tbody", { "data-testid": "board-rows" });
    const more = h(
      "button",
      { type: "button", hidden: true, "data-testid": "board-more" },
      t("board.more"),
    );
    const empty = h(
      "p",
      { class: "muted", hidden: true, "data-testid": "board-empty" },
      t("board.empty"),
    );
    const head =
      tab === "balance"
        ? [t("board.place"), t("board.player"), t("board.balanceCol")]
        : [t("board.place"), t("board.player"), t("board.rating"), t("board.matches")];
    const table = h(
      "table",
      { class: "board", "data-testid": "board" },
      h(
        "caption",
        null,
        tab === "balance"
          ? t("board.balance.caption")
          : t("board.rating.caption", { variant: variantName(tab) }),
      ),
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          head.map((x) => h("th", { scope: "col" }, x)),
        ),
      ),
      body,
    );
    let cursor: string | null = null;
    const load = async () => {
      more.disabled = true;
      try {
        const page =
          tab === "balance" ? await api.balanceBoard(cursor) : await api.ratingBoard(tab, cursor);
        if (disposed) return;
        for (const row of page.rows as (api.RatingRow | api.BalanceRow)[]) {
          const me = app.player?.id === row.player_id;
          const cells =
            "balance" in row ? [String(row.balance)] : [fmtRating(row.rating), String(row.matches)];
          body.append(
            h(
              "tr",
              { class: me ? "me" : null, "data-testid": "board-row", "data-player": row.player_id },
              h("td", { class: "num" }, String(row.place)),
              h("td", null, playerLink(row.player_id, row.display_name)),
              cells.map((c) => h("td", { class: "num" }, c)),
            ),
          );
        }
        cursor = page.next_cursor;
        more.hidden = cursor === null;
        empty.hidden = body.children.length > 0;
      } catch (err) {
        if (!disposed) showApiError(err);
      } finally {
        more.disabled = false;
      }
    };
    more.addEventListener("click", () => void load());
    app.root.append(
      h(
        "main",
        { class: "lobby boards", "data-testid": "leaderboard" },
        topbar(app, t("board.title")),
        tabs,
        h(
          "section",
          { class: "card" },
          table,
          empty,
          more,
          tab === "balance" ? null : h("p", { class: "muted small" }, t("board.rating.hint")),
        ),
      ),
    );
    void load();
  };
  withCatalogue(draw, () => !disposed);
  return {
    dispose() {
      disposed = true;
    },
    relabel() {
      withCatalogue(draw, () => !disposed);
    },
  };
}

/** A small line of the ratings after each match (oldest on the left). */
function ratingLine(points: api.RatingPoint[]): SVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const w = 240;
  const hgt = 48;
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  svg.setAttribute("class", "spark");
  svg.setAttribute("aria-hidden", "true"); // the caption below says it in words
  const values = [points[0].rating_before, ...points.map((p) => p.rating)];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || 1;
  const xy = values.map((v, i) => [
    (i / Math.max(1, values.length - 1)) * (w - 8) + 4,
    hgt - 4 - ((v - lo) / span) * (hgt - 8),
  ]);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", xy.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(" "));
  svg.append(line);
  return svg;
}

/** #/player/<id>: ratings per variant with their history, the figures, the matches. */
export function renderProfile(app: App, playerId: string): Page {
  let disposed = false;
  const draw = () => {
    clear(app.root);
    const main = h(
      "main",
      { class: "lobby profile", "data-testid": "profile" },
      topbar(app, t("profile.title")),
    );
    app.root.append(main);
    api.profile(playerId).then(
      (p) => {
        if (disposed) return;
        main.append(
          h(
            "section",
            { class: "card" },
            h("h2", { "data-testid": "profile-name" }, nameEl(p.display_name)),
            h(
              "p",
              { class: "muted" },
              t("profile.since", { date: formatWhen(p.created_at, "date") }),
              " · ",
              t("account.balance"),
              " ",
              h("strong", { "data-testid": "profile-balance" }, String(p.balance)),
            ),
          ),
        );
        if (!p.variants.length)
          main.append(
            h("section", { class: "card muted", "data-testid": "profile-none" }, t("profile.none")),
          );
        for (const v of p.variants) {
          const history = p.history.filter((x) => x.variant === v.variant).reverse();
          const fig = (key: string, value: string) =>
            h(
              "div",
              { class: "fig", "data-testid": `fig-${v.variant}-${key}` },
              h("dt", null, t(`profile.${key}`)),
              h("dd", null, value),
            );
          main.append(
            h(
              "section",
              { class: "card figures", "data-testid": `profile-${v.variant}` },
              h("h3", null, variantName(v.variant)),
              h(
                "dl",
                { class: "figs" },
                fig("rating", fmtRating(v.rating)),
                fig("matches", String(v.matches)),
                fig("wins", String(v.wins)),
                fig("rounds", String(v.rounds)),
                fig(
                  "average",
                  v.average_round_score === null ? "—" : v.average_round_score.toFixed(1),
                ),
                fig("openings", pct(v.opening_rate)),
                fig("goingOut", pct(v.going_out_rate)),
              ),
              history.length ? ratingLine(history) : null,
              history.length
                ? h(
                    "p",
                    { class: "muted small spark-caption" },
                    t("profile.history.aria", {
                      from: fmtRating(history[0].rating_before),
                      to: fmtRating(history[history.length - 1].rating),
                      n: history.length,
                    }),
                  )
                : null,
            ),
          );
        }
        main.append(matchesBox(playerId, () => disposed));
      },
      (err) => {
        if (!disposed) showApiError(err);
      },
    );
  };
  withCatalogue(draw, () => !disposed);
  return {
    dispose() {
      disposed = true;
    },
    relabel() {
      withCatalogue(draw, () => !disposed);
    },
  };
}

function matchesBox(playerId: string, gone: () => boolean): HTMLElement {
  const list = h("ul", { class: "matches", "data-testid": "profile-matches" });
  const more = h(
    "button",
    { type: "button", hidden: true, "data-testid": "matches-more" },
    t("board.more"),
  );
  let cursor: string | null = null;
  const load = async () => {
    more.disabled = true;
    try {
      const page = await api.playerMatches(playerId, cursor);
      if (gone()) return;
      for (const m of page.matches) {
        const others = m.seats
          .filter((s) => s.seat !== m.seat)
          .map((s) => (s.player ? s.player.display_name : t("profile.bot")))
          .join(", ");
        list.append(
          h(
            "li",
            { "data-testid": "match" },
            h(
              "span",
              { class: `badge ${m.won ? "won" : ""}` },
              m.won ? t("profile.won") : t("profile.lost"),
            ),
            " ",
            h("strong", null, variantName(m.variant)),
            " ",
            h(
              "span",
              null,
              t("profile.match.score", { total: m.totals[m.seat] ?? 0, rounds: m.rounds_played }),
            ),
            " ",
            h(
              "span",
              { class: "muted" },
              t("profile.match.with", { others }),
              " · ",
              formatWhen(m.finished_at, "date"),
            ),
            // Each finished round's replay (replay.ts).
            m.rounds_played > 0
              ? h(
                  "span",
                  { class: "match-rounds" },
                  " · ",
                  t("profile.match.replays"),
                  Array.from({ length: m.rounds_played }, (_, i) =>
                    h(
                      "a",
                      {
                        href: replayHash(m.room_id, i + 1),
                        "data-testid": `match-replay-${m.room_id}-${i + 1}`,
                        "aria-label": t("scores.replay", { n: i + 1 }),
                        title: t("scores.replay", { n: i + 1 }),
                      },
                      String(i + 1),
                    ),
                  ),
                )
              : null,
          ),
        );
      }
      if (!list.children.length)
        list.append(h("li", { class: "muted" }, t("profile.matches.none")));
      cursor = page.next_cursor;
      more.hidden = cursor === null;
    } catch (err) {
      if (!gone()) showApiError(err);
    } finally {
      more.disabled = false;
    }
  };
  more.addEventListener("click", () => void load());
  void load();
  return h("section", { class: "card" }, h("h3", null, t("profile.matches")), list, more);
}
