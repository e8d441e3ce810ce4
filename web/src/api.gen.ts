// Generated from the HTTP API's OpenAPI schema (server/api/, app.openapi()) by
// `python -m server.apitypes > web/src/api.gen.ts`; do not edit.
// tests/server/test_web_types.py fails when this file and the API disagree.
/* eslint-disable */

/** The player's account. */
export interface AccountOut {
  player: PlayerOut;
  /** Null for a guest (no password yet). */
  username: string | null;
  /** The "cont": the sum of the ledger's amounts. */
  balance: number;
  /** Credits of the 101 joker button (B.9). */
  joker_credits: number;
  /** Balance points one joker credit costs. */
  joker_credit_price: number;
}

/** What an Arena table may stake and how its pot is shared. */
export interface ArenaInfo {
  /** The stakes a table may choose (REMI_ARENA_STAKES). */
  stakes: number[];
  /** Per number of seats: per cent of the pot for the 1st, 2nd, ... place. */
  payouts: { [key: string]: number[] };
}

/** A page of the balance leaderboard; `next_cursor` asks for the next one. */
export interface BalanceBoard {
  rows: BalanceRow[];
  next_cursor: string | null;
}

/** A player on the balance leaderboard. */
export interface BalanceRow {
  place: number;
  player_id: string;
  display_name: string;
  balance: number;
}

/** Every variant, in the order of RULES.md §0. */
export interface Catalogue {
  variants: VariantFacts[];
}

/** The username and password a guest claims. */
export interface Claim {
  username: string;
  password: string;
}

/** A username and a password. */
export interface Credentials {
  username: string;
  password: string;
}

/** The deal the seed makes: each hand, the atu, the stock in order. */
export interface DealOut {
  first: number;
  hands: number[][];
  atu: number | null;
  stock: number[];
}

/** The match goes on until the players leave. */
export interface EndlessEnd {
  kind: "endless";
}

/** One change of the balance or of the joker credits. */
export interface EntryOut {
  id: number;
  /** start, daily_grant, round, joker_spent or joker_bought (docs/economy.md) */
  reason: string;
  amount: number;
  credits: number;
  room_id: string | null;
  round_number: number | null;
  seat: number | null;
  created_at: string;
}

/** A registered player and, at the end, their place and prize. */
export interface EntryView {
  player: PlayerRef;
  place: number | null;
  prize: number | null;
  out_stage: number | null;
}

/** One of the server's checks of a published round (commitment, deal, log, result). */
export interface FairCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface HTTPValidationError {
  detail?: ValidationError[];
}

/** Who a request's token names: the player, or null. */
export interface Identity {
  player: PlayerOut | null;
}

/**
 * What an invite link opens on before anyone signs in: the room's variant and who
 * invites, nothing else.
 */
export interface InviteView {
  /** The room's variant, an id of GET /api/variants. */
  variant: string;
  /** The display name of the room's owner. */
  host: string;
}

/** Body of POST /api/rooms/join-by-code. */
export interface JoinByCode {
  code: string;
}

/** How many joker credits to buy; `request_id` makes a retry buy nothing more. */
export interface JokerPurchase {
  /** A JSON integer (not a string). */
  count: number;
  request_id: string;
}

/** A page of the ledger, newest first; `next_before` asks for the next one. */
export interface LedgerPage {
  entries: EntryOut[];
  next_before: number | null;
}

/** Public rooms waiting for players. */
export interface Lobby {
  rooms: RoomView[];
}

/**
 * A page of a player's finished matches, newest first; `next_cursor` asks for the
 * next page (null: this is the last).
 */
export interface MatchHistory {
  player_id: string;
  matches: MatchSummary[];
  next_cursor: string | null;
}

/** One finished match in a player's history. */
export interface MatchSummary {
  room_id: string;
  variant: string;
  /** The room's kind: practice, normal, quick, arena, tournament. */
  kind: string;
  /** False: a private room (listed only to its players). */
  public: boolean;
  finished_at: string;
  rounds_played: number;
  seat: number;
  seats: SeatView[];
  totals: number[];
  winners: number[];
  won: boolean;
}

/** The variant's name as a player reads it, per language of the client. */
export interface Names {
  ro: string;
  en: string;
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

/** The current password and the new one. */
export interface PasswordChange {
  current_password: string;
  new_password: string;
}

/** Request body of POST /api/players. */
export interface PlayerCreate {
  display_name: string;
}

/** The new player and its token: shown this once, keep it. */
export interface PlayerCreated {
  player: PlayerOut;
  /** Bearer token; also set as an HttpOnly cookie. */
  token: string;
}

/** A player (public fields only). */
export interface PlayerOut {
  id: string;
  display_name: string;
  created_at: string;
}

/** A player as others see them. */
export interface PlayerRef {
  id: string;
  display_name: string;
}

/** How many seats a table of the variant may have (A.1, B.1). */
export interface Players {
  min: number;
  max: number;
}

/** A player's public profile. */
export interface Profile {
  player_id: string;
  display_name: string;
  created_at: string;
  balance: number;
  variants: VariantFigures[];
  history: RatingPoint[];
}

/**
 * A finished round's published record (docs/fairness.md): what
 * `python -m server.cli verify FILE` checks, with the server's own `checks`.
 */
export interface PublishedRound {
  scheme: string | null;
  room_id: string;
  round: number;
  variant: string;
  players: number;
  first: number;
  options: RoundOptionsOut;
  commitment: string | null;
  seed: string;
  deal: DealOut;
  /** The action log: each entry a seat and its action (RULES.md A.18/B.14). */
  actions: [number, { [key: string]: unknown }][];
  result: RoundResultOut | null;
  checks: FairCheck[];
}

/** Body of POST /api/quickstart. */
export interface QuickStartRequest {
  /** A variant id of GET /api/variants. */
  variant: "remi" | "remi45" | "remi51" | "etalat" | "etalat51" | "remi101" | "remi101-rising";
  /** The balance a table asks to sit down (its min_balance); 0: none. */
  stake?: number;
  /** Chosen by the client once per press and sent again on a retry: the same request gives the same room (for REMI_QUICK_START_REQUEST_SECONDS), even after that room started. */
  request_id?: string | null;
}

/** A page of a variant's rating leaderboard; `next_cursor` asks for the next one. */
export interface RatingBoard {
  variant: string;
  rows: RatingRow[];
  next_cursor: string | null;
}

/** The player's rating after one rated match. */
export interface RatingPoint {
  variant: string;
  room_id: string | null;
  rank: number;
  rating: number;
  rating_before: number;
  created_at: string;
}

/** A player on a variant's rating leaderboard. */
export interface RatingRow {
  place: number;
  player_id: string;
  display_name: string;
  rating: number;
  mu: number;
  sigma: number;
  matches: number;
}

/** A table meld as every seat sees it (§D). */
export interface ReplayMeld {
  /** set, run or double */
  kind: string;
  tiles: number[];
  /** Per position: the seat that laid the tile. */
  owners: number[];
  low: number | null;
  suit: number | null;
  /** Per position: null for a natural tile; for a joker, the faces that may buy it back. */
  stands_for: (number[] | null)[];
}

/**
 * One step of a replay: the event that made it (null: the deal) and the whole table
 * after it, every hand and the stock (top first) included.
 */
export interface ReplayStep {
  event: { [key: string]: unknown } | null;
  hands: number[][];
  stock: number[];
  atu: number | null;
  atu_taken_by: number | null;
  row: number[];
  row_by: (number | null)[];
  table: ReplayMeld[];
  consumed: number[];
  turn: number;
  phase: string;
  opened: boolean[];
}

/** Everything chosen when a room is created. */
export interface RoomSettings {
  /** Rules variant (RULES.md §0): an id of GET /api/variants. */
  variant: "remi" | "remi45" | "remi51" | "etalat" | "etalat51" | "remi101" | "remi101-rising";
  /** Number of seats, 2 to 4. */
  seats: number;
  /** One pack, hands of 10/11: only with 2 seats and a Remi/Etalat variant. */
  short_game: boolean;
  /** When the match ends. */
  end: EndlessEnd | RoundsEnd | TargetEnd;
  /** Seconds per turn; the server's default when omitted. */
  turn_seconds: 15 | 30 | 60 | 120 | null;
  /** Listed in the lobby; a private room gets an invite code. */
  public: boolean;
  /** Seats still empty at the start are played by bots. */
  fill_with_bots: boolean;
  /** Level of those bots. */
  bot_level: "easy" | "normal" | "hard";
  /** Family A: how deep into the discard row a seat may take; null = the whole row. */
  row_depth: number | null;
  /** Remi 101 only: the joker button. */
  joker_button: boolean;
  /** practice (no settlement), normal or quick (each round settles into the seats' balances), arena or tournament (standings only): docs/economy.md. */
  kind: "practice" | "normal" | "quick" | "arena" | "tournament";
  /** Balance a player needs to sit down (null: none). */
  min_balance: number | null;
  /** Arena only: each seat's stake, one of GET /api/arena's, taken from its player's balance into the pot when the match starts (docs/tournaments.md). */
  stake: number | null;
  /** Arena only, set by the server: per cent of the pot for the 1st, 2nd, ... place (REMI_ARENA_PAYOUT_3 / _4; 2 seats: the winner's). */
  payout: number[] | null;
}

/** A room as seen by one viewer (the invite code only for its members). */
export interface RoomView {
  id: string;
  status: string;
  version: number;
  owner: PlayerRef;
  /** The room's kind, decided by the server when it was made and never changed: practice (settles nothing, rates nothing), normal, quick, arena, tournament. */
  kind: "practice" | "normal" | "quick" | "arena" | "tournament";
  settings: RoomSettings;
  created_at: string;
  started_at: string | null;
  seats: SeatView[];
  free_seats: number;
  /** Private rooms, shown to the owner and seated players. */
  invite_code: string | null;
  /** The viewer's seat, if any. */
  your_seat: number | null;
  /** A waiting quick start room: seconds from this answer until it starts by itself, bots in its empty seats; null for a room its owner starts. */
  starts_in: number | null;
  /** A finished room played again: the id of the room its first "play again" made (POST /api/rooms/{id}/again), shown to its members only. */
  next_room: string | null;
}

/** One finished round on the score sheet: each seat's addition. */
export interface RoundLine {
  number: number;
  scores: (number | null)[];
}

/** The round's options (the deal's joker credits included, B.9). */
export interface RoundOptionsOut {
  row_depth: number | null;
  short_game: boolean;
  joker_button: boolean;
  joker_credits: number[] | null;
}

/** A finished round told again, step 0 the deal. */
export interface RoundReplay {
  room_id: string;
  round: number;
  seats: RoundSeat[];
  variant: string;
  players: number;
  first: number;
  options: RoundOptionsOut;
  steps: ReplayStep[];
  result: RoundResultOut | null;
  commitment: string | null;
  seed: string;
}

/**
 * A finished round: why it ended (`out` or `stock`), who went out, each seat's
 * total and how it was made.
 */
export interface RoundResultOut {
  reason: string;
  out: number | null;
  scores: number[];
  closing: string | null;
  breakdown: SeatScore[];
}

/** A seat of the room: its player's name, or its bot's level. */
export interface RoundSeat {
  seat: number;
  name: string | null;
  bot_level: string | null;
}

/** The match ends after a fixed number of rounds. */
export interface RoundsEnd {
  kind: "rounds";
  /** Number of rounds to play. */
  rounds: number;
}

/** A room's scores: each round's additions and the totals. */
export interface ScoreSheet {
  room_id: string;
  status: string;
  seats: SeatView[];
  rounds: RoundLine[];
  totals: number[];
  finished: boolean;
  winners: number[] | null;
}

/** Optional body of POST /api/rooms/{id}/seats/{seat}. */
export interface SeatRequest {
  /** Invite code, for a private room. */
  code?: string | null;
}

/** How one seat's round total was made (shown in the round summary). */
export interface SeatScore {
  seat: number;
  total: number;
  laid: number;
  hand: number;
  bonus: number;
  atu_pair: number;
  multiplier: number;
  note: string;
  opened: boolean;
  doublings: string[];
}

/** Who sits on a seat: a player, a bot (`bot_level`), or nobody. */
export interface SeatView {
  seat: number;
  player: PlayerRef | null;
  bot_level: string | null;
}

/** A token of the player (from this browser, or copied from another device). */
export interface SessionIn {
  token: string;
}

/** The player's sessions, most recently created first. */
export interface SessionList {
  sessions: SessionOut[];
}

/** One device the player is signed in on. */
export interface SessionOut {
  id: string;
  /** The device's browser (its User-Agent), if known. */
  label: string | null;
  /** When the device signed in. */
  created_at: string;
  /** When its current token was issued (rotation). */
  issued_at: string;
  /** When its token was last used (to within REMI_SESSION_TOUCH_SECONDS). */
  last_used_at: string | null;
  /** This is the session of the request's token. */
  current: boolean;
}

/** Family A's one-pack game (RULES.md §1): its seats, tiles and hand sizes. */
export interface ShortGame {
  players: number;
  tiles: number;
  /** The first player's hand, then the others'. */
  hand: number[];
}

/** The player signed in on this device, and this device's token: shown this once. */
export interface SignedIn {
  player: PlayerOut;
  username: string;
  /** Bearer token; also set as an HttpOnly cookie. */
  token: string;
}

/** A stage and its tables. */
export interface StageView {
  number: number;
  final: boolean;
  advance: number;
  started_at: string;
  finished_at: string | null;
  tables: TableView[];
}

/** A seat of a tournament table with its standing. */
export interface TableSeatView {
  seat: number;
  player: PlayerRef | null;
  bot_level: string | null;
  total: number;
  place: number;
  advanced: boolean | null;
  prize: number | null;
}

/** A table of a stage: its room (to watch or play), its standings. */
export interface TableView {
  number: number;
  room_id: string;
  status: string;
  rounds_played: number;
  seats: TableSeatView[];
}

/** The match ends after the round in which some total reaches `points`. */
export interface TargetEnd {
  kind: "target";
  /** Total that ends the match. */
  points: number;
}

/** A tournament with its entries and each stage's live standings. */
export interface TournamentDetail {
  id: string;
  kind: string;
  status: string;
  variant: string;
  table_seats: number;
  rounds: number;
  turn_seconds: number | null;
  players: number;
  registered: number;
  fee: number;
  pool: number;
  prizes: number[];
  prize_amounts: number[];
  stage: number;
  stages: number;
  starts_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  you: boolean;
  entries: EntryView[];
  stage_list: StageView[];
}

/** Tournaments, the soonest to start first. */
export interface TournamentList {
  tournaments: TournamentSummary[];
}

/** A tournament as the lobby lists it. */
export interface TournamentSummary {
  id: string;
  kind: string;
  status: string;
  variant: string;
  table_seats: number;
  rounds: number;
  turn_seconds: number | null;
  players: number;
  registered: number;
  fee: number;
  pool: number;
  prizes: number[];
  prize_amounts: number[];
  stage: number;
  stages: number;
  starts_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  you: boolean;
}

export interface ValidationError {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: { [key: string]: unknown };
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

/** A player's figures in one variant. */
export interface VariantFigures {
  variant: string;
  rating: number | null;
  mu: number | null;
  sigma: number | null;
  rated_matches: number;
  matches: number;
  wins: number;
  rounds: number;
  average_round_score: number | null;
  opening_rate: number | null;
  going_out_rate: number | null;
}

/** The rooms where the authenticated player holds a seat and that are not finished. */
export interface YourRooms {
  rooms: RoomView[];
}

/** Each operation's JSON body and success response (`void`: none). */
export interface Endpoints {
  "GET /livez": { body: void; response: unknown };
  "GET /readyz": { body: void; response: unknown };
  "GET /healthz": { body: void; response: unknown };
  "POST /api/players": { body: PlayerCreate; response: PlayerCreated };
  "GET /api/me": { body: void; response: PlayerOut };
  "GET /api/whoami": { body: void; response: Identity };
  "GET /api/players/me/rooms": { body: void; response: YourRooms };
  "GET /api/players/{player_id}/matches": { body: void; response: MatchHistory };
  "GET /api/players/{player_id}/profile": { body: void; response: Profile };
  "GET /api/account": { body: void; response: AccountOut };
  "POST /api/account": { body: Claim; response: AccountOut };
  "POST /api/account/login": { body: Credentials; response: SignedIn };
  "POST /api/account/password": { body: PasswordChange; response: void };
  "GET /api/account/ledger": { body: void; response: LedgerPage };
  "POST /api/account/jokers": { body: JokerPurchase; response: AccountOut };
  "POST /api/session": { body: SessionIn; response: PlayerOut };
  "DELETE /api/session": { body: void; response: void };
  "GET /api/sessions": { body: void; response: SessionList };
  "POST /api/sessions": { body: SessionIn; response: PlayerCreated };
  "POST /api/session/rotate": { body: void; response: PlayerCreated };
  "POST /api/session/revoke": { body: void; response: void };
  "DELETE /api/sessions/{session_id}": { body: void; response: void };
  "POST /api/session/revoke-all": { body: void; response: PlayerCreated };
  "POST /api/rooms": { body: RoomSettings; response: RoomView };
  "GET /api/rooms": { body: void; response: Lobby };
  "POST /api/rooms/join-by-code": { body: JoinByCode; response: RoomView };
  "GET /api/rooms/invite/{code}": { body: void; response: InviteView };
  "GET /api/rooms/{room_id}": { body: void; response: RoomView };
  "POST /api/rooms/{room_id}/seats/{seat}": { body: SeatRequest | null; response: RoomView };
  "POST /api/rooms/{room_id}/leave": { body: void; response: RoomView };
  "POST /api/rooms/{room_id}/start": { body: void; response: RoomView };
  "POST /api/rooms/{room_id}/again": { body: void; response: RoomView };
  "GET /api/rooms/{room_id}/scores": { body: void; response: ScoreSheet };
  "POST /api/quickstart": { body: QuickStartRequest; response: RoomView };
  "GET /api/leaderboards/rating/{variant}": { body: void; response: RatingBoard };
  "GET /api/leaderboards/balance": { body: void; response: BalanceBoard };
  "GET /api/rooms/{room_id}/rounds/{number}/replay": { body: void; response: RoundReplay };
  "GET /api/rooms/{room_id}/rounds/{number}/scenario": { body: void; response: unknown };
  "GET /api/rooms/{room_id}/rounds/{number}/verify": { body: void; response: PublishedRound };
  "GET /api/variants": { body: void; response: Catalogue };
  "GET /api/lobby/events": { body: void; response: void };
  "GET /api/arena": { body: void; response: ArenaInfo };
  "GET /api/tournaments": { body: void; response: TournamentList };
  "GET /api/tournaments/{tournament_id}": { body: void; response: TournamentDetail };
  "POST /api/tournaments/{tournament_id}/register": { body: void; response: TournamentSummary };
  "POST /api/tournaments/{tournament_id}/withdraw": { body: void; response: TournamentSummary };
}
