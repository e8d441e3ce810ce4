// Tournaments: the lobby's list of those open for registration or being played
// (fee, players, start time, prize table; register / withdraw) and a tournament's page
// (#/tournament/<id>): its entries and each stage's tables with their live standings, a
// link to play one's own table or to watch the others. The server moves the tournament on
// (server/tournaments); the page reads GET /api/tournaments/{id} every few seconds.
import "./tournament.css";
import { accountChanged } from "./account";
import { call } from "./api";
import type * as gen from "./api.gen";
import { loadCatalogue, variantName } from "./catalogue";
import { clear, h, nameEl } from "./dom";
import { formatWhen, t } from "./i18n";
import { showApiError } from "./lobby";
import type { App } from "./main";

// The HTTP types are generated from the server's OpenAPI schema (src/api.gen.ts).
export type TournamentSummary = gen.TournamentSummary;
export type TableSeat = gen.TableSeatView;
export type TournamentTable = gen.TableView;
export type TournamentStage = gen.StageView;
export type TournamentDetail = gen.TournamentDetail;

export const listTournaments = () => call<gen.TournamentList>("GET", "/api/tournaments");
export const getTournament = (id: string) =>
  call<TournamentDetail>("GET", `/api/tournaments/${encodeURIComponent(id)}`);
export const register = (id: string) =>
  call<TournamentSummary>("POST", `/api/tournaments/${encodeURIComponent(id)}/register`);
export const withdraw = (id: string) =>
  call<TournamentSummary>("POST", `/api/tournaments/${encodeURIComponent(id)}/withdraw`);

function when(iso: string): string {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? formatWhen(d, "time") : formatWhen(d);
}

export function tournamentTitle(x: TournamentSummary): string {
  return x.kind === "sitngo"
    ? t("tour.sitngo", { n: x.players })
    : t("tour.scheduled", { time: x.starts_at ? when(x.starts_at) : "?" });
}

function statusText(x: TournamentSummary): string {
  return x.status === "running"
    ? t("tour.status.running", { stage: x.stage, stages: x.stages })
    : t(`tour.status.${x.status}`);
}

/** "50% (400) · 30% (240) · 20% (160)": the prize table with what each place wins now. */
function prizeList(x: TournamentSummary): string {
  return x.prizes.map((p, i) => `${i + 1}. ${p}% (${x.prize_amounts[i] ?? 0})`).join(" · ");
}

function facts(x: TournamentSummary): string[] {
  return [
    x.fee ? t("tour.fee", { n: x.fee }) : t("tour.free"),
    t("tour.players", { registered: x.registered, players: x.players }),
    x.status === "registering"
      ? x.kind === "sitngo"
        ? t("tour.whenFull", { n: x.players })
        : t("tour.startsAt", { time: x.starts_at ? when(x.starts_at) : "?" })
      : statusText(x),
    t("tour.pool", { n: x.pool }),
  ];
}

function entryButton(
  x: TournamentSummary,
  done: (x: TournamentSummary) => void,
): HTMLElement | null {
  if (x.status !== "registering") return null;
  const action = x.you ? withdraw : register;
  return h(
    "button",
    {
      type: "button",
      class: x.you ? "" : "primary",
      "data-testid": `${x.you ? "withdraw" : "register"}-${x.id}`,
      onclick: async (e: Event) => {
        (e.currentTarget as HTMLButtonElement).disabled = true;
        try {
          done(await action(x.id));
          accountChanged(); // the fee left the balance (or came back): the chip shows it
        } catch (err) {
          showApiError(err);
          (e.currentTarget as HTMLButtonElement).disabled = false;
        }
      },
    },
    x.you ? t("tour.withdraw") : t("tour.register"),
  );
}

/** The lobby's tournaments: refreshed every 10 s while the box is on the page. */
export function tournamentsBox(app: App): HTMLElement {
  const list = h("ul", { class: "rooms tournaments", "data-testid": "tournaments" });
  const box = h(
    "section",
    { class: "card tour-box", "aria-label": t("tour.title") },
    h("h2", null, t("tour.title")),
    h("p", { class: "muted" }, t("tour.hint")),
    list,
  );
  const load = async () => {
    try {
      const { tournaments } = await listTournaments();
      clear(list);
      if (!tournaments.length) list.append(h("li", { class: "muted" }, t("tour.none")));
      for (const x of tournaments) {
        list.append(
          h(
            "li",
            {
              class: `room-item tour-item status-${x.status}`,
              "data-testid": `tournament-${x.id}`,
            },
            h("span", { class: "room-name" }, tournamentTitle(x)),
            h("span", { class: "muted" }, variantName(x.variant)),
            x.you ? h("span", { class: "room-state playing" }, t("tour.registered")) : null,
            h("span", { class: "tour-facts" }, facts(x).join(" · ")),
            h("span", { class: "muted tour-prizes" }, t("tour.prizes", { list: prizeList(x) })),
            h(
              "span",
              { class: "tour-actions" },
              entryButton(x, () => void load()),
              h(
                "button",
                {
                  type: "button",
                  "data-testid": `open-${x.id}`,
                  onclick: () => app.go(`#/tournament/${encodeURIComponent(x.id)}`),
                },
                t("tour.open"),
              ),
            ),
          ),
        );
      }
    } catch (err) {
      if (box.isConnected) showApiError(err);
    }
  };
  void load();
  const timer = window.setInterval(() => {
    if (box.isConnected) void load();
    else window.clearInterval(timer);
  }, 10_000);
  return box;
}

/** #/tournament/<id>: the tournament, its entries and its stages' live standings. */
export class TournamentPage {
  private timer = 0;
  private disposed = false;
  private detail: TournamentDetail | null = null;

  constructor(
    private app: App,
    private id: string,
  ) {}

  start(): void {
    void this.load();
    this.timer = window.setInterval(() => {
      if (this.detail?.status !== "finished" && this.detail?.status !== "cancelled")
        void this.load();
    }, 3000);
  }

  dispose(): void {
    this.disposed = true;
    window.clearInterval(this.timer);
  }

  relabel(): void {
    this.draw();
  }

  private async load(): Promise<void> {
    try {
      // The variant's name comes from the catalogue: a page opened by its link loads it.
      const [detail] = await Promise.all([getTournament(this.id), loadCatalogue().catch(() => [])]);
      if (this.disposed) return;
      this.detail = detail;
      this.draw();
    } catch (err) {
      if (!this.disposed) showApiError(err);
    }
  }

  private draw(): void {
    const root = this.app.root;
    clear(root);
    const x = this.detail;
    const page = h(
      "main",
      {
        class: "lobby tournament",
        "data-testid": "tournament-page",
        "data-status": x?.status ?? "",
      },
      h(
        "header",
        { class: "topbar" },
        h(
          "button",
          {
            type: "button",
            class: "icon back",
            "aria-label": t("common.back"),
            onclick: () => this.app.go("#/"),
          },
          "←",
        ),
        h("h1", null, x ? tournamentTitle(x) : t("tour.title")),
        h("span", { class: "spacer" }),
        this.app.langButton(),
      ),
    );
    if (!x) {
      page.append(h("p", { class: "hello" }, t("common.loading")));
      root.append(page);
      return;
    }
    page.append(
      h(
        "section",
        { class: "card" },
        h(
          "div",
          { class: "row between" },
          h("h2", null, statusText(x)),
          x.you ? h("span", { class: "room-state playing" }, t("tour.registered")) : null,
        ),
        h(
          "p",
          null,
          t("tour.tables", {
            variant: variantName(x.variant),
            seats: x.table_seats,
            rounds: x.rounds,
          }),
        ),
        h("p", { "data-testid": "tour-facts" }, facts(x).join(" · ")),
        h("p", { "data-testid": "tour-prizes" }, t("tour.prizes", { list: prizeList(x) })),
        h("p", { class: "muted" }, t("tour.rules")),
        entryButton(x, () => void this.load()),
      ),
    );
    for (const stage of [...x.stage_list].reverse()) page.append(this.stageCard(stage, x));
    page.append(this.entriesCard(x));
    root.append(page);
  }

  private stageCard(stage: TournamentStage, x: TournamentDetail): HTMLElement {
    const me = this.app.player?.id;
    return h(
      "section",
      { class: "card tour-stage", "data-testid": `stage-${stage.number}` },
      h("h2", null, stage.final ? t("tour.final") : t("tour.stage", { n: stage.number })),
      stage.final ? null : h("p", { class: "muted" }, t("tour.advance", { n: stage.advance })),
      h(
        "div",
        { class: "tour-tables" },
        stage.tables.map((table) => {
          const mine = table.seats.some((s) => s.player?.id === me);
          const over = table.status === "finished";
          return h(
            "div",
            {
              class: `tour-table${mine ? " mine" : ""}`,
              "data-testid": `table-${stage.number}-${table.number}`,
              "data-status": table.status,
            },
            h(
              "div",
              { class: "row between" },
              h("h3", null, t("tour.table", { n: table.number + 1 })),
              h(
                "span",
                { class: `room-state ${over ? "" : "playing"}` },
                over
                  ? t("tour.over")
                  : t("tour.rounds", {
                      played: Math.min(table.rounds_played + 1, x.rounds),
                      rounds: x.rounds,
                    }),
              ),
              h(
                "button",
                {
                  type: "button",
                  class: mine && !over ? "primary" : "",
                  "data-testid": `go-${table.room_id}`,
                  onclick: () => this.app.go(`#/room/${encodeURIComponent(table.room_id)}`),
                },
                mine && !over ? t("tour.play") : t("tour.watch"),
              ),
            ),
            this.standings(table, stage),
          );
        }),
      ),
    );
  }

  private standings(table: TournamentTable, stage: TournamentStage): HTMLElement {
    const me = this.app.player?.id;
    const rows = [...table.seats].sort((a, b) => a.place - b.place || a.seat - b.seat);
    const last = stage.final ? t("tour.prize") : "";
    return h(
      "table",
      { class: "tour-standings" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          h("th", null, t("tour.place")),
          h("th", null, t("tour.player")),
          h("th", { class: "num" }, t("tour.total")),
          h("th", null, last),
        ),
      ),
      h(
        "tbody",
        null,
        rows.map((s) =>
          h(
            "tr",
            {
              class: s.player?.id === me ? "me" : "",
              "data-testid": `standing-${table.room_id}-${s.seat}`,
            },
            h("td", null, String(s.place)),
            h(
              "td",
              null,
              s.player
                ? nameEl(s.player.display_name)
                : h("span", { class: "muted" }, t("tour.bot")),
              s.player?.id === me ? ` (${t("tour.you")})` : "",
            ),
            h("td", { class: "num" }, String(s.total)),
            h(
              "td",
              null,
              stage.final
                ? s.prize !== null && s.prize !== undefined
                  ? h("strong", null, String(s.prize))
                  : ""
                : s.advanced === true
                  ? h("span", { class: "tour-on" }, t("tour.goesOn"))
                  : s.advanced === false && s.player
                    ? h("span", { class: "muted" }, t("tour.out"))
                    : "",
            ),
          ),
        ),
      ),
    );
  }

  private entriesCard(x: TournamentDetail): HTMLElement {
    return h(
      "section",
      { class: "card" },
      h("h2", null, t("tour.entries")),
      x.entries.length
        ? h(
            "ol",
            { class: "tour-entries", "data-testid": "tour-entries" },
            x.entries.map((e) =>
              h(
                "li",
                null,
                nameEl(e.player.display_name),
                e.place !== null
                  ? h("span", { class: "muted" }, ` · ${t("tour.place")} ${e.place}`)
                  : null,
                e.prize ? h("strong", null, ` · ${t("tour.prize")} ${e.prize}`) : null,
              ),
            ),
          )
        : h("p", { class: "muted" }, t("tour.entries.none")),
    );
  }
}
