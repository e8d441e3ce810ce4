// Generated from the pydantic models of server/protocol/ (the catalogue's included) by
// `python -m server.protocol.typescript > web/src/protocol.gen.ts`; do not edit.
// tests/server/test_web_types.py fails when this file and the models disagree.
/* eslint-disable */

/** An `action` or `rack` was accepted and committed; `version` is the room's after it. */
export interface Ack {
  type: "ack";
  /** Client sequence number, increasing per player; a resend reuses it. */
  seq: number;
  /** A room version. */
  version: number;
}

/** A move (RULES.md A.18/B.14, tiles by id). Answered by `ack` or `error`. */
export interface ActionMessage {
  type: "action";
  /** Client sequence number, increasing per player; a resend reuses it. */
  seq: number;
  /** The room version the move was decided on; another one is refused with stale_version. */
  base_version: number;
  action: DrawAction | DiscardAction | LayAction | TakeRowAction | LayoffAction | BuyJokerAction | TakeDiscardAction | JokerButtonAction;
}

/** Replace a table joker by the tile it stands for and take the joker. */
export interface BuyJokerAction {
  do: "buy_joker";
  /** A tile id (RULES.md §1). */
  tile: number;
  meld: number;
}

/** Every variant, in the order of RULES.md §0. */
export interface Catalogue {
  variants: VariantFacts[];
}

/** Discard a tile: ends the turn (or the round, when it is the last tile). */
export interface DiscardAction {
  do: "discard";
  /** A tile id (RULES.md §1). */
  tile: number;
}

/** Take the top tile of the stock (an empty stock ends the round, A.15/B.13). */
export interface DrawAction {
  do: "draw";
}

/** A refused message. Nothing changed. `seq` is the refused message's, if it had one. */
export interface ErrorMessage {
  type: "error";
  seq: number | null;
  code: string;
  message: string;
  retry_after_ms?: number | null;
}

/**
 * One change of the room, filtered for this connection's seat.
 *
 * `view`, `seats`, `deadline` and `scores` describe the room after the
 * event. In a replay (`replay` true) only the last event carries them; the
 * earlier ones have them null.
 *
 * A connection whose `hello` asked for `patches` gets, instead of the whole
 * `view` (then null), a `patch`: the top-level keys of the view whose value
 * differs from what this connection last received, with their values now (`{}`
 * when none does). The client replaces
 * those keys of the view it holds; the result is exactly the seat's view at this
 * version. When the server does not patch (a new round is dealt, an abandoned
 * round is taken away, the first event after a `snapshot` taken before a round
 * existed, ...) it sends the whole `view` and `patch` null; a client replaces
 * its view then. Such a connection also gets
 * `seats` and `scores` only in the events where they changed (null means
 * unchanged); the last event of a replay always carries the whole `view`,
 * `seats` and `scores`.
 */
export interface EventMessage {
  type: "event";
  /** A room version. */
  version: number;
  /** What happened; see 'Events' below. */
  event: { [key: string]: unknown };
  view: { [key: string]: unknown } | null;
  /** With `patches`: the view's keys the event may have changed, with their values now. */
  patch?: { [key: string]: unknown } | null;
  seats: SeatState[] | null;
  deadline: number | null;
  server_time: number;
  scores: Scores | null;
  replay?: boolean;
}

/**
 * First message of a connection (and again to take a seat back after `leave`).
 *
 * The server answers with the events after `last_version` when it still
 * holds them all, otherwise with a `snapshot`.
 */
export interface Hello {
  type: "hello";
  /** The last version this client holds, or null. */
  last_version?: number | null;
  /** Receive each event's view as a `patch` against the previous version instead of the whole view, and `seats`/`scores` only when they changed (see `event`). Applies to this connection until it closes. */
  patches?: boolean;
  /** A random id of this device (browser tab), the same on each of its connections. The seat's older connections from another device are then closed with `played_elsewhere` (4409); ones that named no device never are. */
  device?: string | null;
}

/** Family B with the joker button: take a joker instead of drawing (B.9). */
export interface JokerButtonAction {
  do: "joker_button";
}

/** Lay new melds from the hand (`atu`: family A, take the atu with them, A.12). */
export interface LayAction {
  do: "lay";
  melds: (number[] | MeldSpec)[];
  atu?: boolean;
}

/** Add one tile of the hand to a table meld. */
export interface LayoffAction {
  do: "layoff";
  /** A tile id (RULES.md §1). */
  tile: number;
  meld: number;
  end?: "low" | "high" | null;
}

/** One lay-off inside `take_discard`. */
export interface LayoffSpec {
  /** A tile id (RULES.md §1). */
  tile: number;
  /** Index of the table meld (creation order). */
  meld: number;
  end?: "low" | "high" | null;
}

/** The back arrow: the seat is marked away and a bot plays it until `hello`. */
export interface LeaveMessage {
  type: "leave";
}

/** A new meld with its kind named (otherwise give the bare list of tile ids). */
export interface MeldSpec {
  /** Only needed when the tiles could form several kinds. */
  kind?: "set" | "run" | "double" | null;
  tiles: number[];
}

/** The variant's name as a player reads it, per language of the client. */
export interface Names {
  ro: string;
  en: string;
}

/**
 * The round summary was read: the next deal need not wait for this seat. It starts
 * once every human seat that is connected has sent this, or when the round pause
 * (`next_round_in` of `round_over`) ends, whichever comes first. Not a move: it
 * changes no turn clock and is ignored outside the pause between rounds.
 */
export interface NextRoundMessage {
  type: "next_round";
}

/** What an opening needs (A.8, B.6, B.8). */
export interface Opening {
  /** Points an opening must reach (0: none). */
  threshold: number;
  /** The opening must hold a run (A.8). */
  run_required: boolean;
  /** Doubles that open instead (B.6); null: none. */
  doubles: number | null;
  /** Each opening must beat the previous one (B.8). */
  rising: boolean;
}

/** Keep-alive; answered by `pong`. */
export interface PingMessage {
  type: "ping";
}

/** How many seats a table of the variant may have (A.1, B.1). */
export interface Players {
  min: number;
  max: number;
}

/** Answer to `ping`. */
export interface Pong {
  type: "pong";
}

/**
 * Ask the engine about this seat's view (answered by `query_result`).
 *
 * `formations`: each tile-id list judged as a meld, plus whether laying them
 * all now would pass the opening rules; with `taken` (a row tile or the last
 * discard about to be taken with them), also whether a valid one holds it.
 * `row_preview`: which tiles taking the row at `index` would bring, which
 * indices are reachable now, and why `index` is not (`block`).
 * `arrange`: the hand split into the best melds the engine finds, for the
 * rack's "arrange" button (`melds` with their kind and value, `left`).
 */
export interface QueryMessage {
  type: "query";
  /** Client sequence number, increasing per player; a resend reuses it. */
  seq: number;
  query: "formations" | "row_preview" | "arrange";
  formations?: number[][] | null;
  index?: number | null;
  /** formations: the tile a take would bring (A.9, B.4): the lock says whether a valid formation holds it. */
  taken?: number | null;
}

/** The engine's answer to a `query`. */
export interface QueryResult {
  type: "query_result";
  /** Client sequence number, increasing per player; a resend reuses it. */
  seq: number;
  result: { [key: string]: unknown };
}

/** Save this seat's rack layout: tile ids in rack order, null for a gap. */
export interface RackMessage {
  type: "rack";
  /** Client sequence number, increasing per player; a resend reuses it. */
  seq: number;
  layout: (number | null)[];
}

/**
 * A quick reaction from the seat (a fixed phrase or emoji, never free text), shown
 * beside the seat to everyone in the room as `reaction`. Not a move, not stored.
 * A seat may send a few in a short time (`reactions_limited` past that).
 */
export interface ReactMessage {
  type: "react";
  reaction: "hello" | "good_luck" | "well_played" | "thanks" | "sorry" | "oops" | "hurry" | "wow" | "thumbs_up" | "laugh" | "surprised" | "sad";
}

/**
 * A seat's quick reaction (`react`), to everyone in the room. Not an event of the
 * game: it has no version, is not stored and is not replayed on reconnect.
 */
export interface ReactionMessage {
  type: "reaction";
  seat: number;
  reaction: "hello" | "good_luck" | "well_played" | "thanks" | "sorry" | "oops" | "hurry" | "wow" | "thumbs_up" | "laugh" | "surprised" | "sad";
}

/** One of the round's last events, as in the `event` frame that brought it. */
export interface RecentEvent {
  /** A room version. */
  version: number;
  /** What happened; see 'Events' below. */
  event: { [key: string]: unknown };
}

/** The room as a whole. */
export interface RoomInfo {
  id: string;
  status: "waiting" | "playing" | "finished";
  /** The room's kind (it never changes): practice settles and rates nothing. */
  kind: "practice" | "normal" | "quick" | "arena" | "tournament";
  /** The room settings (see the HTTP API). */
  settings: { [key: string]: unknown };
  /** Number of the current (or last) round, 1-based; 0 before. */
  round: number;
  /** Seconds each turn lasts. */
  turn_seconds: number;
}

/** The score sheet: each finished round's additions per seat, and the totals. */
export interface Scores {
  rounds: number[][];
  totals: number[];
  /** The match is over. */
  over: boolean;
  /** Seats with the highest total once over (ties share). */
  winners: number[];
}

/** What every connection sees of one seat. */
export interface SeatState {
  seat: number;
  /** The seated player, null for a bot seat. */
  player_id: string | null;
  /** The player's display name (null for a bot seat). */
  name: string | null;
  /** Level of the bot that fills or stands in. */
  bot_level: string | null;
  /** A seat filled by a bot (no player). */
  is_bot: boolean;
  /** The player left or disconnected: a bot plays for them. */
  away: boolean;
  /** Timed out twice in a row: a bot plays at once until the player acts. */
  unresponsive: boolean;
  /** A bot plays this seat now (is_bot, away, unresponsive). */
  bot_playing: boolean;
  /** The seat's match total so far. */
  total: number;
}

/** Family A's one-pack game (RULES.md §1): its seats, tiles and hand sizes. */
export interface ShortGame {
  players: number;
  tiles: number;
  /** The first player's hand, then the others'. */
  hand: number[];
}

/** The whole state this connection may see (§D): after `hello` when a replay is impossible. */
export interface Snapshot {
  type: "snapshot";
  /** A room version. */
  version: number;
  room: RoomInfo;
  you: You;
  seats: SeatState[];
  /** The engine's SeatView for this seat (spectator view for a spectator); null before the first round. */
  view: { [key: string]: unknown } | null;
  /** This seat's saved rack layout, reconciled with the hand: a tile that left the hand leaves an empty slot (null; no tile shifts), a new tile takes the first empty slot or is appended; null for spectators. */
  rack: (number | null)[] | null;
  /** End of the current turn, unix seconds. */
  deadline: number | null;
  /** The server's clock when sending, unix seconds. */
  server_time: number;
  scores: Scores;
  /** The highest seq this player has used, if any. */
  last_seq: number | null;
  /** The current round's last events (from its `round_start` on, at most the server's `snapshot_recent_events`), oldest first, each as this seat sees it (RULES.md §D): for the move log of a client that missed them. */
  recent?: RecentEvent[];
}

/** Family B: take the last discard and use it at once (B.4). */
export interface TakeDiscardAction {
  do: "take_discard";
  melds?: (number[] | MeldSpec)[];
  layoffs?: LayoffSpec[];
}

/** Family A: break the discard row at `index` and lay melds using that tile (A.9). */
export interface TakeRowAction {
  do: "take_row";
  index: number;
  melds?: (number[] | MeldSpec)[];
}

/** One variant of RULES.md §0 with every fact a client needs. */
export interface VariantFacts {
  id: string;
  title: string;
  names: Names;
  family: "A" | "B";
  /** The seed text of RULES.md it comes from. */
  seed: string;
  /** cards: ranks A..K in suits S H D C; numbers: 1..13 in colours R B K Y. */
  faces: "cards" | "numbers";
  players: Players;
  /** Tiles in the full set (RULES.md §1). */
  tiles: number;
  /** Tile ids from this one on are jokers. */
  first_joker_id: number;
  /** The first player's hand size, then the others'. */
  hand: number[];
  /** Null: the variant has no short game. */
  short_game: ShortGame | null;
  /** Rows of the player's rack at the table. */
  rack_rows: number;
  /** Fewest tiles in a meld (a double has 2). */
  min_meld: number;
  meld_kinds: ("set" | "run" | "double")[];
  /** Fewest tiles of each meld kind (B.3: runs and sets 3, doubles 2). */
  meld_min: { [key: string]: number };
  /** Null: no limit but one natural tile. */
  max_jokers_per_meld: number | null;
  /** An ace may end a run high (Q K A). */
  ace_high: boolean;
  /** A tile is turned up beside the stock (A.12). */
  atu: boolean;
  /** Deep takes from the discard row (A.9). */
  row_break: boolean;
  /** The room option of the row's visible depth exists. */
  row_depth: boolean;
  /** Nothing reaches the table in a first turn. */
  first_turn_restricted: boolean;
  take_actions: string[];
  build_actions: string[];
  /** A joker may be laid off (B.3). */
  joker_layoff: boolean;
  /** A bought-back joker is consumed (A.11). */
  consumes_bought_jokers: boolean;
  /** A joker is discarded only from a hand of jokers (etalat, A.14). */
  joker_discard_restricted: boolean;
  /** The room option of the joker button exists (B.9). */
  joker_button: boolean;
  opening: Opening;
}

/** Who this connection is. */
export interface You {
  player_id: string;
  /** The connection's seat; null for a spectator. */
  seat: number | null;
}

/** A move inside an `action` message (`do` names it). */
export type GameAction = DrawAction | DiscardAction | LayAction | TakeRowAction | LayoffAction | BuyJokerAction | TakeDiscardAction | JokerButtonAction;

/** Every message a client sends (`type` names it). */
export type ClientMessage = Hello | ActionMessage | RackMessage | QueryMessage | LeaveMessage | NextRoundMessage | ReactMessage | PingMessage;

/** Every message the server sends (`type` names it). */
export type ServerMessage = Snapshot | EventMessage | Ack | ErrorMessage | QueryResult | Pong | ReactionMessage;
