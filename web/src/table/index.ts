// The Remi table: the reducer's state (state.ts) drawn by render.ts and driven by
// input.ts, with the effects it asks for run here: moves and queries go to the room's
// socket, the rack layout is saved, refusals are shown. The server decides everything:
// values, the opening lock and refusals come from its answers; the browser only asks.

import { toast } from "../dom";
import { reason, t } from "../i18n";
import type { GameAction, VariantFacts } from "../protocol.gen";
import { sameLayout } from "../rack";
import type { ArrangeAnswer, FormationAnswer, OpeningLock } from "../types";
import { TableInput } from "./input";
import { seatName, TableView } from "./render";
import {
  colsFor,
  formations,
  initialState,
  lockKey,
  rackLayout,
  reduce,
  type Connection,
  type Effect,
  type PreviewThen,
  type RoomData,
  type ServerError,
  type TableEvent,
  type TableState,
} from "./state";

export type { RoomData };

export interface TableHost {
  action(a: GameAction): Promise<void>;
  /** `taken`: the tile a take would bring (the lock then says whether a formation holds it). */
  queryFormations(
    formations: number[][],
    taken: number | null,
  ): Promise<{ answers: FormationAnswer[]; lock: OpeningLock | null }>;
  /** The engine's best melds in this seat's hand (the `arrange` query). */
  queryArrange(): Promise<ArrangeAnswer>;
  /** The tiles that would come along, and why the seat may not take this one (null: it may). */
  queryRowPreview(index: number): Promise<{ tiles: number[]; block: ServerError | null }>;
  saveRack(layout: (number | null)[]): void;
  leave(): void;
  /** The round summary was read (`next_round`): the next deal need not wait for this seat. */
  summaryRead(): void;
  openScores(): void;
  /** Play the finished match again (a new room with its settings, or the one made). */
  playAgain?(): void;
  langButton(): HTMLElement;
  /** The header's buttons beside the language's (sounds, reactions), if any. */
  headerButtons?(): HTMLElement[];
}

const RACK_SAVE_MS = 250;
const ASK_MS = 120; // the socket has a message budget: formations are asked after a pause

function asError(err: unknown): ServerError {
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  return { code: String(e.code ?? "network"), message: String(e.message ?? "") };
}

export class Table {
  private s: TableState = initialState();
  private view: TableView;
  private draggingNow = false;
  private timerHandle = 0;
  private rackTimer = 0;
  private askTimer = 0;
  private queryGen = 0;
  private lastSentLayout: (number | null)[] | null = null;

  constructor(
    root: HTMLElement,
    private host: TableHost,
  ) {
    root.classList.add("table-root");
    this.view = new TableView(root, host);
    new TableInput(root, {
      state: () => this.s,
      dispatch: (e) => this.dispatch(e),
      dragging: (on) => {
        this.draggingNow = on;
        if (!on) this.render(); // what waited for the drop
      },
      dragPreview: (index) => this.dragPreview(index),
    });
    this.timerHandle = window.setInterval(() => this.view.tick(this.s), 500);
    this.s = reduce(this.s, { type: "cols", cols: colsFor(window.innerWidth) }).state;
    window.addEventListener("resize", this.onResize);
  }

  /** A rotated phone or a resized window: the rack's columns follow the width. */
  private onResize = (): void => {
    const cols = colsFor(window.innerWidth);
    if (cols !== this.s.cols && !this.draggingNow) this.dispatch({ type: "cols", cols });
  };

  dispose(): void {
    window.removeEventListener("resize", this.onResize);
    window.clearInterval(this.timerHandle);
    window.clearTimeout(this.rackTimer);
    window.clearTimeout(this.askTimer);
  }

  seatName(seat: number): string {
    return seatName(this.s, seat);
  }

  setConnection(status: Connection): void {
    this.s = reduce(this.s, { type: "connection", status }).state;
    this.view.banner(this.s);
  }

  update(room: RoomData, variant: VariantFacts | null): void {
    this.dispatch({ type: "room", room, variant });
  }

  render(): void {
    if (!this.draggingNow) this.view.render(this.s);
  }

  /** One event through the reducer, its effects run, the table drawn again. */
  dispatch(event: TableEvent): void {
    const { state, effects } = reduce(this.s, event);
    this.s = state;
    for (const effect of effects) this.run(effect);
    this.render();
  }

  private run(effect: Effect): void {
    switch (effect.do) {
      case "send":
        void this.send(effect.action, effect.clearsPending);
        return;
      case "rackChanged":
        this.scheduleRackSave();
        this.askFormations();
        return;
      case "ask":
        this.askFormations();
        return;
      case "rowPreview":
        void this.rowPreview(effect.index, effect.then);
        return;
      case "toast":
        toast(t(effect.key));
        return;
      case "error": {
        // The server counts seats from 0 ("seat 1"); the page names them (render.ts seatName).
        const message = effect.error.message.replace(/\bseat (\d+)/g, (_, n: string) =>
          seatName(this.s, Number(n)),
        );
        toast(reason(effect.error.code, message), "error", message);
        return;
      }
      case "leave":
        this.host.leave();
        return;
      case "openScores":
        this.host.openScores();
        return;
      case "summaryRead":
        this.host.summaryRead();
        return;
      case "again":
        this.host.playAgain?.();
        return;
      case "arrange":
        this.host
          .queryArrange()
          .then((a) =>
            this.dispatch({ type: "arranged", melds: a.melds.map((m) => m.tiles), left: a.left }),
          )
          .catch((err) => toast(reason(asError(err).code, asError(err).message), "error"));
        return;
    }
  }

  private async send(action: GameAction, clearsPending: boolean): Promise<void> {
    let error: ServerError | null = null;
    try {
      await this.host.action(action);
    } catch (err) {
      error = asError(err);
    }
    this.dispatch({ type: "sent", action, clearsPending, error });
  }

  private async rowPreview(index: number, then: PreviewThen): Promise<void> {
    try {
      const { tiles, block } = await this.host.queryRowPreview(index);
      this.dispatch({ type: "rowPreview", index, tiles, then, error: null, block });
    } catch (err) {
      this.dispatch({ type: "rowPreview", index, tiles: [], then, error: asError(err) });
    }
  }

  private async dragPreview(index: number): Promise<void> {
    if (this.s.preview?.index === index) return;
    await this.rowPreview(index, { kind: "drag" });
    // The render waits for the drop: highlight in place, under the finger.
    if (this.draggingNow) this.view.showDragPreview(this.s);
  }

  private scheduleRackSave(): void {
    window.clearTimeout(this.rackTimer);
    this.rackTimer = window.setTimeout(() => {
      // A move is on its way: the hand is about to change; save after it.
      if (this.s.busy) return this.scheduleRackSave();
      const layout = rackLayout(this.s);
      if (!layout || (this.lastSentLayout && sameLayout(layout, this.lastSentLayout))) return;
      this.lastSentLayout = layout;
      this.host.saveRack(layout);
    }, RACK_SAVE_MS);
  }

  private askFormations(): void {
    window.clearTimeout(this.askTimer);
    this.askTimer = window.setTimeout(() => this.askNow(), ASK_MS);
  }

  private askNow(): void {
    const v = this.s.room.view;
    if (!v || v.over) return;
    const forms = formations(this.s).map((f) => f.tiles);
    const key = lockKey(this.s);
    const gen = ++this.queryGen;
    this.host
      .queryFormations(forms, this.s.pending?.taken ?? null)
      .then(({ answers, lock }) => {
        if (gen === this.queryGen) this.dispatch({ type: "formations", forms, answers, lock, key });
      })
      .catch(() => {
        /* the next change asks again */
      });
  }
}
