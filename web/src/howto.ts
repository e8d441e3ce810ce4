// How to play (#/howto/<variant>): a variant's rules in short, in Romanian or English,
// built from the catalogue's facts (players, deal, melds, opening, atu, row, jokers) with
// the rule numbers of RULES.md, and illustrated with tiles drawn as at the table. The
// scoring numbers (not catalogue facts) are RULES.md's, one text per family. Nothing here
// applies a rule.

import { loadCatalogue, variantName, variants } from "./catalogue";
import { clear, h } from "./dom";
import { t } from "./i18n";
import type { App } from "./main";
import type { VariantFacts } from "./protocol.gen";
import { tileEl } from "./tiles";

/** A tile id for `rank` (1..13) in `suit` (0..3): id = suit·13 + rank − 1 (docs/engine-api.md). */
const tile = (rank: number, suit: number, copy = 0) => suit * 13 + rank - 1 + copy * 52;

function tiles(v: VariantFacts, ids: number[]): HTMLElement {
  return h(
    "span",
    { class: "howto-tiles", "aria-hidden": "true" },
    ids.map((id) => tileEl(v.faces, id, { small: true })),
  );
}

function section(title: string, ...body: (HTMLElement | string | null)[]): HTMLElement {
  return h("section", { class: "card howto-part" }, h("h2", null, title), ...body);
}

/** The page's sections for one variant. */
export function howtoSections(v: VariantFacts): HTMLElement[] {
  const f = v.family;
  const mins = v.meld_min ?? {};
  const joker = v.first_joker_id;
  const out: HTMLElement[] = [];
  out.push(
    section(
      t("howto.deal"),
      h(
        "p",
        null,
        t("howto.deal.text", {
          min: v.players.min,
          max: v.players.max,
          tiles: v.tiles,
          first: v.hand[0],
          others: v.hand[1],
          rule: `${f}.1, ${f}.2`,
        }),
      ),
      v.short_game
        ? h(
            "p",
            null,
            t("howto.deal.short", {
              players: v.short_game.players,
              tiles: v.short_game.tiles,
              first: v.short_game.hand[0],
              others: v.short_game.hand[1],
            }),
          )
        : null,
    ),
  );
  const take = v.take_actions.map((a) => t(`howto.take.${a}`)).join(t("howto.or"));
  out.push(
    section(
      t("howto.turn"),
      h("p", null, t("howto.turn.text", { take, rule: `${f}.2${f === "A" ? ", A.3" : ""}` })),
      v.first_turn_restricted ? h("p", null, t("howto.turn.first")) : null,
    ),
  );
  const melds = h(
    "ul",
    null,
    h(
      "li",
      null,
      t("howto.meld.run", { n: mins.run ?? v.min_meld }),
      " ",
      tiles(v, [tile(4, 1), tile(5, 1), tile(6, 1)]),
    ),
    h(
      "li",
      null,
      t("howto.meld.set", { n: mins.set ?? v.min_meld }),
      " ",
      tiles(v, [tile(7, 0), tile(7, 1), tile(7, 2)]),
    ),
    mins.double !== undefined
      ? h(
          "li",
          null,
          t("howto.meld.double", { n: mins.double }),
          " ",
          tiles(v, [tile(5, 0), tile(5, 0, 1)]),
        )
      : null,
    h(
      "li",
      null,
      v.ace_high ? t("howto.meld.aceHigh") : t("howto.meld.aceLow"),
      " ",
      tiles(
        v,
        v.ace_high ? [tile(12, 3), tile(13, 3), tile(1, 3)] : [tile(1, 3), tile(2, 3), tile(3, 3)],
      ),
    ),
    h(
      "li",
      null,
      v.max_jokers_per_meld === null
        ? t("howto.meld.jokers")
        : t("howto.meld.jokersMax", { n: v.max_jokers_per_meld }),
      " ",
      tiles(v, [tile(9, 2), joker, tile(11, 2)]),
    ),
  );
  out.push(
    section(
      t("howto.melds"),
      h("p", null, t("howto.melds.rule", { rule: f === "A" ? "A.5" : "B.3" })),
      melds,
    ),
  );
  const open: string[] = [];
  if (v.opening.threshold) open.push(t("howto.open.points", { n: v.opening.threshold }));
  if (v.opening.run_required) open.push(t("howto.open.run"));
  if (v.opening.doubles !== null) open.push(t("howto.open.doubles", { n: v.opening.doubles }));
  if (v.opening.rising) open.push(t("howto.open.rising"));
  out.push(
    section(
      t("howto.open"),
      h(
        "p",
        null,
        t("howto.open.text", {
          what: open.join(t("howto.open.join")) || t("howto.open.none"),
          rule: f === "A" ? "A.8" : "B.6",
        }),
      ),
    ),
  );
  if (v.atu) out.push(section(t("howto.atu"), h("p", null, t("howto.atu.text"))));
  if (v.row_break)
    out.push(
      section(
        t("howto.row"),
        h("p", null, t("howto.row.text")),
        v.row_depth ? h("p", null, t("howto.row.depth")) : null,
      ),
    );
  const jokerParts = [v.consumes_bought_jokers ? t("howto.joker.buy") : t("howto.joker.recover")];
  if (v.joker_layoff) jokerParts.push(t("howto.joker.layoff"));
  if (v.joker_button) jokerParts.push(t("howto.joker.button"));
  out.push(section(t("howto.jokers"), h("p", null, jokerParts.join(" ")), tiles(v, [joker])));
  out.push(section(t("howto.score"), h("p", null, t(`howto.score.${f}`))));
  return out;
}

export function renderHowto(app: App, which: string): { dispose(): void; relabel(): void } {
  let disposed = false;
  const draw = () => {
    clear(app.root);
    const all = variants();
    const v = all.find((x) => x.id === which) ?? all[0];
    if (!v) return;
    const tabs = h(
      "nav",
      { class: "tabs", "aria-label": t("howto.variants"), "data-testid": "howto-tabs" },
      all.map((x) =>
        h(
          "a",
          {
            href: `#/howto/${encodeURIComponent(x.id)}`,
            class: x.id === v.id ? "tab current" : "tab",
            "aria-current": x.id === v.id ? "page" : null,
          },
          variantName(x.id),
        ),
      ),
    );
    app.root.append(
      h(
        "main",
        { class: "lobby howto", "data-testid": "howto", "data-variant": v.id },
        h(
          "header",
          { class: "topbar" },
          h(
            "button",
            {
              type: "button",
              class: "icon back",
              "aria-label": t("common.back"),
              "data-testid": "back",
              onclick: () => (history.length > 1 ? history.back() : app.go("#/")),
            },
            "←",
          ),
          h("h1", null, t("howto.title", { variant: variantName(v.id) })),
          h("span", { class: "spacer" }),
          app.langButton(),
        ),
        tabs,
        ...howtoSections(v),
      ),
    );
  };
  const load = () => {
    if (variants().length) draw();
    else
      void loadCatalogue().then(
        () => !disposed && draw(),
        () => undefined,
      );
  };
  load();
  return {
    dispose() {
      disposed = true;
    },
    relabel: load,
  };
}
