// The coach's messages in the practice worker (practice/worker.ts hands them here): a
// finished round reviewed for one seat by server/bots/coach.py under Pyodide, one
// decision at a time (each posted as it is valued, so the page fills in and can stop),
// and the hard level's hint on the practice table's view. The round comes from the page
// (a server round's record) or, with `round: null`, from the practice match in the
// worker: its finished round `number` (0: the last finished one), kept with the match
// (server/practice/room.py), so a reload loses none. Python refuses a round still in play.

import type { PyodideAPI } from "pyodide";

/** A round as the coach reads it (server/bots/coach.py review_json). */
export interface CoachRound {
  variant: string;
  players: number;
  deal: unknown;
  options: unknown;
  log: [number, Record<string, unknown>][];
}

/** One decision of the reviewed seat (server/bots/coach.py Decision). */
export interface CoachDecision {
  index: number;
  seat: number;
  kind: string;
  played: Record<string, unknown>;
  best: Record<string, unknown>;
  cost: number;
  se: number;
  worlds: number;
  candidates: number;
  flagged: boolean;
  stock: number;
  text: { en?: string; ro?: string };
  /** The same with each tile as `{t:ID}`, for the page to write it. */
  marked?: { en?: string; ro?: string };
  hand: number[];
  row: number[];
}

export type CoachToWorker =
  | {
      kind: "coach";
      id: number;
      round: CoachRound | null;
      /** With `round: null`: the practice match's finished round (0: the last one). */
      number?: number;
      seat: number;
      budget: number;
    }
  | { kind: "coach_stop"; id: number }
  | { kind: "coach_hint"; id: number; view: unknown };

export type CoachFromWorker =
  | { kind: "coach_start"; id: number; total: number; round: CoachRound }
  | { kind: "coach_decision"; id: number; decision: CoachDecision; done: number; total: number }
  | { kind: "coach_end"; id: number; stopped: boolean }
  | {
      kind: "coach_hint";
      id: number;
      action: Record<string, unknown>;
      text: { en: string; ro: string };
      marked: { en: string; ro: string };
    }
  | { kind: "coach_failed"; id: number; code: string; message: string };

/** What the worker lends the coach. */
export interface CoachHost {
  api(): Promise<PyodideAPI>;
  /** The practice's session (server/practice/bridge.py Session, a Pyodide proxy), if one is open. */
  session(): PracticeRounds | null;
  post(m: CoachFromWorker): void;
}

const COACH_KINDS = new Set(["coach", "coach_stop", "coach_hint"]);
const stopped = new Set<number>();

/** Handles a coach message; false when `m` is not one. */
export function coachMessage(m: { kind: string }, host: CoachHost): boolean {
  if (!COACH_KINDS.has(m.kind)) return false;
  const msg = m as CoachToWorker;
  if (msg.kind === "coach_stop") stopped.add(msg.id);
  else if (msg.kind === "coach") void review(msg, host);
  else void hint(msg, host);
  return true;
}

/** What the coach reads of the practice's session. */
export interface PracticeRounds {
  finished_round(number: number): string | undefined | null;
}

function practiceRound(number: number, host: CoachHost): CoachRound | null {
  const text = host.session()?.finished_round(number);
  return text ? (JSON.parse(text) as CoachRound) : null;
}

const pause = () => new Promise((r) => setTimeout(r, 0));

async function review(
  m: Extract<CoachToWorker, { kind: "coach" }>,
  host: CoachHost,
): Promise<void> {
  try {
    const api = await host.api();
    const coach = api.pyimport("server.bots.coach");
    const round = m.round ?? practiceRound(m.number ?? 0, host);
    if (!round) {
      coach.destroy();
      host.post({
        kind: "coach_failed",
        id: m.id,
        code: "no_round",
        message: "no finished round to review",
      });
      return;
    }
    const total = round.log.filter(([s]) => s === m.seat).length;
    const gen = coach.review_json(
      JSON.stringify(round),
      m.seat,
      () => performance.now() / 1000,
      m.budget,
    );
    host.post({ kind: "coach_start", id: m.id, total, round });
    let done = 0;
    try {
      for (;;) {
        await pause(); // a stop message gets in between two decisions
        if (stopped.has(m.id)) break;
        const r = gen.next() as { done: boolean; value: string };
        if (r.done) break;
        done += 1;
        host.post({
          kind: "coach_decision",
          id: m.id,
          decision: JSON.parse(r.value) as CoachDecision,
          done,
          total,
        });
      }
    } finally {
      gen.destroy();
      coach.destroy();
    }
    host.post({ kind: "coach_end", id: m.id, stopped: stopped.delete(m.id) });
  } catch (err) {
    const text = String(err).split("\n").filter(Boolean).pop() ?? "";
    host.post({
      kind: "coach_failed",
      id: m.id,
      code: text.includes("round_not_finished") ? "round_not_finished" : "internal_error",
      message: text,
    });
  }
}

async function hint(
  m: Extract<CoachToWorker, { kind: "coach_hint" }>,
  host: CoachHost,
): Promise<void> {
  try {
    const api = await host.api();
    const coach = api.pyimport("server.bots.coach");
    const out = JSON.parse(coach.hint_json(JSON.stringify(m.view)) as string) as {
      action: Record<string, unknown>;
      text: { en: string; ro: string };
      marked: { en: string; ro: string };
    };
    coach.destroy();
    host.post({ kind: "coach_hint", id: m.id, ...out });
  } catch (err) {
    host.post({
      kind: "coach_failed",
      id: m.id,
      code: "internal_error",
      message: String(err).split("\n").filter(Boolean).pop() ?? "",
    });
  }
}
