// The lobby's Arena: the Arena tables waiting for players, by stake,
// and a form to open one. Each seat's stake is taken from its player's balance when the
// match starts; the pot goes to the best standings (GET /api/arena: the stakes offered and
// how a pot is shared). The lobby hands this box the waiting rooms it loads (update).
import * as api from "./api";
import type { ArenaInfo } from "./api.gen";
import { variantFacts, variantName, variants } from "./catalogue";
import { clear, h, nameEl } from "./dom";
import { t, tParts } from "./i18n";
import { endText, joinButton, showApiError } from "./lobby";
import type { App } from "./main";

const arenaInfo = () => api.call<ArenaInfo>("GET", "/api/arena");

/** "70% / 30%": how a table of this many seats shares its pot. */
function split(payout: number[] | null | undefined): string {
  return (payout ?? [100]).map((p) => `${p}%`).join(" / ");
}

export function arenaBox(app: App): { box: HTMLElement; update(rooms: api.RoomView[]): void } {
  const list = h("ul", { class: "rooms arena", "data-testid": "arena-rooms" });
  const stake = h("select", { id: "a-stake", "data-testid": "a-stake" });
  const variant = h(
    "select",
    { id: "a-variant", "data-testid": "a-variant" },
    variants().map((v) => h("option", { value: v.id }, variantName(v.id))),
  );
  const seats = h("select", { id: "a-seats", "data-testid": "a-seats" });
  const rounds = h("input", {
    type: "number",
    id: "a-rounds",
    min: 1,
    max: 50,
    value: 3,
    "data-testid": "a-rounds",
  });
  const payoutNote = h("p", { class: "muted" });
  let info: ArenaInfo | null = null;
  const sync = () => {
    const facts = variantFacts(variant.value) ?? variants()[0];
    const want = Number(seats.value) || facts.players.max;
    clear(seats);
    for (let n = facts.players.min; n <= facts.players.max; n++)
      seats.append(
        h("option", { value: n, selected: n === Math.min(facts.players.max, want) }, String(n)),
      );
    payoutNote.textContent = info
      ? t("arena.split", { split: split(info.payouts[seats.value]) })
      : "";
  };
  variant.addEventListener("change", sync);
  seats.addEventListener("change", sync);
  sync();
  void arenaInfo().then(
    (got) => {
      info = got;
      for (const n of got.stakes) stake.append(h("option", { value: n }, String(n)));
      sync();
    },
    () => undefined,
  );
  const field = (id: string, label: string, control: HTMLElement) =>
    h("div", { class: "field" }, h("label", { for: id }, label), control);
  const form = h(
    "form",
    {
      class: "arena-create",
      "data-testid": "arena-form",
      novalidate: true,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const room = await api.createRoom({
            variant: variant.value,
            seats: Number(seats.value),
            kind: "arena",
            stake: Number(stake.value),
            end: { kind: "rounds", rounds: Number(rounds.value) },
            public: true,
            fill_with_bots: false,
          });
          app.go(`#/room/${encodeURIComponent(room.id)}`);
        } catch (err) {
          showApiError(err);
        }
      },
    },
    h(
      "div",
      { class: "grid" },
      field("a-stake", t("arena.stake"), stake),
      field("a-variant", t("settings.variant"), variant),
      field("a-seats", t("settings.seats"), seats),
      field("a-rounds", t("arena.rounds"), rounds),
    ),
    payoutNote,
    h(
      "button",
      { type: "submit", class: "primary", "data-testid": "arena-create" },
      t("arena.create"),
    ),
  );
  const box = h(
    "section",
    { class: "card arena-box", "aria-label": t("arena.title") },
    h("h2", null, t("arena.title")),
    h("p", { class: "muted" }, t("arena.hint")),
    list,
    form,
  );

  const update = (rooms: api.RoomView[]) => {
    clear(list);
    const tables = rooms
      .filter((r) => r.settings.kind === "arena")
      .sort((a, b) => (a.settings.stake ?? 0) - (b.settings.stake ?? 0));
    if (!tables.length) list.append(h("li", { class: "muted" }, t("arena.none")));
    for (const r of tables) {
      const st = r.settings.stake ?? 0;
      const taken = r.seats.length - r.free_seats;
      list.append(
        h(
          "li",
          { class: "room-item", "data-testid": `arena-${r.id}` },
          h("span", { class: "room-state playing" }, t("arena.stake.n", { n: st })),
          h("span", { class: "room-name" }, variantName(r.settings.variant)),
          h(
            "span",
            { class: "muted" },
            tParts("lobby.room.by", { name: nameEl(r.owner.display_name) }),
          ),
          h("span", { class: "muted" }, t("lobby.room.seats", { taken, seats: r.seats.length })),
          h(
            "span",
            { class: "muted" },
            [
              endText(r.settings.end),
              t("arena.pot", { n: st * r.seats.length }),
              t("arena.split", { split: split(r.settings.payout) }),
            ].join(" · "),
          ),
          joinButton(app, r),
        ),
      );
    }
  };
  update([]);
  return { box, update };
}
