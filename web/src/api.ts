// The HTTP API (server/api): guest players, sessions, rooms, lobby, seats, start, scores,
// variants. The identity travels as the HttpOnly cookie the server sets; this device's
// token is also kept in localStorage so the player can carry it to another device (which
// then signs in with a token of its own, POST /api/sessions). A token older than
// ROTATE_AFTER_MS is rotated on page load (maybeRotate).

import type * as gen from "./api.gen";

// The request and response types are generated from the server's OpenAPI schema
// (src/api.gen.ts, `python -m server.apitypes`); these are the names the client uses.
export type Catalogue = gen.Catalogue;
export type PlayerRef = gen.PlayerRef;
export type Player = gen.PlayerOut;
export type EndCondition = gen.RoomSettings["end"];
export type RoomKind = gen.RoomView["kind"];
/** A room's settings. The variant and the turn time are widened to what a form holds:
 * the catalogue's variants arrive at run time, and the server checks both and says
 * what is wrong (the generated type lists the values it accepts). */
export type RoomSettings = Omit<gen.RoomSettings, "variant" | "turn_seconds"> & {
  variant: string;
  turn_seconds: number | null;
};
export type RoomSeat = gen.SeatView;
export type RoomView = gen.RoomView;
export type ScoreSheet = gen.ScoreSheet;
export type SessionRow = gen.SessionOut;
export type Account = gen.AccountOut;
export type LedgerEntry = gen.EntryOut;
export type RatingRow = gen.RatingRow;
export type BalanceRow = gen.BalanceRow;
export type VariantFigures = gen.VariantFigures;
export type RatingPoint = gen.RatingPoint;
export type Profile = gen.Profile;
export type MatchSummary = gen.MatchSummary;
export type InviteView = gen.InviteView;

/** Dispatched on `window` when the server refused this page's origin (HTTP or socket). */
export const ORIGIN_REFUSED_EVENT = "remi:origin-refused";

export class ApiError extends Error {
  constructor(
    public status: number,
    public code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err));
  }
  if (res.status === 204) return undefined as T;
  let data: unknown = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  if (!res.ok) {
    const d = (data ?? {}) as { code?: string; detail?: unknown };
    const detail =
      typeof d.detail === "string" ? d.detail : JSON.stringify(d.detail ?? res.statusText);
    // The server refuses this page's origin: the page says why (main.ts), not each caller.
    if (d.code === "origin_refused") window.dispatchEvent(new CustomEvent(ORIGIN_REFUSED_EVENT));
    throw new ApiError(res.status, d.code ?? `http_${res.status}`, detail);
  }
  return data as T;
}

const TOKEN_KEY = "remi.token";
const TOKEN_AT_KEY = "remi.token_at";

/** A token this old (or of unknown age) is replaced on page load: 7 days. */
export const ROTATE_AFTER_MS = 7 * 24 * 3600 * 1000;

export function savedToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

function saveToken(token: string): void {
  try {
    localStorage.setItem(TOKEN_KEY, token);
    localStorage.setItem(TOKEN_AT_KEY, String(Date.now()));
  } catch {
    /* ignore */
  }
}

/** Forget this device's token (signed out: the server refuses it now). */
export function forgetToken(): void {
  try {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_AT_KEY);
  } catch {
    /* ignore */
  }
}

/** The player this browser is (null: none yet). `GET /api/whoami` answers a first visit
 * without an error (no failed request in the console). */
export async function me(): Promise<Player | null> {
  const { player } = await call<gen.Identity>("GET", "/api/whoami");
  if (player) return player;
  // The cookie may be gone while the token is still known here: restore it.
  const token = savedToken();
  if (!token) return null;
  try {
    return await call<Player>("POST", "/api/session", { token });
  } catch {
    return null;
  }
}

export async function createPlayer(displayName: string): Promise<Player> {
  const res = await call<gen.PlayerCreated>("POST", "/api/players", {
    display_name: displayName,
  });
  saveToken(res.token);
  return res.player;
}

/** Sign in on this device with a token copied from another: this device gets a token
 * of its own (the copied one keeps working where it came from). */
export async function useToken(token: string): Promise<Player> {
  const res = await call<gen.PlayerCreated>("POST", "/api/sessions", { token });
  saveToken(res.token);
  return res.player;
}

/** A new token for this device (the old one stops working; open sockets stay). */
export async function rotate(): Promise<void> {
  const res = await call<gen.PlayerCreated>("POST", "/api/session/rotate");
  saveToken(res.token);
}

/** On page load: rotate a token kept here that is older than ROTATE_AFTER_MS, or whose
 * age is unknown. A failure changes nothing (another tab may have rotated it first). */
export async function maybeRotate(): Promise<void> {
  let at: number;
  try {
    if (!localStorage.getItem(TOKEN_KEY)) return;
    at = Number(localStorage.getItem(TOKEN_AT_KEY) ?? 0);
  } catch {
    return;
  }
  if (Date.now() - at < ROTATE_AFTER_MS) return;
  try {
    await rotate();
  } catch {
    /* keep the token we have */
  }
}

/** Sign out on this device: the server revokes its token. */
export async function signOut(): Promise<void> {
  try {
    await call<void>("POST", "/api/session/revoke");
  } finally {
    forgetToken();
  }
}

/** Sign out on every device; this one gets a new token and stays signed in. */
export async function signOutEverywhere(): Promise<void> {
  const res = await call<gen.PlayerCreated>("POST", "/api/session/revoke-all");
  saveToken(res.token);
}

export const sessions = () => call<gen.SessionList>("GET", "/api/sessions");
export const signOutDevice = (id: string) =>
  call<void>("DELETE", `/api/sessions/${encodeURIComponent(id)}`);

export const getVariants = () => call<Catalogue>("GET", "/api/variants");
/** Public rooms waiting for players, or (`playing`) the tables being played, to watch. */
export const lobby = (status: "waiting" | "playing" = "waiting") =>
  call<gen.Lobby>("GET", status === "waiting" ? "/api/rooms" : "/api/rooms?status=playing");
/** The rooms not finished where this player holds a seat (practice included), playing first. */
export const myRooms = () => call<gen.YourRooms>("GET", "/api/players/me/rooms");
export const createRoom = (s: Partial<RoomSettings>) => call<RoomView>("POST", "/api/rooms", s);
export const joinByCode = (code: string) =>
  call<RoomView>("POST", "/api/rooms/join-by-code", { code });
/** What an invite code opens (anyone may ask): the room's variant and its host's name. */
export const invite = (code: string) =>
  call<InviteView>("GET", `/api/rooms/invite/${encodeURIComponent(code)}`);
/** Play a finished match again: a new room with its settings, or a seat in the one another
 * of its players made. */
export const playAgain = (id: string) =>
  call<RoomView>("POST", `/api/rooms/${encodeURIComponent(id)}/again`);
export const getRoom = (id: string, code?: string | null) =>
  call<RoomView>(
    "GET",
    `/api/rooms/${encodeURIComponent(id)}${code ? `?code=${encodeURIComponent(code)}` : ""}`,
  );
export const takeSeat = (id: string, seat: number, code?: string | null) =>
  call<RoomView>(
    "POST",
    `/api/rooms/${encodeURIComponent(id)}/seats/${seat}`,
    code ? { code } : {},
  );
export const leaveSeat = (id: string) =>
  call<RoomView>("POST", `/api/rooms/${encodeURIComponent(id)}/leave`);
export const startRoom = (id: string) =>
  call<RoomView>("POST", `/api/rooms/${encodeURIComponent(id)}/start`);
export const scores = (id: string, code?: string | null) =>
  call<ScoreSheet>(
    "GET",
    `/api/rooms/${encodeURIComponent(id)}/scores${code ? `?code=${encodeURIComponent(code)}` : ""}`,
  );

// ------------------------------------------------------------------ accounts, the "cont"

/** The player's balance, joker credits and username (null: a guest). */
export const account = () => call<Account>("GET", "/api/account");

/** The guest claims a username and a password (the same player: nothing is lost). */
export const claimAccount = (username: string, password: string) =>
  call<Account>("POST", "/api/account", { username, password });

/** Sign in on this device with a username and a password: a session of its own. */
export async function login(username: string, password: string): Promise<Player> {
  const res = await call<gen.SignedIn>("POST", "/api/account/login", {
    username,
    password,
  });
  saveToken(res.token);
  return res.player;
}

/** Change the password; the other devices are signed out. */
export const changePassword = (current: string, next: string) =>
  call<void>("POST", "/api/account/password", { current_password: current, new_password: next });

export const ledger = (before?: number) =>
  call<gen.LedgerPage>("GET", `/api/account/ledger?limit=20${before ? `&before=${before}` : ""}`);

/** A fresh id for a request the server must not act on twice (a retry sends it again). */
export const newRequestId = () =>
  `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** Buy joker credits with the balance (`request_id`: a retry buys nothing more). */
export const buyJokers = (count: number) =>
  call<Account>("POST", "/api/account/jokers", {
    count,
    request_id: newRequestId(),
  });

// ------------------------------------------------------------------ finished rounds

/** A finished round told again (GET /api/rooms/{id}/rounds/{n}/replay). */
export type Replay = gen.RoundReplay;
/** One step of a replay: the event that made it (null: the deal) and the whole table after
 * it, every hand and the stock (top first) included. */
export type ReplayStep = gen.ReplayStep;
export type FairCheck = gen.FairCheck;
/** A finished round's published record (GET .../verify, docs/fairness.md). */
export type RoundRecord = gen.PublishedRound;

const roundPath = (room: string, n: number) => `/api/rooms/${encodeURIComponent(room)}/rounds/${n}`;
export const replay = (room: string, n: number) =>
  call<Replay>("GET", `${roundPath(room, n)}/replay`);
export const roundRecord = (room: string, n: number) =>
  call<RoundRecord>("GET", `${roundPath(room, n)}/verify`);
/** The round as a scenario file (a download). */
export const scenarioUrl = (room: string, n: number) => `${roundPath(room, n)}/scenario`;
/** The round's published record (a download, for `python -m server.cli verify`). */
export const recordUrl = (room: string, n: number) => `${roundPath(room, n)}/verify`;

// ------------------------------------------------------------------ quick start, boards

/** Sit at a waiting table of the variant (and stake), or open one that bots fill after a
 * short wait (POST /api/quickstart). One `requestId` per press: the press is sent again
 * with it once if the network failed, and the server answers a known request with the
 * room it gave, even after that table started. */
export async function quickStart(variant: string, stake = 0): Promise<RoomView> {
  const body = { variant, stake, request_id: newRequestId() };
  try {
    return await call<RoomView>("POST", "/api/quickstart", body);
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "network") throw err;
    return await call<RoomView>("POST", "/api/quickstart", body);
  }
}

const pageQuery = (cursor: string | null | undefined, limit: number) =>
  `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;

/** A page of a variant's rating leaderboard (best first). */
export const ratingBoard = (variant: string, cursor?: string | null, limit = 20) =>
  call<gen.RatingBoard>(
    "GET",
    `/api/leaderboards/rating/${encodeURIComponent(variant)}${pageQuery(cursor, limit)}`,
  );

/** A page of the balance leaderboard (highest first). */
export const balanceBoard = (cursor?: string | null, limit = 20) =>
  call<gen.BalanceBoard>("GET", `/api/leaderboards/balance${pageQuery(cursor, limit)}`);

export const profile = (playerId: string) =>
  call<Profile>("GET", `/api/players/${encodeURIComponent(playerId)}/profile`);

/** A page of a player's finished matches, newest first. */
export const playerMatches = (playerId: string, cursor?: string | null, limit = 10) =>
  call<gen.MatchHistory>(
    "GET",
    `/api/players/${encodeURIComponent(playerId)}/matches${pageQuery(cursor, limit)}`,
  );
