import { accountCard, accountChip, signInCard } from "./account";
import * as api from "./api";
import { loadCatalogue, variantFacts, variantName, variants } from "./catalogue";
import { clear, h, nameEl, toast } from "./dom";
import { failureText, formatWhen, reason, translated, t, tParts } from "./i18n";
import type { App } from "./main";
import { arenaBox } from "./arena";
import { localPracticeBox } from "./practice/box";
import { tournamentsBox } from "./tournament";

const TURN_TIMES = [15, 30, 60, 120];
/** The lobby's "more" folded or open, as the player left it (`localStorage`). */
export const MORE_KEY = "remi.lobby.more";

export function showApiError(err: unknown): void {
  // A refused origin is explained by its notice (elsewhere.ts), not again in a toast over it.
  if (
    err instanceof api.ApiError &&
    err.code === "origin_refused" &&
    document.querySelector("[data-testid=origin-refused]")
  )
    return;
  // The server's English is shown only when the page has no words of its own for the code.
  if (err instanceof api.ApiError)
    toast(reason(err.code, err.message), "error", translated(err.code) ? undefined : err.message);
  else toast(failureText(err));
}

/** A code or a whole invite link → what to open. */
export function parseInvite(text: string): { code?: string; room?: string } {
  const s = text.trim();
  const join = s.match(/#\/join\/([^/?#\s]+)/);
  if (join) return { code: decodeURIComponent(join[1]) };
  const room = s.match(/#\/room\/([^/?#\s]+)/);
  if (room) return { room: decodeURIComponent(room[1]) };
  return { code: s };
}

export function renderLobby(
  app: App,
  opts: { joinCode?: string },
): { dispose(): void; relabel(): void } {
  let timer = 0;
  let disposed = false;
  // Lobby changes arrive as Server-Sent Events (from any server instance, over the bus);
  // the slow poll below only covers a stream that could not be opened.
  let events: EventSource | null = null;
  const closeEvents = () => {
    events?.close();
    events = null;
  };
  const root = app.root;
  // The forms of a player not known yet, kept across redraws (the catalogue's arrival
  // redraws the page, to add the practice on this device): what is typed in them stays.
  let identityForms: HTMLElement[] | undefined;
  // An invite link: what it opens (the room's variant and who invites), asked of the
  // server before anything else; a code no room has is said so.
  let invite:
    | { state: "loading" }
    | { state: "ok"; view: api.InviteView }
    | { state: "bad" }
    | null = null;
  if (opts.joinCode) {
    invite = { state: "loading" };
    api.invite(opts.joinCode).then(
      (view) => {
        invite = { state: "ok", view };
        if (!disposed) draw();
      },
      (err) => {
        if (err instanceof api.ApiError && err.code === "invite_not_found") {
          invite = { state: "bad" };
          opts.joinCode = undefined;
        } else {
          invite = null; // the join itself says what is wrong
          showApiError(err);
        }
        if (!disposed) draw();
      },
    );
  }

  const draw = () => {
    const focused =
      document.activeElement instanceof HTMLElement && root.contains(document.activeElement)
        ? document.activeElement
        : null;
    clear(root);
    const page = h("main", { class: "lobby", "data-testid": "lobby" });
    page.append(
      h(
        "header",
        { class: "topbar" },
        h("h1", null, t("app.title")),
        h("span", { class: "spacer" }),
        app.player && !app.offline ? accountChip() : null,
        app.langButton(),
      ),
    );
    if (app.offline) {
      // Without the server: the practice on this device plays; the rest says it needs a
      // connection (and can be retried) instead of hanging.
      page.append(offlineCard());
      page.append(
        variants().length
          ? localPracticeBox((hash) => app.go(hash))
          : h("p", { class: "muted" }, t("common.loading")),
      );
    } else if (!app.player) {
      const card = inviteCard();
      if (card) page.append(card);
      identityForms ??= [
        nameForm(),
        signInCard((p) => {
          app.setPlayer(p);
          draw();
          void afterIdentity();
        }),
        identityBox(),
      ];
      page.append(...identityForms);
      if (variants().length) page.append(localPracticeBox((hash) => app.go(hash)));
    } else {
      identityForms = undefined;
      page.append(welcome(), nav());
      const card = inviteCard();
      if (card) page.append(card);
      if (opts.joinCode && joining) {
        page.append(h("p", { class: "muted" }, t("common.loading")));
      } else if (!variants().length) {
        page.append(accountCard(), h("p", { class: "muted" }, t("common.loading")));
      } else {
        const arena = arenaBox(app); // the Arena's waiting tables come with the public rooms
        // The most used first (quick start, the practice on this device, your games); the
        // rest folded under "more" (open on a wide screen, and as the player left it).
        page.append(
          quickStartBox(),
          localPracticeBox((hash) => app.go(hash)),
          yourGames(),
          moreBox(
            accountCard(),
            practiceBox(),
            joinBox(),
            tournamentsBox(app),
            arena.box,
            publicRooms(arena.update),
            createForm(),
            identityBox(),
          ),
        );
      }
    }
    root.append(page);
    if (focused?.isConnected) focused.focus(); // a kept form keeps its focus (a phone its keyboard)
  };

  // The invite's code taken (a name given on its page, or "join" pressed): the seat, then
  // the room.
  let joining = false;
  const afterIdentity = async () => {
    if (opts.joinCode && invite?.state !== "bad") {
      const code = opts.joinCode;
      joining = true;
      draw();
      try {
        const room = await api.joinByCode(code);
        app.go(`#/room/${encodeURIComponent(room.id)}`);
      } catch (err) {
        showApiError(err);
        opts.joinCode = undefined;
        invite = null;
        joining = false;
        draw();
      }
    }
  };

  /** What an invite link opens, before the name form (or "join" for a known player):
   * who invites, to which variant; or that the code opens nothing. */
  function inviteCard(): HTMLElement | null {
    if (!invite || invite.state === "loading") return null;
    if (invite.state === "bad")
      return h(
        "section",
        { class: "card invite bad", role: "alert", "data-testid": "invite-bad" },
        h("h2", null, t("invite.title")),
        h("p", null, t("invite.bad")),
      );
    if (!opts.joinCode) return null;
    const view = invite.view;
    return h(
      "section",
      { class: "card invite", "data-testid": "invite", "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title" }, t("invite.title")),
      h(
        "p",
        { class: "invite-text" },
        tParts("invite.text", {
          host: nameEl(view.host, "invite-host"),
          variant: h("strong", null, variantName(view.variant)),
        }),
      ),
      app.player
        ? h(
            "div",
            { class: "row" },
            h(
              "button",
              {
                type: "button",
                class: "primary big",
                "data-testid": "invite-join",
                disabled: joining,
                onclick: () => void afterIdentity(),
              },
              t("invite.join"),
            ),
            h(
              "a",
              {
                href: "#/",
                "data-testid": "invite-later",
                onclick: () => {
                  opts.joinCode = undefined;
                  invite = null;
                },
              },
              t("invite.later"),
            ),
          )
        : h("p", { class: "muted" }, t("invite.name")),
    );
  }

  /** The lobby's less used boxes, folded: open on a wide screen unless the player closed
   * it, folded on a phone unless they opened it (remembered on the device). */
  function moreBox(...boxes: HTMLElement[]): HTMLElement {
    let kept: string | null = null;
    try {
      kept = localStorage.getItem(MORE_KEY);
    } catch {
      /* storage unavailable */
    }
    const open = kept === null ? window.matchMedia("(min-width: 900px)").matches : kept === "open";
    // Remembered when the player opens or closes it (a click, or Enter and Space on the
    // summary), not when the page opens it on a wide screen.
    const remember = () => {
      try {
        localStorage.setItem(MORE_KEY, box.open ? "closed" : "open"); // before it toggles
      } catch {
        /* not remembered */
      }
    };
    const box = h(
      "details",
      { class: "lobby-more", "data-testid": "lobby-more", open },
      h(
        "summary",
        { class: "card", "data-testid": "lobby-more-toggle", onclick: remember },
        t("lobby.more"),
      ),
      ...boxes,
    );
    return box;
  }

  function nameForm(): HTMLElement {
    const input = h("input", {
      id: "display-name",
      name: "display_name",
      maxlength: 32,
      required: true,
      autocomplete: "nickname",
      placeholder: t("lobby.name.placeholder"),
      "data-testid": "name-input",
    });
    const form = h(
      "form",
      {
        class: "card name-form",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          const name = input.value.trim();
          if (!name) return;
          try {
            app.setPlayer(await api.createPlayer(name));
            draw();
            await afterIdentity();
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
    );
    setTimeout(() => input.focus(), 0);
    return form;
  }

  function offlineCard(): HTMLElement {
    return h(
      "section",
      { class: "card offline", role: "status", "data-testid": "offline" },
      h("h2", null, t("offline.title")),
      h("p", null, t("offline.text")),
      h(
        "button",
        { type: "button", "data-testid": "offline-retry", onclick: () => app.retryOnline() },
        t("offline.retry"),
      ),
    );
  }

  function welcome(): HTMLElement {
    return h(
      "p",
      { class: "hello", "data-testid": "hello" },
      tParts("lobby.hello", { name: nameEl(app.player!.display_name) }),
    );
  }

  // The lobby's links to the pages of their own (kept off the lobby: it is long on a phone).
  function nav(): HTMLElement {
    return h(
      "nav",
      { class: "lobby-nav", "aria-label": t("lobby.nav") },
      h("a", { href: "#/leaderboard", "data-testid": "nav-leaderboard" }, t("board.title")),
      h(
        "a",
        { href: `#/player/${encodeURIComponent(app.player!.id)}`, "data-testid": "nav-profile" },
        t("profile.mine"),
      ),
    );
  }

  // Quick start: one button per variant; the server seats the player at a waiting table of
  // that variant or opens one that bots fill after a short wait (docs/economy.md).
  function quickStartBox(): HTMLElement {
    let busy = false;
    return h(
      "section",
      { class: "card quick", "data-testid": "quick-start", "aria-labelledby": "quick-title" },
      h("h2", { id: "quick-title" }, t("quick.title")),
      h(
        "p",
        { class: "small" },
        h("a", { href: "#/howto/remi", "data-testid": "howto-lobby" }, t("howto.link")),
      ),
      h(
        "div",
        { class: "quick-buttons" },
        variants().map((v) =>
          h(
            "button",
            {
              type: "button",
              class: "primary",
              "data-testid": `quick-${v.id}`,
              onclick: async () => {
                if (busy) return;
                busy = true;
                try {
                  const room = await api.quickStart(v.id);
                  app.go(`#/room/${encodeURIComponent(room.id)}`);
                } catch (err) {
                  showApiError(err);
                } finally {
                  busy = false;
                }
              },
            },
            variantName(v.id),
          ),
        ),
      ),
      h("p", { class: "muted" }, t("quick.hint")),
    );
  }

  function practiceBox(): HTMLElement {
    const variant = h(
      "select",
      { "aria-label": t("settings.variant"), "data-testid": "practice-variant" },
      variants().map((v) => h("option", { value: v.id }, variantName(v.id))),
    );
    return h(
      "section",
      { class: "card practice" },
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            type: "button",
            class: "primary big",
            "data-testid": "practice",
            onclick: async () => {
              try {
                const room = await api.createRoom({
                  variant: variant.value,
                  seats: variantFacts(variant.value)?.players.max ?? 4,
                  public: false,
                  fill_with_bots: true,
                  bot_level: "normal",
                  kind: "practice",
                });
                await api.startRoom(room.id);
                app.go(`#/room/${encodeURIComponent(room.id)}`);
              } catch (err) {
                showApiError(err);
              }
            },
          },
          t("lobby.practice"),
        ),
        variant,
      ),
      h("p", { class: "muted" }, t("lobby.practice.hint")),
    );
  }

  // "Your games": every room where this player holds a seat, one tap back to it.
  let loadMine: () => void = () => undefined;
  function yourGames(): HTMLElement {
    const list = h("ul", { class: "rooms mine", "data-testid": "your-games" });
    const box = h(
      "section",
      { class: "card your-games", "aria-label": t("lobby.mine") },
      h("h2", null, t("lobby.mine")),
      list,
    );
    const load = async () => {
      try {
        const { rooms } = await api.myRooms();
        if (disposed) return;
        clear(list);
        if (!rooms.length) list.append(h("li", { class: "muted" }, t("lobby.mine.none")));
        for (const r of rooms) {
          // The server's kind, never a guess from the seats: a private room of bots that
          // settles is a normal room.
          const practice = r.kind === "practice";
          const state =
            r.status === "playing"
              ? t("lobby.mine.playing")
              : r.status === "waiting"
                ? t("lobby.mine.waiting")
                : r.status;
          list.append(
            h(
              "li",
              {
                class: `room-item mine-item status-${r.status}`,
                "data-testid": `mine-${r.id}`,
                "data-status": r.status,
              },
              h("span", { class: "room-name" }, variantName(r.settings.variant)),
              h("span", { class: `room-state ${r.status}` }, state),
              h(
                "span",
                { class: "muted" },
                r.your_seat !== null ? t("lobby.mine.seat", { n: r.your_seat + 1 }) : "",
              ),
              practice
                ? h(
                    "span",
                    { class: "badge", "data-testid": `kind-${r.id}` },
                    t("lobby.mine.practice"),
                  )
                : null,
              h(
                "button",
                {
                  type: "button",
                  class: "primary",
                  "data-testid": `back-${r.id}`,
                  onclick: () => app.go(`#/room/${encodeURIComponent(r.id)}`),
                },
                t("lobby.mine.back"),
              ),
            ),
          );
        }
      } catch (err) {
        if (!disposed) showApiError(err);
      }
    };
    loadMine = () => void load(); // with the public rooms: at once, on lobby events, every 15 s
    return box;
  }

  function joinBox(): HTMLElement {
    const input = h("input", {
      placeholder: t("lobby.code.placeholder"),
      "aria-label": t("lobby.code"),
      "data-testid": "code-input",
    });
    return h(
      "form",
      {
        class: "card join",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          const what = parseInvite(input.value);
          if (what.room) {
            app.go(`#/room/${encodeURIComponent(what.room)}`);
            return;
          }
          if (!what.code) return;
          try {
            const room = await api.joinByCode(what.code);
            app.go(`#/room/${encodeURIComponent(room.id)}`);
          } catch (err) {
            showApiError(err);
          }
        },
      },
      h("label", null, t("lobby.code")),
      h("div", { class: "row" }, input, h("button", { type: "submit" }, t("lobby.code.join"))),
    );
  }

  function publicRooms(arenaRooms: (rooms: api.RoomView[]) => void): HTMLElement {
    const list = h("ul", { class: "rooms", "data-testid": "public-rooms" });
    const live = h("ul", { class: "rooms", "data-testid": "live-rooms" });
    const box = h(
      "section",
      { class: "card" },
      h(
        "div",
        { class: "row between" },
        h("h2", null, t("lobby.public")),
        h("button", { type: "button", onclick: () => load() }, t("lobby.refresh")),
      ),
      list,
      h("h3", null, t("lobby.live")),
      live,
    );
    const loadLive = async () => {
      try {
        const { rooms } = await api.lobby("playing");
        if (disposed) return;
        clear(live);
        if (!rooms.length) live.append(h("li", { class: "muted" }, t("lobby.live.none")));
        for (const r of rooms) {
          live.append(
            h(
              "li",
              { class: "room-item" },
              h("span", { class: "room-name" }, variantName(r.settings.variant)),
              h(
                "span",
                { class: "muted" },
                tParts("lobby.room.by", { name: nameEl(r.owner.display_name) }),
              ),
              h("span", { class: "muted" }, endText(r.settings.end)),
              h(
                "button",
                {
                  type: "button",
                  "data-testid": `watch-${r.id}`,
                  onclick: () => app.go(`#/room/${encodeURIComponent(r.id)}`),
                },
                r.your_seat === null ? t("lobby.watch") : t("lobby.back"),
              ),
            ),
          );
        }
      } catch {
        /* the waiting rooms' list shows the error */
      }
    };
    const load = async () => {
      loadMine();
      void loadLive();
      try {
        const { rooms: all } = await api.lobby();
        if (disposed) return;
        arenaRooms(all);
        const rooms = all.filter((r) => r.settings.kind !== "arena");
        clear(list);
        if (!rooms.length) list.append(h("li", { class: "muted" }, t("lobby.public.none")));
        for (const r of rooms) {
          const taken = r.seats.length - r.free_seats;
          list.append(
            h(
              "li",
              { class: "room-item" },
              h("span", { class: "room-name" }, variantName(r.settings.variant)),
              h(
                "span",
                { class: "muted" },
                tParts("lobby.room.by", { name: nameEl(r.owner.display_name) }),
              ),
              h(
                "span",
                { class: "muted" },
                t("lobby.room.seats", { taken, seats: r.seats.length }),
              ),
              h("span", { class: "muted" }, endText(r.settings.end)),
              joinButton(app, r),
            ),
          );
        }
      } catch (err) {
        if (!disposed) showApiError(err);
      }
    };
    load();
    window.clearInterval(timer);
    timer = window.setInterval(load, 15000);
    closeEvents();
    if (typeof EventSource !== "undefined") {
      events = new EventSource("/api/lobby/events");
      events.onmessage = () => {
        if (!disposed) load();
      };
    }
    return box;
  }

  function createForm(): HTMLElement {
    const f = {
      variant: h(
        "select",
        { id: "s-variant", "data-testid": "s-variant" },
        variants().map((v) => h("option", { value: v.id }, variantName(v.id))),
      ),
      seats: h("select", { id: "s-seats", "data-testid": "s-seats" }),
      short: h("input", { type: "checkbox", id: "s-short", "data-testid": "s-short" }),
      end: h(
        "select",
        { id: "s-end", "data-testid": "s-end" },
        h("option", { value: "endless" }, t("settings.end.endless")),
        h("option", { value: "rounds" }, t("settings.end.rounds")),
        h("option", { value: "target" }, t("settings.end.target")),
      ),
      rounds: h("input", {
        type: "number",
        id: "s-rounds",
        min: 1,
        max: 1000,
        value: 5,
        "data-testid": "s-rounds",
      }),
      target: h("input", {
        type: "number",
        id: "s-target",
        min: 1,
        max: 1000000,
        value: 500,
        "data-testid": "s-target",
      }),
      turn: h(
        "select",
        { id: "s-turn", "data-testid": "s-turn" },
        TURN_TIMES.map((n) =>
          h("option", { value: n, selected: n === 60 }, t("settings.turn.s", { n })),
        ),
      ),
      visibility: h(
        "select",
        { id: "s-vis", "data-testid": "s-vis" },
        h("option", { value: "public" }, t("settings.public")),
        h("option", { value: "private" }, t("settings.private")),
      ),
      bots: h("input", { type: "checkbox", id: "s-bots", checked: true, "data-testid": "s-bots" }),
      level: h(
        "select",
        { id: "s-level", "data-testid": "s-level" },
        ["easy", "normal", "hard"].map((l) =>
          h("option", { value: l, selected: l === "normal" }, t(`settings.bot.${l}`)),
        ),
      ),
      depth: h("input", {
        type: "number",
        id: "s-depth",
        min: 1,
        max: 200,
        placeholder: t("settings.rowDepth.all"),
        "data-testid": "s-depth",
      }),
      joker: h("input", { type: "checkbox", id: "s-joker", "data-testid": "s-joker" }),
    };
    const field = (id: string, label: string, control: HTMLElement, cls = "") =>
      h("div", { class: `field ${cls}` }, h("label", { for: id }, label), control);
    const check = (id: string, label: string, control: HTMLElement, cls = "") =>
      h("div", { class: `field check ${cls}` }, control, h("label", { for: id }, label));
    const roundsField = field("s-rounds", t("settings.rounds"), f.rounds, "f-rounds");
    const targetField = field("s-target", t("settings.target"), f.target, "f-target");
    const shortField = check("s-short", t("settings.short"), f.short);
    const depthField = field("s-depth", t("settings.rowDepth"), f.depth);
    const jokerField = check("s-joker", t("settings.jokerButton"), f.joker);
    // Which options the chosen variant has, from its catalogue facts.
    const facts = () => variantFacts(f.variant.value) ?? variants()[0];
    const syncSeats = () => {
      const { min, max } = facts().players;
      const want = Number(f.seats.value) || max;
      const counts = Array.from({ length: max - min + 1 }, (_, k) => min + k);
      if (
        f.seats.options.length === counts.length &&
        counts.every((n, k) => f.seats.options[k].value === String(n))
      )
        return;
      clear(f.seats);
      for (const n of counts)
        f.seats.append(
          h("option", { value: n, selected: n === Math.min(max, Math.max(min, want)) }, String(n)),
        );
    };
    const sync = () => {
      const v = facts();
      syncSeats();
      roundsField.hidden = f.end.value !== "rounds";
      targetField.hidden = f.end.value !== "target";
      // Only the options the chosen variant has (its catalogue facts): no short game, row
      // depth or joker button shown for a variant without one.
      shortField.hidden = !v.short_game;
      f.short.disabled = !(v.short_game && Number(f.seats.value) === v.short_game.players);
      if (f.short.disabled) f.short.checked = false;
      depthField.hidden = !v.row_depth;
      jokerField.hidden = !v.joker_button;
      f.level.disabled = !f.bots.checked;
    };
    for (const el of [f.variant, f.seats, f.end, f.bots]) el.addEventListener("change", sync);
    sync();
    const form = h(
      "form",
      {
        class: "card create",
        "data-testid": "create-form",
        novalidate: true, // the server validates the settings and says what is wrong
        onsubmit: async (e: Event) => {
          e.preventDefault();
          const v = facts();
          const end: api.EndCondition =
            f.end.value === "rounds"
              ? { kind: "rounds", rounds: Number(f.rounds.value) }
              : f.end.value === "target"
                ? { kind: "target", points: Number(f.target.value) }
                : { kind: "endless" };
          const settings: Partial<api.RoomSettings> = {
            variant: f.variant.value,
            seats: Number(f.seats.value),
            short_game: f.short.checked,
            end,
            turn_seconds: Number(f.turn.value),
            public: f.visibility.value === "public",
            fill_with_bots: f.bots.checked,
            bot_level: f.level.value as api.RoomSettings["bot_level"],
            row_depth: v.row_depth && f.depth.value ? Number(f.depth.value) : null,
            joker_button: v.joker_button && f.joker.checked,
          };
          try {
            const room = await api.createRoom(settings);
            app.go(`#/room/${encodeURIComponent(room.id)}`);
          } catch (err) {
            showApiError(err);
          }
        },
      },
      h("h2", null, t("lobby.create")),
      h(
        "div",
        { class: "grid" },
        field("s-variant", t("settings.variant"), f.variant),
        field("s-seats", t("settings.seats"), f.seats),
        field("s-end", t("settings.end"), f.end),
        roundsField,
        targetField,
        field("s-turn", t("settings.turn"), f.turn),
        field("s-vis", t("settings.visibility"), f.visibility),
        field("s-level", t("settings.botLevel"), f.level),
        depthField,
        check("s-bots", t("settings.bots"), f.bots),
        shortField,
        jokerField,
      ),
      h(
        "button",
        { type: "submit", class: "primary", "data-testid": "create-room" },
        t("settings.create"),
      ),
    );
    return form;
  }

  // Sign out here, sign the other devices out, and the list of devices signed in.
  function sessionsBox(): HTMLElement {
    const list = h("ul", { class: "sessions", "data-testid": "sessions" });
    const signedOutHere = () => {
      app.setPlayer(null);
      draw();
    };
    const fill = async () => {
      try {
        const { sessions } = await api.sessions();
        clear(list);
        for (const s of sessions) {
          const used = s.last_used_at ?? s.created_at;
          list.append(
            h(
              "li",
              { "data-testid": s.current ? "session-current" : "session" },
              h("span", null, s.label ?? "—"),
              " ",
              h("span", { class: "muted" }, s.current ? t("session.this") : formatWhen(used)),
              s.current
                ? null
                : h(
                    "button",
                    {
                      type: "button",
                      onclick: async () => {
                        try {
                          await api.signOutDevice(s.id);
                          await fill();
                        } catch (err) {
                          showApiError(err);
                        }
                      },
                    },
                    t("session.signOutDevice"),
                  ),
            ),
          );
        }
      } catch (err) {
        showApiError(err);
      }
    };
    return h(
      "div",
      null,
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            type: "button",
            "data-testid": "sign-out",
            onclick: async () => {
              try {
                await api.signOut();
              } catch (err) {
                if (!(err instanceof api.ApiError && err.status === 401)) return showApiError(err);
              }
              signedOutHere();
            },
          },
          t("session.signOut"),
        ),
        h(
          "button",
          {
            type: "button",
            "data-testid": "sign-out-others",
            onclick: async () => {
              try {
                await api.signOutEverywhere();
                toast(t("session.othersSignedOut"), "info");
                await fill();
              } catch (err) {
                showApiError(err);
              }
            },
          },
          t("session.signOutOthers"),
        ),
        h(
          "button",
          { type: "button", "data-testid": "sessions-show", onclick: () => void fill() },
          t("session.list"),
        ),
      ),
      list,
    );
  }

  function identityBox(): HTMLElement {
    const out = h("code", { class: "token", "data-testid": "token" });
    const input = h("input", { placeholder: "token", "aria-label": t("lobby.identity.use") });
    return h(
      "details",
      { class: "card identity" },
      h("summary", null, t("lobby.identity")),
      h("p", { class: "muted" }, t("lobby.identity.hint")),
      app.player
        ? h(
            "div",
            { class: "row" },
            h(
              "button",
              { type: "button", onclick: () => (out.textContent = api.savedToken() ?? "—") },
              t("lobby.identity.show"),
            ),
            out,
          )
        : null,
      app.player ? sessionsBox() : null,
      h(
        "form",
        {
          class: "row",
          onsubmit: async (e: Event) => {
            e.preventDefault();
            try {
              app.setPlayer(await api.useToken(input.value.trim()));
              draw();
              await afterIdentity();
            } catch (err) {
              showApiError(err);
            }
          },
        },
        input,
        h("button", { type: "submit" }, t("lobby.identity.use")),
      ),
    );
  }

  draw();
  // The variant choices come from the catalogue: drawn again once it is here.
  if (!variants().length) {
    loadCatalogue().then(
      () => {
        if (!disposed) draw();
      },
      (err) => {
        if (!disposed) showApiError(err);
      },
    );
  }

  return {
    dispose() {
      disposed = true;
      window.clearInterval(timer);
      closeEvents();
    },
    relabel() {
      window.clearInterval(timer);
      closeEvents();
      identityForms = undefined; // made again in the new language
      draw();
    },
  };
}

/** A waiting room's Join button: the first free seat taken (unless the player holds one),
 * then the room opened. */
export function joinButton(app: App, r: api.RoomView): HTMLElement | null {
  // Join only where a join can succeed: a free seat, or the player's own.
  if (r.free_seats === 0 && r.your_seat === null) return null;
  return h(
    "button",
    {
      type: "button",
      "data-testid": `join-${r.id}`,
      onclick: async () => {
        try {
          const free = r.seats.find((s) => !s.player && !s.bot_level);
          if (free && r.your_seat === null) await api.takeSeat(r.id, free.seat);
          app.go(`#/room/${encodeURIComponent(r.id)}`);
        } catch (err) {
          showApiError(err);
        }
      },
    },
    t("lobby.join"),
  );
}

export function endText(end: api.EndCondition): string {
  if (end.kind === "rounds") return `${t("settings.end.rounds")}: ${end.rounds}`;
  if (end.kind === "target") return `${t("settings.end.target")}: ${end.points}`;
  return t("settings.end.endless");
}
