// Tile ids and faces (docs/engine-api.md): ids 0..103 are two copies of 52 faces,
// 104 and 105 the jokers, 106+ the jokers of the joker button (B.9).
// face = id % 52, rank = face % 13 + 1, suit = face // 13.
// Only what a tile shows is decoded here (no DOM: the table's reducer uses it too);
// whether tiles make a meld is the server's answer.

export interface Face {
  joker: boolean;
  rank: number; // 1..13 (0 for a joker)
  suit: number; // 0..3 (-1 for a joker)
}

/** The first joker's id (the catalogue's `first_joker_id`: the same for every variant). */
export const FIRST_JOKER_ID = 104;

export function faceOf(id: number): Face {
  if (id >= FIRST_JOKER_ID) return { joker: true, rank: 0, suit: -1 };
  const face = id % 52;
  return { joker: false, rank: (face % 13) + 1, suit: Math.floor(face / 13) };
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
