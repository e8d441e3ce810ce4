// Tiles move: after each redraw, a tile that was somewhere on the table before glides from
// where it was to where it is now (a rack move, a discard, a meld laid, a lay-off, a
// buy-back); a tile new to this screen glides in from where it came (a draw: the stock;
// another seat's discard or meld: that seat's card). FLIP with the Web Animations API:
// short (MOTION_MS), only `transform`, never blocking a tap (the element is already in its
// place, it only looks as if it travels), and nothing at all when the system asks for
// reduced motion. Nothing here decides anything of the game.

/** How long a tile travels, in ms (at most 300). */
export const MOTION_MS = 220;

/** Where each tile was, by id, on the last drawing. */
export type Places = Map<string, DOMRect>;

export function reducedMotion(): boolean {
  return (
    typeof window.matchMedia === "function" &&
    window.matchMedia("(prefers-reduced-motion: reduce)").matches
  );
}

/** The tiles on the table under `root` (the rack, the row, the melds, the atu): not those of
 * a dialog over it (a round's summary shows a hand's tiles again, with the same ids, and
 * they never travel). */
function tableTiles(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(".tile[data-tile]")].filter(
    (el) => !el.closest('[role="dialog"]'),
  );
}

/** The tiles drawn on the table under `root`, by id. */
export function places(root: HTMLElement): Places {
  const out: Places = new Map();
  for (const el of tableTiles(root)) {
    const id = el.dataset.tile!;
    if (!out.has(id)) out.set(id, el.getBoundingClientRect());
  }
  return out;
}

/** Animate the tiles of `root` from their old places (`before`); a tile that had none
 * comes from `origin(el)` when it says where, else it only fades in. Returns how many
 * tiles move. */
export function glide(
  root: HTMLElement,
  before: Places,
  origin: (el: HTMLElement) => DOMRect | null,
  deal = false,
): number {
  if (reducedMotion() || (!before.size && !deal)) return 0;
  let moved = 0;
  const tiles = tableTiles(root);
  // A deal: the rack's tiles one after the other, the last one arriving within MOTION_MS.
  const stagger = deal ? Math.min(6, 80 / Math.max(1, tiles.length)) : 0;
  for (const el of tiles) {
    if (typeof el.animate !== "function") return moved;
    const now = el.getBoundingClientRect();
    if (!now.width) continue;
    const was = before.get(el.dataset.tile!) ?? origin(el);
    if (!was) continue;
    const dx = was.left + was.width / 2 - (now.left + now.width / 2);
    const dy = was.top + was.height / 2 - (now.top + now.height / 2);
    const scale = was.width / now.width;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2 && Math.abs(scale - 1) < 0.05) continue;
    const delay = Math.round(moved * stagger);
    el.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(${scale})` }, { transform: "none" }],
      {
        id: "glide",
        duration: MOTION_MS - delay,
        delay,
        easing: "cubic-bezier(.2,.7,.3,1)",
        fill: "backwards",
      },
    );
    el.dataset.moving = "1";
    window.setTimeout(() => delete el.dataset.moving, MOTION_MS);
    moved++;
  }
  return moved;
}
