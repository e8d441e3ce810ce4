// Debian's Chromium driven by playwright-core: no browser is ever downloaded.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

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

/** One player's browser: its own Chromium with a fresh user-data-dir (so its own cookie
 * jar), as a Playwright context; `close()` removes the directory. The lobby's "more" (its
 * less used boxes, folded on a phone) starts open, as a player who opened it once finds
 * it (`remi.lobby.more`), so the tests of those boxes reach them at any size;
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
  if (!lobbyFolded)
    await context.addInitScript(() => {
      try {
        if (localStorage.getItem("remi.lobby.more") === null)
          localStorage.setItem("remi.lobby.more", "open");
      } catch {
        /* a page without storage */
      }
    });
  return {
    context,
    async page() {
      return context.pages()[0] ?? (await context.newPage());
    },
    async close() {
      await context.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const PHONE_VIEWPORT = { width: 390, height: 844 };
export const PHONE = {
  viewport: { width: 390, height: 844 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
export const DESKTOP = { viewport: { width: 1280, height: 800 } };
