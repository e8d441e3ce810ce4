// A tile's face on screen: its text, its label and its DOM element, drawn as the
// catalogue's `faces` says (cards: ranks A..K in four suits; numbers: 1..13 in four
// colours). Decoding an id is faces.ts.

import { faceOf } from "./faces";
import { t } from "./i18n";
import type { VariantFacts } from "./protocol.gen";

export type Faces = VariantFacts["faces"];

// Cards: spades, hearts, diamonds, clubs. Four colours and the suit's own shape,
// so the suit never depends on telling red from black.
export const SUIT_SYMBOLS = ["♠", "♥", "♦", "♣"];
// Numbers: red, blue, black, yellow; each colour also has its own shape.
export const COLOUR_SHAPES = ["●", "■", "▲", "◆"];
const CARD_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

const cards = (faces: Faces) => faces === "cards";

export function rankText(faces: Faces, rank: number): string {
  return cards(faces) ? CARD_RANKS[rank - 1] : String(rank);
}

function symbol(faces: Faces, suit: number): string {
  return cards(faces) ? SUIT_SYMBOLS[suit] : COLOUR_SHAPES[suit];
}

export function tileLabel(faces: Faces, id: number): string {
  const f = faceOf(id);
  if (f.joker) return t("tile.joker");
  const rank = cards(faces) ? t(`rank.${f.rank}`) : String(f.rank);
  const suit = cards(faces) ? t(`suit.${f.suit}`) : t(`colour.${f.suit}`);
  const words = t("tile.label", { rank, suit });
  // A letter on the face (A, J, Q, K) is said too: the name holds what the eye reads.
  const shown = rankText(faces, f.rank);
  return /^\d+$/.test(shown) ? words : `${shown}, ${words}`;
}

export function tileShort(faces: Faces, id: number): string {
  const f = faceOf(id);
  if (f.joker) return "★";
  return rankText(faces, f.rank) + symbol(faces, f.suit);
}

/** A tile's text as its face shows it: a table joker shows the face it stands for (the
 * rank, then each suit or colour it may be), a joker alone its word. */
export function tileShown(faces: Faces, id: number, stands: number[] | null = null): string {
  if (!faceOf(id).joker) return tileShort(faces, id);
  if (!stands?.length) return "JOKER";
  const rank = rankText(faces, faceOf(stands[0]).rank);
  return rank + stands.map((x) => symbol(faces, faceOf(x).suit)).join("");
}

/** A table meld's name: its number and kind, its tiles as they show (so the name holds
 * the visible text, WCAG 2.5.3), then what each joker stands for. */
export function meldLabel(
  faces: Faces,
  n: number,
  kind: string,
  tiles: number[],
  stands: (number[] | null)[] | null | undefined,
): string {
  const jokers: string[] = [];
  const shown = tiles.map((id, i) => {
    const st = stands?.[i] ?? null;
    if (faceOf(id).joker && st?.length)
      jokers.push(
        t("tile.jokerFor", { tiles: st.map((x) => tileShort(faces, x)).join(t("tile.jokerOr")) }),
      );
    return tileShown(faces, id, st);
  });
  const head = `${t("table.meld", { n, kind: t(`table.kind.${kind}`) })}: ${shown.join(" ")}`;
  return jokers.length ? `${head}; ${jokers.join("; ")}` : head;
}

/** The sort buttons' short labels: the suits (or colours) and the ranks. */
export function sortSymbols(faces: Faces): { suit: string; rank: string } {
  return cards(faces)
    ? { suit: SUIT_SYMBOLS.join(""), rank: "A‥K" }
    : { suit: COLOUR_SHAPES.join(""), rank: "1‥13" };
}

export interface TileOpts {
  consumed?: boolean;
  /** A table joker: the faces that may buy it back (the view's `stands_for`). */
  stands?: number[] | null;
  owner?: number | null;
  /** The letter drawn on the owner's mark (the seat's initial). */
  ownerInitial?: string;
  small?: boolean;
  tag?: "span" | "button";
}

/** A tile's face as a DOM element (rank on top, suit/colour shape below). */
export function tileEl(faces: Faces, id: number, opts: TileOpts = {}): HTMLElement {
  const el = document.createElement(opts.tag ?? "span");
  const f = faceOf(id);
  el.className = "tile";
  if (opts.small) el.classList.add("small");
  el.dataset.tile = String(id);
  const part = (cls: string, text: string) => {
    const span = document.createElement("span");
    span.className = cls;
    span.textContent = text;
    return span;
  };
  const stands = f.joker && opts.stands && opts.stands.length ? opts.stands : null;
  if (f.joker) {
    // A joker's own face (a star on its own colours, never a letter that reads as a jack);
    // on the table, the face it stands for below the star.
    el.classList.add("joker");
    if (opts.consumed) el.classList.add("consumed");
    if (stands) {
      // The face it stands for, as large as a natural tile's, inside a joker's frame with
      // its star in the corner; a set's joker shows the rank and each missing suit.
      el.classList.add("stands");
      const first = faceOf(stands[0]);
      const suits = stands.map((x) => faceOf(x).suit);
      const pre = cards(faces) ? "s" : "c";
      const st = part(`st${suits.length > 1 ? " many" : ""}`, "");
      for (const suit of suits) st.append(part(`sfs ${pre}${suit}`, symbol(faces, suit)));
      el.append(
        part(suits.length === 1 ? `rk sfs ${pre}${first.suit}` : "rk", rankText(faces, first.rank)),
        st,
        part("jk-mark", "★"),
      );
    } else {
      el.append(part("rk jk", "★"), part("st jl", "JOKER"));
    }
  } else {
    el.classList.add(cards(faces) ? `s${f.suit}` : `c${f.suit}`);
    el.append(part("rk", rankText(faces, f.rank)), part("st", symbol(faces, f.suit)));
  }
  if (opts.owner !== undefined && opts.owner !== null) {
    el.classList.add(`owner${opts.owner}`);
    const mark = document.createElement("span");
    mark.className = "own";
    mark.setAttribute("aria-hidden", "true");
    // The letter is drawn by the style sheet (`content: attr(data-initial)`), not written
    // into the tile: a tile button's visible text stays its face, which its name begins
    // with (WCAG 2.5.3, label in name), while the name says the owner in full.
    if (opts.ownerInitial) mark.dataset.initial = opts.ownerInitial;
    el.append(mark);
  }
  let label = stands
    ? t("tile.jokerFor", { tiles: stands.map((x) => tileLabel(faces, x)).join(t("tile.jokerOr")) })
    : tileLabel(faces, id);
  if (opts.consumed) label += `, ${t("tile.consumed")}`;
  el.setAttribute("aria-label", label);
  el.title = label;
  return el;
}
