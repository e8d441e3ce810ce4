// The offline practice's IndexedDB: the match being played (kept by the worker after
// every change, so a reload, a closed tab or a restarted phone resumes it) and the local
// history of finished practice matches with their score sheets and their rounds (for
// the coach's review), the newest HISTORY_KEPT of them. Used by the worker and by the
// lobby (which lists the history and offers to resume).

import type { CoachRound } from "../coach-worker";

const DB = "remi-practice";
const GAME = "game";
const HISTORY = "history";
const CURRENT = "current";

/** The finished matches kept (and listed in the lobby); an older one goes. */
export const HISTORY_KEPT = 20;

export interface KeptGame {
  /** The Python room's to_dict (server/practice/room.py), as JSON text. */
  state: string;
  settings: PracticeSettings;
  saved_at: number;
}

export interface PracticeSettings {
  variant: string;
  seats: number;
  short_game?: boolean;
  joker_button?: boolean;
  bot_levels: string[];
  turn_seconds: number | null;
  end: { kind: "rounds"; rounds: number } | { kind: "target"; points: number };
}

export interface HistoryEntry {
  id?: number;
  finished_at: number;
  settings: PracticeSettings;
  scores: { rounds: (number | null)[][]; totals: number[]; over: boolean; winners: number[] };
  name: string | null;
  /** Each finished round as the coach reads it (server/practice/room.py summary), the
   * player's seat 0; absent in a match kept before rounds were. */
  rounds?: (CoachRound & { number: number })[];
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains(GAME)) db.createObjectStore(GAME);
      if (!db.objectStoreNames.contains(HISTORY))
        db.createObjectStore(HISTORY, { keyPath: "id", autoIncrement: true });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run<T>(
  store: string,
  mode: IDBTransactionMode,
  work: (s: IDBObjectStore) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const db = await open();
  try {
    return await new Promise<T | undefined>((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const req = work(tx.objectStore(store));
      tx.oncomplete = () => resolve(req ? req.result : undefined);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export function loadGame(): Promise<KeptGame | undefined> {
  return run<KeptGame>(GAME, "readonly", (s) => s.get(CURRENT));
}

export async function saveGame(game: KeptGame): Promise<void> {
  await run(GAME, "readwrite", (s) => s.put(game, CURRENT));
}

export async function dropGame(): Promise<void> {
  await run(GAME, "readwrite", (s) => s.delete(CURRENT));
}

/** A finished match into the history (the oldest beyond HISTORY_KEPT gone), and the kept
 * game gone, in one transaction. */
export async function finishGame(entry: HistoryEntry): Promise<void> {
  const db = await open();
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction([GAME, HISTORY], "readwrite");
      const past = tx.objectStore(HISTORY);
      past.add(entry);
      // Keys grow with each match: the first ones are the oldest.
      const keys = past.getAllKeys();
      keys.onsuccess = () => {
        for (const key of keys.result.slice(0, -HISTORY_KEPT)) past.delete(key);
      };
      tx.objectStore(GAME).delete(CURRENT);
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** The finished practice matches, newest first. */
export async function history(): Promise<HistoryEntry[]> {
  const all = (await run<HistoryEntry[]>(HISTORY, "readonly", (s) => s.getAll())) ?? [];
  return all.sort((a, b) => b.finished_at - a.finished_at);
}
