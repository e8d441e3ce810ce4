// The deal's commitment and shuffle as docs/fairness.md writes them (scheme
// sha256-fisher-yates/1), for the browser's own check of a finished round: SHA-256 of
// the seed; Fisher–Yates over the ascending tile ids, driven by the words of
// SHA-256("remi-shuffle/1:" + seed + ":" + k); hands dealt in seat order (the first
// player's one tile longer), then the atu, then the stock, top first. The server's is
// server/rules/shuffle.py; web/test/fair.test.ts checks this one against the vectors.

import type { VariantFacts } from "../protocol.gen";
import { hex, sha256, utf8 } from "./sha256";

export const SCHEME = "sha256-fisher-yates/1";
const WORDS = 2 ** 32;

/** SHA-256 of the seed, lowercase hex. */
export function commitment(seed: string): string {
  return hex(sha256(utf8(seed)));
}

/** The ids sorted ascending, then shuffled by the seed. */
export function shuffle(ids: readonly number[], seed: string): number[] {
  const order = [...ids].sort((a, b) => a - b);
  let block: Uint8Array = new Uint8Array(0);
  let pos = 0;
  let k = 0;
  const word = (): number => {
    if (pos >= block.length) {
      block = sha256(utf8(`remi-shuffle/1:${seed}:${k}`));
      k += 1;
      pos = 0;
    }
    const x =
      ((block[pos] << 24) | (block[pos + 1] << 16) | (block[pos + 2] << 8) | block[pos + 3]) >>> 0;
    pos += 4;
    return x;
  };
  for (let i = order.length - 1; i > 0; i--) {
    const m = i + 1;
    const limit = WORDS - (WORDS % m);
    let x = word();
    while (x >= limit) x = word();
    const j = x % m;
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

export interface DealOut {
  hands: number[][];
  atu: number | null;
  stock: number[];
}

/** The deal from a shuffled order: hands in seat order (`sizes`: the first player's,
 * the others'), the atu when the family has one, the rest the stock (top first). */
export function dealFrom(
  order: readonly number[],
  players: number,
  first: number,
  sizes: readonly number[],
  atu: boolean,
): DealOut {
  const hands: number[][] = [];
  let pos = 0;
  for (let seat = 0; seat < players; seat++) {
    const n = seat === first ? sizes[0] : sizes[1];
    hands.push(order.slice(pos, pos + n));
    pos += n;
  }
  const turned = atu ? order[pos++] : null;
  return { hands, atu: turned, stock: order.slice(pos) };
}

/** The variant's tiles and hand sizes, from the catalogue: the full set is ids
 * 0..tiles-1; family A's short game is one copy of each face (0..51) and the two jokers. */
export function tileSet(
  facts: VariantFacts,
  shortGame: boolean,
): { ids: number[]; sizes: number[] } {
  if (shortGame && facts.short_game) {
    const naturals = facts.short_game.tiles - 2;
    const ids = [
      ...Array.from({ length: naturals }, (_, i) => i),
      facts.first_joker_id,
      facts.first_joker_id + 1,
    ];
    return { ids, sizes: facts.short_game.hand };
  }
  return { ids: Array.from({ length: facts.tiles }, (_, i) => i), sizes: facts.hand };
}
