// Tile ids and faces (docs/engine-api.md): ids 0..103 are two copies of 52 faces,
// 104 and 105 the jokers, 106+ the jokers of the 101 joker button.
// face = id % 52 (52 = joker), rank = face % 13 + 1, suit = face // 13.
// Only what a tile shows is decoded here; whether tiles make a meld is the server's answer.

import { t } from "./i18n";

export type Family = "A" | "B";

export const JOKER_FACE = 52;

export interface Face {
  joker: boolean;
  rank: number; // 1..13 (0 for a joker)
  suit: number; // 0..3 (-1 for a joker)
}

export function faceOf(id: number): Face {
  if (id >= 104) return { joker: true, rank: 0, suit: -1 };
  const face = id % 52;
  return { joker: false, rank: (face % 13) + 1, suit: Math.floor(face / 13) };
}

export function familyOf(variant: string): Family {
  return variant.startsWith("remi101") ? "B" : "A";
}

// Family A: spades, hearts, diamonds, clubs. Four colours and the suit's own shape,
// so the suit never depends on telling red from black.
export const SUIT_SYMBOLS = ["♠", "♥", "♦", "♣"];
// Family B: red, blue, black, yellow; each colour also has its own shape.
export const COLOUR_SHAPES = ["●", "■", "▲", "◆"];
const A_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export function rankText(family: Family, rank: number): string {
  return family === "A" ? A_RANKS[rank - 1] : String(rank);
}

export function tileLabel(family: Family, id: number): string {
  const f = faceOf(id);
  if (f.joker) return t("tile.joker");
  const rank = family === "A" ? t(`rank.${f.rank}`) : String(f.rank);
  const suit = family === "A" ? t(`suit.${f.suit}`) : t(`colour.${f.suit}`);
  return t("tile.label", { rank, suit });
}

export function tileShort(family: Family, id: number): string {
  const f = faceOf(id);
  if (f.joker) return "★";
  return rankText(family, f.rank) + (family === "A" ? SUIT_SYMBOLS[f.suit] : COLOUR_SHAPES[f.suit]);
}

export interface TileOpts {
  consumed?: boolean;
  owner?: number | null;
  small?: boolean;
  tag?: "span" | "button";
}

/** A tile's face as a DOM element (rank on top, suit/colour shape below). */
export function tileEl(family: Family, id: number, opts: TileOpts = {}): HTMLElement {
  const el = document.createElement(opts.tag ?? "span");
  const f = faceOf(id);
  el.className = "tile";
  if (opts.small) el.classList.add("small");
  el.dataset.tile = String(id);
  if (f.joker) {
    el.classList.add("joker");
    if (opts.consumed) el.classList.add("consumed");
    el.innerHTML = `<span class="rk">J</span><span class="st">★</span>`;
  } else {
    el.classList.add(family === "A" ? `s${f.suit}` : `c${f.suit}`);
    const sym = family === "A" ? SUIT_SYMBOLS[f.suit] : COLOUR_SHAPES[f.suit];
    el.innerHTML = `<span class="rk">${rankText(family, f.rank)}</span><span class="st">${sym}</span>`;
  }
  if (opts.owner !== undefined && opts.owner !== null) {
    el.classList.add(`owner${opts.owner}`);
    const mark = document.createElement("span");
    mark.className = "own";
    mark.setAttribute("aria-hidden", "true");
    el.append(mark);
  }
  let label = tileLabel(family, id);
  if (opts.consumed) label += `, ${t("tile.consumed")}`;
  el.setAttribute("aria-label", label);
  el.title = label;
  return el;
}

/** Sort keys for the rack's sort buttons (jokers last). */
export function suitKey(id: number): number {
  const f = faceOf(id);
  return f.joker ? 1000 + id : f.suit * 100 + f.rank * 2 + (id >= 52 ? 1 : 0);
}

export function rankKey(id: number): number {
  const f = faceOf(id);
  return f.joker ? 1000 + id : f.rank * 100 + f.suit * 2 + (id >= 52 ? 1 : 0);
}
