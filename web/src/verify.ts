// The check of a finished round's deal (#/verify/<room>/<round>, docs/fairness.md): the
// round's published record (GET /api/rooms/{id}/rounds/{n}/verify) is checked here with
// the browser's own code (fair/: SHA-256 and the documented shuffle, not the server's):
// SHA-256(seed) is the commitment; the commitment (and the hand) this browser was given at
// the deal are the record's; the seed's shuffle deals exactly the logged hands, atu and
// stock. Whether the logged moves are legal and end in the stored result needs the rules,
// which the browser does not apply: the server's engine says it, named as such, and
// `python -m server.cli verify` does it on any machine.

import * as api from "./api";
import { loadCatalogue, variantFacts, variantName } from "./catalogue";
import { clear, h } from "./dom";
import { t } from "./i18n";
import type { App } from "./main";
import { seenDeal } from "./fair/seen";
import { commitment, dealFrom, SCHEME, shuffle, tileSet } from "./fair/shuffle";
import { replayHash } from "./replay";
import { roundError } from "./replay";

/** One line of the check: ok, failed, or not known here (null). */
export interface CheckRow {
  name: string;
  ok: boolean | null;
  label: string;
  detail: string;
  /** Checked by the server's rules engine, not by this page. */
  server: boolean;
}

const same = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);
const sorted = (a: readonly number[]) => [...a].sort((x, y) => x - y);

/** What this page checks of a record (pure: the unit of the verify page). */
export function checkRecord(rec: api.RoundRecord, seen: ReturnType<typeof seenDeal>): CheckRow[] {
  const rows: CheckRow[] = [];
  const computed = commitment(rec.seed);
  rows.push({
    name: "commitment",
    ok: rec.commitment !== null && computed === rec.commitment.toLowerCase(),
    label: t("verify.commitment"),
    detail:
      rec.commitment === null
        ? t("verify.commitment.none")
        : computed === rec.commitment
          ? t("verify.commitment.ok", { hash: computed })
          : t("verify.commitment.bad", { hash: computed, given: rec.commitment }),
    server: false,
  });
  rows.push({
    name: "yours",
    ok: seen ? seen.c === rec.commitment : null,
    label: t("verify.yours"),
    detail: !seen
      ? t("verify.yours.unknown")
      : seen.c === rec.commitment
        ? t("verify.yours.ok")
        : t("verify.yours.bad", { given: seen.c }),
    server: false,
  });
  if (seen?.hand && seen.seat !== null) {
    const dealt = rec.deal.hands[seen.seat] ?? [];
    const ok = same(sorted(dealt), seen.hand);
    rows.push({
      name: "hand",
      ok,
      label: t("verify.hand"),
      detail: ok
        ? t("verify.hand.ok", { n: seen.seat + 1 })
        : t("verify.hand.bad", { n: seen.seat + 1 }),
      server: false,
    });
  }
  const facts = variantFacts(rec.variant);
  if (!facts) {
    rows.push({
      name: "deal",
      ok: false,
      label: t("verify.deal"),
      detail: t("verify.deal.variant", { id: rec.variant }),
      server: false,
    });
  } else {
    const { ids, sizes } = tileSet(facts, !!rec.options.short_game);
    const deal = dealFrom(shuffle(ids, rec.seed), rec.players, rec.first, sizes, facts.atu);
    const handsOk =
      deal.hands.length === rec.deal.hands.length &&
      deal.hands.every((x, i) => same(x, rec.deal.hands[i]));
    const ok =
      handsOk &&
      deal.atu === rec.deal.atu &&
      same(deal.stock, rec.deal.stock) &&
      rec.deal.first === rec.first;
    rows.push({
      name: "deal",
      ok,
      label: t("verify.deal"),
      detail: ok ? t("verify.deal.ok", { n: ids.length }) : t("verify.deal.bad"),
      server: false,
    });
  }
  // The server's words when a check fails (they name the exact step); the page's own when
  // it holds.
  const okText: Record<string, string> = {
    log: t("verify.log.ok", { n: rec.actions.length }),
    result: t("verify.result.ok", {
      scores: (rec.result?.scores ?? []).map((x) => (x > 0 ? `+${x}` : String(x))).join(", "),
    }),
  };
  for (const name of ["log", "result"]) {
    const c = rec.checks.find((x) => x.name === name);
    rows.push({
      name,
      ok: c ? c.ok : false,
      label: t(`verify.${name}`),
      detail: c?.ok ? okText[name] : (c?.detail ?? ""),
      server: true,
    });
  }
  return rows;
}

export class VerifyPage {
  private record: api.RoundRecord | null = null;
  private disposed = false;

  constructor(
    private app: App,
    private roomId: string,
    private round: number,
  ) {}

  start(): void {
    this.shell(h("p", { class: "card muted" }, t("common.loading")));
    void this.load();
  }

  dispose(): void {
    this.disposed = true;
  }

  relabel(): void {
    if (this.record) this.render();
  }

  private async load(): Promise<void> {
    try {
      const [record] = await Promise.all([
        api.roundRecord(this.roomId, this.round),
        loadCatalogue(),
      ]);
      if (this.disposed) return;
      this.record = record;
      this.render();
    } catch (err) {
      if (!this.disposed) this.shell(roundError(err));
    }
  }

  private shell(body: HTMLElement): void {
    const root = this.app.root;
    clear(root);
    const title = this.record
      ? t("verify.title", { variant: variantName(this.record.variant), n: this.round })
      : t("verify.title.short", { n: this.round });
    root.append(
      h(
        "main",
        { class: "lobby verify", "data-testid": "verify" },
        h(
          "header",
          { class: "topbar" },
          h(
            "a",
            {
              class: "icon back button-like",
              href: "#/",
              "aria-label": t("common.back"),
              title: t("common.back"),
            },
            "←",
          ),
          h("h1", null, title),
          h("span", { class: "spacer" }),
          this.app.langButton(),
        ),
        body,
      ),
    );
  }

  private render(): void {
    const rec = this.record;
    if (!rec || this.disposed) return;
    const rows = checkRecord(rec, seenDeal(rec.room_id, rec.round));
    const failed = rows.some((r) => r.ok === false);
    const verdict = h(
      "p",
      {
        class: `verdict ${failed ? "bad" : "good"}`,
        "data-testid": "verify-verdict",
        "data-ok": failed ? "0" : "1",
        role: "status",
      },
      failed ? `✗ ${t("verify.verdict.bad")}` : `✓ ${t("verify.verdict.ok")}`,
    );
    const list = h(
      "ol",
      { class: "checks" },
      rows.map((r) =>
        h(
          "li",
          {
            class: `check ${r.ok === null ? "unknown" : r.ok ? "ok" : "bad"}`,
            "data-testid": `check-${r.name}`,
            "data-ok": r.ok === null ? "" : r.ok ? "1" : "0",
          },
          h(
            "span",
            { class: "mark", "aria-hidden": "true" },
            r.ok === null ? "?" : r.ok ? "✓" : "✗",
          ),
          h(
            "div",
            null,
            h("strong", null, r.label),
            r.server
              ? h("span", { class: "badge" }, t("verify.byServer"))
              : h("span", { class: "badge here" }, t("verify.here")),
            h("div", { class: "muted detail" }, r.detail),
          ),
        ),
      ),
    );
    const file = `remi-${rec.room_id}-round-${rec.round}-record.json`;
    this.shell(
      h(
        "div",
        null,
        h(
          "section",
          { class: "card" },
          verdict,
          h("p", { class: "muted" }, t("verify.intro")),
          list,
        ),
        h(
          "section",
          { class: "card verify-data" },
          h("h2", null, t("verify.data")),
          h(
            "dl",
            null,
            h("dt", null, t("verify.seed")),
            h("dd", null, h("code", { "data-testid": "verify-seed" }, rec.seed)),
            h("dt", null, t("verify.commitmentLabel")),
            h("dd", null, h("code", { "data-testid": "verify-commitment" }, rec.commitment ?? "—")),
            h("dt", null, t("verify.scheme")),
            h(
              "dd",
              null,
              h("code", null, rec.scheme ?? "—"),
              rec.scheme && rec.scheme !== SCHEME ? ` (${t("verify.scheme.other")})` : null,
            ),
          ),
          h("p", { class: "muted" }, t("verify.how")),
          h("p", null, h("code", { class: "cli" }, `python -m server.cli verify ${file}`)),
          h(
            "div",
            { class: "row" },
            h(
              "a",
              {
                class: "button-like",
                href: api.recordUrl(rec.room_id, rec.round),
                download: file,
                "data-testid": "verify-download",
              },
              t("verify.download"),
            ),
            h(
              "a",
              {
                class: "button-like",
                href: replayHash(rec.room_id, rec.round),
                "data-testid": "verify-replay",
              },
              t("verify.replay"),
            ),
          ),
        ),
      ),
    );
  }
}
