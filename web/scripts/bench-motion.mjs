// The table's motion, measured in Debian's Chromium with the CPU slowed 4× (a phone's
// stand-in): for rack moves (a tap on a tile, then on an empty slot) and draws (a tap on
// the stock), the time from the tap to the first frame that shows the change, and the
// frames dropped while the tiles travel (the 400 ms after the tap, frames at 60 Hz).
// Run with the motion on and with `prefers-reduced-motion: reduce`, in one run.
//
//   cd web && npm run build && node scripts/bench-motion.mjs [moves]
//
// Prints one line per case (median and worst); docs/benchmarks.md keeps the figures.
import { launch, PHONE } from "../e2e/browser.mjs";
import { plainTurn, read, slotSel, startPractice, waitMyTurn } from "../e2e/play.mjs";
import { startServer } from "../e2e/server.mjs";

const MOVES = Number(process.argv[2] ?? 12);
const THROTTLE = 4;

/** In the page: note each tap's time (its pointerup's own) and, once the table changed, the
 * frame after; count the frames of the following 400 ms. */
const PROBE = () => {
  const w = window;
  w.__motion = [];
  const rack = () => document.querySelector("[data-testid=table]");
  // The table acts on the pointer's release (src/table/input.ts): a tap's time is its pointerup.
  document.addEventListener(
    "pointerup",
    (e) => {
      const t0 = e.timeStamp;
      const entry = { t0, visible: null, frames: [] };
      w.__motion.push(entry);
      const obs = new MutationObserver(() => {
        obs.disconnect();
        requestAnimationFrame((t) => (entry.visible = t - t0));
      });
      obs.observe(document.body, { childList: true, subtree: true, attributes: true });
      const tick = (t) => {
        entry.frames.push(t);
        if (t - t0 < 400) requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
      void rack;
    },
    true,
  );
};

function stats(values) {
  const v = [...values].sort((a, b) => a - b);
  return { median: v[Math.floor(v.length / 2)], worst: v[v.length - 1] };
}

function dropped(frames) {
  let n = 0;
  for (let i = 1; i < frames.length; i++)
    n += Math.max(0, Math.round((frames[i] - frames[i - 1]) / (1000 / 60)) - 1);
  return n;
}

async function measure(reduced) {
  const server = await startServer({ REMI_E2E_SEEDS: "e2e-12" });
  const player = await launch({ ...PHONE, reducedMotion: reduced ? "reduce" : "no-preference" });
  try {
    const page = await player.page();
    await startPractice(page, server.url, "Ana", "remi");
    await waitMyTurn(page);
    await page.evaluate(PROBE);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    const moves = [];
    const draws = [];
    for (let i = 0; i < MOVES; i++) {
      let st = await waitMyTurn(page, 90_000);
      if (st.summary) break;
      if (st.phase === "take") {
        const n = await page.evaluate(() => window.__motion.length);
        await page.click("[data-testid=stock]");
        await page.waitForFunction(
          (k) => window.__motion.length > k && window.__motion[k].visible !== null,
          n,
        );
        await page.waitForTimeout(450);
        draws.push(await page.evaluate((k) => window.__motion[k], n));
        st = await read(page);
      }
      // A rack move: a tile, then an empty slot far from it.
      const tile = st.rack.find((x) => x.tile !== null);
      const empty = [...st.rack].reverse().find((x) => x.tile === null);
      await page.click(slotSel(tile.slot));
      const n = await page.evaluate(() => window.__motion.length);
      await page.click(slotSel(empty.slot));
      await page.waitForFunction(
        (k) => window.__motion.length > k && window.__motion[k].visible !== null,
        n,
      );
      await page.waitForTimeout(450);
      moves.push(await page.evaluate((k) => window.__motion[k], n));
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
      await plainTurn(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
    }
    const line = (name, xs) => {
      const vis = stats(xs.map((x) => x.visible));
      const drop = stats(xs.map((x) => dropped(x.frames)));
      return `${reduced ? "reduced motion" : "motion"}  ${name.padEnd(9)} n=${String(xs.length).padStart(2)}  tap→visible median ${vis.median.toFixed(0)} ms, worst ${vis.worst.toFixed(0)} ms  dropped frames (400 ms) median ${drop.median}, worst ${drop.worst}`;
    };
    console.log(line("rack move", moves));
    if (draws.length) console.log(line("draw", draws));
  } finally {
    await player.close();
    await server.stop();
  }
}

console.log(
  `bench-motion: Chromium, CPU throttled ${THROTTLE}×, 390×844, ${new Date().toISOString()}`,
);
await measure(false);
await measure(true);
