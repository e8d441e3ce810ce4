// A room: the waiting room (seats, invite link, start) and then the table, both fed by the
// room's WebSocket; the HTTP API for seats and start. The offline practice (`local`) is
// the same page and table fed by the practice worker instead (practice/local.ts).

import { accountChip } from "./account";
import * as api from "./api";
import { loadCatalogue, variantFacts, variantName } from "./catalogue";
import { RoomConnection, type ServerError, type Transport } from "./conn";
import { clear, h, nameEl, namesEl, toast } from "./dom";
import { hideElsewhere, showElsewhere, showOriginRefused, signedOut } from "./elsewhere";
import { failureText, reason, t, tParts } from "./i18n";
import { endText, showApiError } from "./lobby";
import type { App } from "./main";
import { noteDeal } from "./fair/seen";
import { cuesOf, tickDue } from "./feel/cues";
import { Reactions } from "./feel/reactions";
import { Sounds } from "./feel/sounds";
import { startLocal } from "./practice/box";
import { LocalConnection, type LocalOptions } from "./practice/local";
import type { PracticeSettings } from "./practice/store";
import { practiceCoachButtons, practiceReviewButton } from "./coach";
import { reviewHead, scoreSheet } from "./scoresheet";
import { replayHash, verifyHash } from "./replay";
import type { GameAction, ServerMessage } from "./protocol.gen";
import { Table, type RoomData } from "./table/index";
import { againBox as scoresAgain } from "./table/render";
import { applyMessage } from "./table/messages";
import { emptyRoom } from "./table/state";
import type { ArrangeAnswer, FormationAnswer, OpeningLock } from "./types";

export class RoomPage {
  private conn: Transport | null = null;
  private room: api.RoomView | null = null;
  private version: number | null = null;
  private state: RoomData = emptyRoom();
  private table: Table | null = null;
  private pollTimer = 0;
  private disposed = false;
  private scoresOpen = false;
  private tableHost: HTMLElement | null = null;
  private onOnline = () => this.conn?.nudge();
  private sounds = new Sounds();
  private reactions = new Reactions({
    send: (reaction) => this.conn?.raw({ type: "react", reaction }),
    seats: () => this.state.seats,
    mySeat: () => this.state.view?.seat ?? null,
  });
  private tickTimer = 0;
  private lastTick: number | null = null;
  // A quick start room's countdown: when (local clock, s) it starts by itself with bots.
  private countdownFor: api.RoomView | null = null;
  private startsAt: number | null = null;
  private countTimer = 0;
  // A finished match: the room's view read again now and then, until another player's
  // "play again" shows (`next_room`); the practice's settings, to play it again.
  private againTimer = 0;
  private againBusy = false;
  private localSettings: PracticeSettings | null = null;

  constructor(
    private app: App,
    private roomId: string,
    private local: LocalOptions | null = null,
  ) {}

  start(): void {
    if (this.local) {
      void this.startLocal(this.local);
      return;
    }
    if (!this.app.player) {
      this.renderNameGate();
      return;
    }
    void this.loadRoom();
    window.addEventListener("online", this.onOnline);
  }

  dispose(): void {
    this.disposed = true;
    window.clearInterval(this.pollTimer);
    window.clearInterval(this.tickTimer);
    window.clearInterval(this.countTimer);
    window.clearInterval(this.againTimer);
    this.reactions.dispose();
    window.removeEventListener("online", this.onOnline);
    this.conn?.close();
    this.table?.dispose();
    document.getElementById("conn-banner")?.classList.remove("show");
    document.getElementById("scores-modal")?.remove();
    hideElsewhere();
  }

  relabel(): void {
    if (this.table) {
      this.table.render();
      if (this.scoresOpen) this.renderScores();
    } else this.renderWaiting();
  }

  private renderNameGate(): void {
    const root = this.app.root;
    clear(root);
    const input = h("input", {
      id: "display-name",
      maxlength: 32,
      required: true,
      placeholder: t("lobby.name.placeholder"),
      "data-testid": "name-input",
    });
    root.append(
      h(
        "main",
        { class: "lobby" },
        h(
          "header",
          { class: "topbar" },
          h("h1", null, t("app.title")),
          h("span", { class: "spacer" }),
          this.app.langButton(),
        ),
        h(
          "form",
          {
            class: "card name-form",
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                this.app.setPlayer(await api.createPlayer(input.value.trim()));
                this.start();
              } catch (err) {
                showApiError(err);
              }
            },
          },
          h("label", { for: "display-name" }, t("lobby.name")),
          h(
            "div",
            { class: "row" },
            input,
            h(
              "button",
              { type: "submit", class: "primary", "data-testid": "name-save" },
              t("lobby.name.save"),
            ),
          ),
        ),
      ),
    );
    input.focus();
  }

  private async loadRoom(): Promise<void> {
    try {
      [this.room] = await Promise.all([api.getRoom(this.roomId), loadCatalogue()]);
    } catch (err) {
      if (this.disposed) return;
      clear(this.app.root);
      this.app.root.append(
        h(
          "main",
          { class: "lobby" },
          h(
            "p",
            { class: "card", "data-testid": "room-error" },
            err instanceof api.ApiError && err.status === 404
              ? t("room.notfound")
              : err instanceof api.ApiError && err.status === 0
                ? t("offline.text")
                : err instanceof api.ApiError
                  ? reason(err.code, err.message)
                  : failureText(err),
          ),
          h("a", { href: "#/" }, t("common.back")),
        ),
      );
      return;
    }
    if (this.disposed) return;
    this.state.variantId = this.room.settings.variant;
    this.state.status = this.room.status;
    this.connect();
    if (this.room.status === "waiting") {
      this.renderWaiting();
      this.pollTimer = window.setInterval(() => this.poll(), 2000);
    } else {
      this.showTable();
    }
  }

  private async startLocal(opts: LocalOptions): Promise<void> {
    try {
      await loadCatalogue();
    } catch (err) {
      showApiError(err);
    }
    if (this.disposed) return;
    this.state.status = "playing";
    this.state.variantId = opts.settings?.variant ?? null;
    const failed = opts.onFailed;
    this.conn = new LocalConnection(
      {
        onMessage: (m) => this.onMessage(m),
        onStatus: (s) => this.table?.setConnection(s === "connecting" ? "open" : s),
        onFatal: () => undefined,
        lastVersion: () => this.version,
      },
      {
        ...opts,
        onReady: (settings, loadMs) => {
          this.localSettings = settings;
          opts.onReady?.(settings, loadMs);
        },
        onFailed: (code, message) => {
          failed?.(code, message);
          if (code === "no_game") {
            this.app.go("#/");
            return;
          }
          toast(reason(code, message), "error", message);
        },
      },
    );
    this.conn.connect();
    this.showTable();
  }

  private async poll(): Promise<void> {
    if (this.state.status !== "waiting") {
      window.clearInterval(this.pollTimer);
      return;
    }
    try {
      const room = await api.getRoom(this.roomId);
      if (this.disposed) return;
      this.room = room;
      if (room.status !== "waiting") {
        this.state.status = room.status;
        window.clearInterval(this.pollTimer);
        this.showTable();
        // The socket may have been refused while waiting: make sure it is there.
        this.conn?.nudge();
      } else this.renderWaiting();
    } catch {
      /* keep polling */
    }
  }

  // ------------------------------------------------------------ socket

  private connect(): void {
    if (this.conn) return;
    this.conn = new RoomConnection(this.roomId, {
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => this.table?.setConnection(s),
      onFatal: (code) => {
        if (this.disposed) return;
        if (code === 4409) showElsewhere(() => this.conn?.reopen());
        else if (code === 4003) showOriginRefused();
        else if (code === 4403) void signedOut(this.app, () => this.conn?.reopen());
        else if (code === 4401) toast(t("err.not_authenticated"));
        else if (code === 4410)
          this.app.go("#/"); // told why by the owner_gone error
        else if (this.state.status !== "waiting") toast(t("room.notfound"));
      },
      lastVersion: () => this.version,
    });
    this.conn.connect();
  }

  private onMessage(m: ServerMessage): void {
    if (m.type === "error") {
      // Told before a close that onFatal explains.
      if (
        m.code === "played_elsewhere" ||
        m.code === "session_revoked" ||
        m.code === "origin_refused"
      )
        return;
      toast(reason(m.code, m.message), "error", m.message);
      return;
    }
    if (m.type === "reaction") {
      this.reactions.show(m.seat, m.reaction);
      return;
    }
    const seen = { turn: this.state.view?.turn ?? null, seat: this.state.view?.seat ?? null };
    const { room, version, refresh, scoresChanged } = applyMessage(
      this.state,
      m,
      Date.now() / 1000,
    );
    const now = {
      turn: room.view?.turn ?? null,
      seat: room.view?.seat ?? null,
      over: room.view?.over ?? false,
    };
    for (const cue of cuesOf(seen, now, m)) this.sounds.play(cue);
    this.state = room;
    if (version !== null) this.version = version;
    if (!this.local) this.noteDeal(m);
    if (m.type === "snapshot") this.conn?.noteLastSeq(m.last_seq);
    if (
      m.type === "snapshot" ||
      (m.type === "event" && (m.event.do === "round_start" || m.event.do === "joker_button"))
    ) {
      void this.loadCredits();
    }
    if (m.type === "event" && m.event.do === "room_changed" && room.status === "waiting")
      void this.poll();
    if (room.matchOver && room.again === undefined) this.offerAgain();
    if (scoresChanged && this.scoresOpen) this.renderScores();
    if (refresh) this.refresh();
  }

  // ------------------------------------------------------------ play again

  /** The match is over: "play again" for a seated player (never at a tournament's table),
   * and, on the server, the room read every 3 s until another player made the new room. */
  private offerAgain(): void {
    const seated = this.state.view?.seat != null;
    const kind = this.room?.settings.kind;
    const offered = seated && (this.local ? true : !!this.room && kind !== "tournament");
    // Against bots alone (the practice here or on the server): a new match, nobody invited.
    const solo = !!this.local || kind === "practice";
    this.state = { ...this.state, again: offered ? (solo ? "solo" : "new") : null };
    if (!offered || this.local) return;
    const look = async () => {
      try {
        const room = await api.getRoom(this.roomId);
        if (this.disposed || !room.next_room) return;
        window.clearInterval(this.againTimer);
        this.state = { ...this.state, again: "join" };
        this.refresh();
        if (this.scoresOpen) this.renderScores();
      } catch {
        /* read again at the next tick */
      }
    };
    window.clearInterval(this.againTimer);
    this.againTimer = window.setInterval(() => void look(), 3000);
    void look();
  }

  /** The same settings again: the practice on this device starts a new match; on the
   * server the new room is made (or joined, if another player made it) and opened. */
  private async playAgain(): Promise<void> {
    if (this.againBusy) return;
    if (this.local) {
      const settings = this.localSettings ?? this.local.settings;
      if (settings) startLocal(settings, (hash) => this.app.go(hash));
      return;
    }
    this.againBusy = true;
    try {
      let room = await api.playAgain(this.roomId);
      // A practice room with bots starts at once, as from the lobby.
      if (room.kind === "practice" && room.owner.id === this.app.player?.id)
        room = await api.startRoom(room.id);
      this.app.go(`#/room/${encodeURIComponent(room.id)}`);
    } catch (err) {
      showApiError(err);
    } finally {
      this.againBusy = false;
    }
  }

  /** The round's commitment as this browser was given it (and, with the deal itself,
   * this seat's hand), for the verify page once the seed is out (fair/seen.ts). Only a
   * message that carries the view of now (a snapshot, or an event with its view or
   * patch) says which commitment the current round has. */
  private noteDeal(m: ServerMessage): void {
    const v = this.state.view;
    const round = this.state.round;
    const current = m.type === "snapshot" || (m.type === "event" && (m.view || m.patch));
    if (!current || !v?.commitment || !round || v.over) return;
    const dealt = m.type === "event" && m.event.do === "round_start" && !!m.view && v.seat !== null;
    noteDeal(this.roomId, round, v.commitment, v.seat, dealt ? v.hand : null);
  }

  /** The joker credits of the player's account, shown on the 101 button. */
  private async loadCredits(): Promise<void> {
    try {
      const acc = await api.account();
      if (this.disposed) return;
      this.state = { ...this.state, accountCredits: acc.joker_credits };
      if (this.table) this.showTable();
    } catch {
      /* the button shows the round's credit */
    }
  }

  private refresh(): void {
    if (this.state.status === "waiting" && !this.state.view) {
      this.renderWaiting();
      return;
    }
    this.showTable();
  }

  // ------------------------------------------------------------ waiting room

  /** The seconds until bots fill the table, counted down once a second. */
  private countdownEl(): HTMLElement {
    const el = h("p", {
      class: "countdown",
      role: "timer",
      "aria-live": "off",
      "data-testid": "quick-countdown",
    });
    const show = () => {
      if (this.startsAt === null) return;
      const left = Math.max(0, Math.ceil(this.startsAt - Date.now() / 1000));
      el.textContent = left > 0 ? t("quick.countdown", { n: left }) : t("quick.countdown.now");
      el.dataset.left = String(left);
    };
    show();
    window.clearInterval(this.countTimer);
    this.countTimer = window.setInterval(show, 1000);
    return el;
  }

  private renderWaiting(): void {
    if (this.disposed || this.table) return;
    const room = this.room;
    const root = this.app.root;
    clear(root);
    if (!room) return;
    if (room !== this.countdownFor) {
      // The server's seconds from its answer, on this page's clock (a phone's clock may be off).
      this.countdownFor = room;
      this.startsAt = room.starts_in != null ? Date.now() / 1000 + room.starts_in : null;
    }
    if (this.startsAt === null) window.clearInterval(this.countTimer);
    const me = this.app.player?.id;
    const seated = room.your_seat;
    const isOwner = room.owner.id === me;
    const link = room.invite_code
      ? `${location.origin}${location.pathname}#/join/${encodeURIComponent(room.invite_code)}`
      : `${location.origin}${location.pathname}#/room/${encodeURIComponent(room.id)}`;
    const linkInput = h("input", {
      readonly: true,
      value: link,
      "data-testid": "invite-link",
      "aria-label": t("room.invite"),
    });
    const seats = h("ol", { class: "wait-seats" });
    for (const s of room.seats) {
      let who: (string | HTMLElement)[];
      if (s.player)
        who = [nameEl(s.player.display_name), s.player.id === me ? ` (${t("room.seat.you")})` : ""];
      else if (s.bot_level) who = [t("room.seat.bot", { level: t(`settings.bot.${s.bot_level}`) })];
      else
        who = [
          h("span", { class: "muted" }, t("room.seat.free")),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "small",
              "data-testid": `take-seat-${s.seat}`,
              onclick: async () => {
                try {
                  this.room = await api.takeSeat(room.id, s.seat);
                  this.renderWaiting();
                } catch (err) {
                  showApiError(err);
                }
              },
            },
            t("room.seat.take"),
          ),
        ];
      seats.append(
        h(
          "li",
          { "data-testid": `wait-seat-${s.seat}` },
          h("strong", null, t("room.seat", { n: s.seat + 1 }), ": "),
          who,
        ),
      );
    }
    const st = room.settings;
    root.append(
      h(
        "main",
        { class: "lobby waiting", "data-testid": "waiting-room" },
        h(
          "header",
          { class: "topbar" },
          h(
            "button",
            {
              type: "button",
              class: "icon back",
              "aria-label": t("common.back"),
              onclick: () => this.leaveWaiting(),
            },
            "←",
          ),
          h("h1", null, variantName(st.variant)),
          h("span", { class: "spacer" }),
          this.app.player ? accountChip() : null,
          this.app.langButton(),
        ),
        h(
          "section",
          { class: "card" },
          h("h2", null, t("room.waiting")),
          st.kind === "quick"
            ? h("p", { "data-testid": "quick-waiting" }, t("quick.waiting"))
            : null,
          this.startsAt !== null ? this.countdownEl() : null,
          h(
            "p",
            { class: "muted" },
            [
              st.kind === "arena"
                ? `${t("arena.stake.n", { n: st.stake ?? 0 })} · ${t("arena.pot", { n: (st.stake ?? 0) * st.seats })}`
                : null,
              endText(st.end),
              t("settings.turn.s", { n: st.turn_seconds ?? "?" }),
              st.public ? t("settings.public") : t("settings.private"),
              st.fill_with_bots
                ? `${t("settings.bots")} (${t(`settings.bot.${st.bot_level}`)})`
                : null,
            ]
              .filter(Boolean)
              .join(" · "),
          ),
          h("label", null, t("room.invite")),
          h(
            "div",
            { class: "row" },
            linkInput,
            h(
              "button",
              {
                type: "button",
                onclick: async (e: Event) => {
                  try {
                    await navigator.clipboard.writeText(link);
                    (e.target as HTMLElement).textContent = t("common.copied");
                  } catch {
                    linkInput.select();
                  }
                },
              },
              t("common.copy"),
            ),
          ),
          room.invite_code
            ? h("p", { class: "muted" }, t("room.code", { code: room.invite_code }))
            : null,
          seats,
          isOwner
            ? h(
                "button",
                {
                  type: "button",
                  class: "primary big",
                  "data-testid": "start",
                  onclick: async () => {
                    try {
                      this.room = await api.startRoom(room.id);
                      this.state.status = this.room.status;
                      this.showTable();
                      this.conn?.nudge();
                    } catch (err) {
                      showApiError(err);
                    }
                  },
                },
                t("room.start"),
              )
            : h(
                "p",
                { class: "muted" },
                seated !== null ? t("room.start.wait") : room.free_seats ? "" : t("room.full"),
              ),
        ),
      ),
    );
  }

  private async leaveWaiting(): Promise<void> {
    try {
      if (this.room?.your_seat !== null && this.room?.owner.id !== this.app.player?.id)
        await api.leaveSeat(this.roomId);
    } catch {
      /* leaving anyway */
    }
    this.app.go("#/");
  }

  // ------------------------------------------------------------ table

  private showTable(): void {
    if (this.disposed) return;
    if (!this.table) {
      window.clearInterval(this.pollTimer);
      window.clearInterval(this.countTimer);
      clear(this.app.root);
      this.tableHost = h("div", { class: "table-host" });
      this.app.root.append(this.tableHost);
      this.table = new Table(this.tableHost, {
        action: (a) => this.sendAction(a),
        queryFormations: (f, taken) => this.queryFormations(f, taken),
        queryRowPreview: (i) => this.queryRowPreview(i),
        queryArrange: () => this.queryArrange(),
        saveRack: (layout) => {
          this.conn?.request({ type: "rack", layout }).catch(() => undefined);
        },
        leave: () => this.leaveTable(),
        summaryRead: () => this.conn?.raw({ type: "next_round" }),
        openScores: () => {
          this.scoresOpen = true;
          this.renderScores();
        },
        playAgain: () => void this.playAgain(),
        langButton: () => this.app.langButton(),
        // Reactions are a seat's: not in the practice on the device, not for a spectator.
        headerButtons: () =>
          this.local
            ? // The coach's hint and review: the practice on this device only (coach.ts).
              [
                this.sounds.toggleButton(),
                ...practiceCoachButtons(
                  () => this.state.view,
                  () =>
                    variantFacts(this.state.view?.variant_id ?? this.state.variantId)?.faces ??
                    "cards",
                  () => this.state.scores?.rounds.length ?? 0,
                ),
              ]
            : this.state.view?.seat == null
              ? [this.sounds.toggleButton()]
              : [this.sounds.toggleButton(), this.reactions.openButton()],
      });
      this.tickTimer = window.setInterval(() => this.tick(), 250);
      this.table.setConnection(this.conn?.isOpen ? "open" : "connecting");
    }
    this.table.update(
      { ...this.state },
      variantFacts(this.state.view?.variant_id ?? this.state.variantId),
    );
  }

  /** The last 10 s of this seat's own turn: a tick a second. */
  private tick(): void {
    const v = this.state.view;
    const d = this.state.deadline;
    const mine = v && !v.over && v.seat !== null && v.turn === v.seat && d;
    const left = mine ? Math.ceil(d - Date.now() / 1000) : null;
    const due = tickDue(left, this.lastTick);
    if (due !== null) this.sounds.play("tick");
    this.lastTick = left;
  }

  private async sendAction(action: GameAction): Promise<void> {
    if (!this.conn) throw { code: "network", message: "not connected" } as ServerError;
    const before = this.state.view;
    try {
      await this.conn.request({ type: "action", base_version: this.version ?? 0, action });
    } catch (err) {
      // Only presence or similar changed meanwhile (same turn, phase and hand): decide the
      // same move again on the new version, once. Anything else goes back to the player.
      const e = err as ServerError;
      const v = this.state.view;
      const same =
        before &&
        v &&
        v.turn === before.turn &&
        v.phase === before.phase &&
        v.hand.join() === before.hand.join() &&
        v.row_length === before.row_length &&
        v.table.length === before.table.length;
      if (e.code !== "stale_version" || !same || !this.conn) throw err;
      await this.conn.request({ type: "action", base_version: this.version ?? 0, action });
    }
  }

  private async queryFormations(
    formations: number[][],
    taken: number | null,
  ): Promise<{ answers: FormationAnswer[]; lock: OpeningLock | null }> {
    if (!this.conn) throw { code: "network", message: "not connected" };
    const res = await this.conn.request({
      type: "query",
      query: "formations",
      formations: formations.slice(0, 30),
      taken,
    });
    const r = (res.type === "query_result" ? res.result : {}) as {
      formations?: FormationAnswer[];
      lock?: OpeningLock;
    };
    return { answers: r.formations ?? [], lock: r.lock ?? null };
  }

  private async queryRowPreview(
    index: number,
  ): Promise<{ tiles: number[]; block: ServerError | null }> {
    if (!this.conn) throw { code: "network", message: "not connected" };
    const res = await this.conn.request({ type: "query", query: "row_preview", index });
    const r = (res.type === "query_result" ? res.result : {}) as {
      tiles?: number[];
      block?: ServerError | null;
    };
    return { tiles: r.tiles ?? [], block: r.block ?? null };
  }

  private async queryArrange(): Promise<ArrangeAnswer> {
    if (!this.conn) throw { code: "network", message: "not connected" };
    const res = await this.conn.request({ type: "query", query: "arrange" });
    const r = (res.type === "query_result" ? res.result : {}) as Partial<ArrangeAnswer>;
    return { melds: r.melds ?? [], left: r.left ?? [] };
  }

  private leaveTable(): void {
    this.conn?.raw({ type: "leave" });
    // Give the frame a moment to leave before closing the socket.
    const conn = this.conn;
    this.conn = null;
    window.setTimeout(() => conn?.close(), 150);
    this.app.go("#/");
  }

  // ------------------------------------------------------------ score sheet

  private renderScores(): void {
    document.getElementById("scores-modal")?.remove();
    if (!this.scoresOpen) return;
    const s = this.state.scores;
    const n = this.state.view?.players ?? this.state.seats.length ?? 0;
    const name = (i: number) => this.table?.seatName(i) ?? t("room.seat", { n: i + 1 });
    // A finished round of a room on the server: its replay and the check of its deal, in a
    // new tab (the table stays open here).
    const online = !this.local;
    // A finished round of the practice on this device: its review by the coach (coach.ts),
    // kept with the match, so a reload loses none.
    const faces =
      variantFacts(this.state.view?.variant_id ?? this.state.variantId)?.faces ?? "cards";
    const review = (k: number) =>
      h(
        "td",
        { class: "round-links" },
        practiceReviewButton(k, this.state.view?.seat ?? 0, faces, () => close()),
      );
    const links = (k: number) =>
      h(
        "td",
        { class: "round-links" },
        h(
          "a",
          {
            href: replayHash(this.roomId, k),
            target: "_blank",
            rel: "noopener",
            "data-testid": `scores-replay-${k}`,
            "aria-label": t("scores.replay", { n: k }),
            title: t("scores.replay", { n: k }),
          },
          "▶",
        ),
        h(
          "a",
          {
            href: verifyHash(this.roomId, k),
            target: "_blank",
            rel: "noopener",
            "data-testid": `scores-verify-${k}`,
            "aria-label": t("scores.verify", { n: k }),
            title: t("scores.verify", { n: k }),
          },
          "✓",
        ),
      );
    const close = () => {
      this.scoresOpen = false;
      this.renderScores();
    };
    const modal = scoreSheet({
      title: t("scores.title"),
      names: Array.from({ length: n }, (_, i) => name(i)),
      rounds: s?.rounds ?? [],
      totals: s?.totals ?? [],
      linksHead: online
        ? h("th", { scope: "col", class: "links-col" }, t("scores.links"))
        : reviewHead(),
      links: online ? links : review,
      before: s && s.rounds.length ? null : h("p", { class: "muted" }, t("scores.none")),
      after: [
        s?.over && s.winners.length
          ? h(
              "p",
              { class: "winners", "data-testid": "winners" },
              tParts("scores.winners", { names: h("span", null, namesEl(s.winners.map(name))) }),
            )
          : null,
        s?.over && this.state.again ? scoresAgain(this.state.again) : null,
      ],
      close,
    });
    // The score sheet is not the table: its "play again" is pressed here.
    modal
      .querySelector<HTMLElement>("[data-testid=play-again]")
      ?.addEventListener("click", () => void this.playAgain());
    document.body.append(modal);
    modal.querySelector<HTMLElement>("[data-testid=scores-close]")?.focus();
  }
}
