// Debian's Chromium driven by Playwright: no browser is ever downloaded.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";

export const CHROMIUM = process.env.REMI_CHROMIUM ?? "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The players' browsers now open, each recording a trace of the current test (see
 * `keepTraces`). */
const open = new Set();

/** One player's browser: its own Chromium with a fresh user-data-dir (so its own cookie
 * jar), as a Playwright context that records a trace (DOM snapshots, no screenshots) one
 * test at a time; `close()` removes the directory. The lobby's "more" (its less used
 * boxes, folded on a phone) starts open, as a player who opened it once finds it
 * (`remi.lobby.more`), so the tests of those boxes reach them at any size;
 * `{ lobbyFolded: true }` leaves the lobby as a first visit shows it. */
export async function launch({ lobbyFolded = false, ...options } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "remi-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...DESKTOP,
    ...options,
  });
  // An action or a wait given no limit of its own fails after two minutes, with its call
  // log, rather than holding the test to its own (much longer) limit.
  context.setDefaultTimeout(120_000);
  if (!lobbyFolded)
    await context.addInitScript(() => {
      try {
        if (localStorage.getItem("remi.lobby.more") === null)
          localStorage.setItem("remi.lobby.more", "open");
      } catch {
        /* a page without storage */
      }
    });
  await context.tracing.start({ snapshots: true, sources: false });
  await context.tracing.startChunk();
  const player = {
    context,
    async page() {
      return context.pages()[0] ?? (await context.newPage());
    },
    async close() {
      open.delete(player);
      await context.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  open.add(player);
  return player;
}

export const PHONE_VIEWPORT = { width: 390, height: 844 };
export const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
export const DESKTOP = { viewport: { width: 1280, height: 800 } };

/** At the end of a test: the trace of each open browser since the test began is written
 * to `dir` when the test failed (`npx playwright show-trace <file>` replays it), dropped
 * otherwise; each browser then records the next test's. */
export async function keepTraces(failed, dir) {
  let n = 0;
  for (const player of open) {
    n += 1;
    const path = failed ? join(dir, `trace-player-${n}.zip`) : undefined;
    await player.context.tracing.stopChunk({ path }).catch(() => undefined);
    await player.context.tracing.startChunk().catch(() => undefined);
  }
}
