// The engine's shapes inside the protocol's messages, which the protocol models leave
// open (objects): the view (docs/engine-api.md SeatView) and the query answers. The
// messages themselves, the seats and the score sheet are generated: protocol.gen.ts.

export type { Scores, SeatState } from "./protocol.gen";

export interface SeatInfo {
  seat: number;
  tiles: number;
  opened: boolean;
  opened_with: string | null;
  credits: number;
  first_turn: boolean;
}

export interface TableMeld {
  kind: "set" | "run" | "double" | string;
  tiles: number[];
  owners: number[];
  low?: number | null;
  suit?: number | null;
  /** Per position: null for a natural tile; for a joker, the faces that may buy it back. */
  stands_for?: (number[] | null)[];
}

export interface SeatScore {
  seat: number;
  total: number;
  laid: number;
  hand: number;
  bonus: number;
  atu_pair: number;
  multiplier: number;
  note: string;
  /** Why the multiplier: atu_ace, atu_joker, joker_out, closing_joker, closing_hand, closing_hand_joker. */
  doublings?: string[];
  /** Whether the seat opened in the round (going out counts). */
  opened?: boolean;
}

export interface RoundResult {
  reason: "out" | "stock" | string;
  out: number | null;
  scores: number[];
  closing: string | null;
  breakdown: SeatScore[];
}

export interface SeatView {
  variant_id: string;
  players: number;
  seat: number | null;
  first: number;
  turn: number;
  phase: "take" | "build" | "over" | string;
  hand: number[];
  seats: SeatInfo[];
  table: TableMeld[];
  row: number[];
  row_offset: number;
  row_length: number;
  row_depth: number | null;
  atu: number | null;
  atu_taken_by: number | null;
  stock_count: number;
  consumed: number[];
  last_points_opening: number | null;
  last_doubles_opening: number | null;
  joker_button: boolean;
  joker_credits: number;
  button_used: boolean;
  over: boolean;
  result: RoundResult | null;
  hands: number[][] | null;
  opened_with: (string | null)[];
  /** Who discarded each tile of `row` (null: not known). */
  row_by?: (number | null)[];
  /** SHA-256 of the round's deal seed (docs/fairness.md); the seed comes with `round_over`. */
  commitment?: string | null;
}

export interface FormationAnswer {
  valid: boolean;
  code: string | null;
  message: string;
  kind: string | null;
  value: number;
}

export interface OpeningLock {
  locked: boolean;
  code: string | null;
  message: string;
  value: number;
  threshold: number | null;
  has_run: boolean;
  run_required: boolean;
  doubles: number;
  doubles_needed: number | null;
  opened: boolean;
  /** Asked with the tile a take brings: whether a valid formation holds it (else null). */
  taken_used?: boolean | null;
}

/** The `arrange` query's answer: the hand split into the best melds the engine finds. */
export interface ArrangeAnswer {
  melds: { tiles: number[]; kind: string; value: number }[];
  left: number[];
}
