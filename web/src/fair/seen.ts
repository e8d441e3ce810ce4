// What this browser was shown when each round was dealt: the commitment (SHA-256 of the
// seed) and, when it saw the deal itself, its seat's hand. The verify page compares them
// with the round's record once the seed is out (docs/fairness.md): the proof that the
// deal was fixed before play rests on the commitment the player was given, not on the one
// the server shows afterwards. The first commitment seen for a round is kept; a later,
// different one is never written over it. Kept in localStorage, the newest MAX rounds.

const KEY = "remi.deals";
const MAX = 300;

export interface SeenDeal {
  /** The commitment, as given at the deal (or when this browser first saw the round). */
  c: string;
  seat: number | null;
  /** The seat's hand as dealt, sorted (null: this browser did not see the deal). */
  hand: number[] | null;
  at: number;
}

type Seen = Record<string, SeenDeal>;

let cache: Seen | null = null;

function load(): Seen {
  if (cache) return cache;
  try {
    cache = JSON.parse(localStorage.getItem(KEY) ?? "{}") as Seen;
  } catch {
    cache = {};
  }
  return cache;
}

function save(all: Seen): void {
  const keys = Object.keys(all).sort((a, b) => all[b].at - all[a].at);
  for (const k of keys.slice(MAX)) delete all[k];
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch {
    /* storage full or off: the page still verifies the record itself */
  }
}

const key = (room: string, round: number) => `${room}/${round}`;

/** Note a round's commitment (and the dealt hand, given with the deal's own event). */
export function noteDeal(
  room: string,
  round: number,
  commitment: string,
  seat: number | null,
  dealtHand: readonly number[] | null,
): void {
  const all = load();
  const k = key(room, round);
  const old = all[k];
  const hand = dealtHand ? [...dealtHand].sort((a, b) => a - b) : null;
  if (old && (old.c !== commitment || old.hand || !hand)) return;
  all[k] = { c: commitment, seat, hand, at: Date.now() };
  save(all);
}

export function seenDeal(room: string, round: number): SeenDeal | null {
  return load()[key(room, round)] ?? null;
}
