// Sounds and quick reactions, two players in two browsers (a desktop and
// a phone): a reaction from the panel shows beside the sender's seat on both screens; a
// muted player's reactions no longer show; a seat that reacts too fast is told so. The
// sounds: the other player's draw and discard and the start of one's own turn are played
// (each sound the page plays is announced as a `remi:sound` event); switched off, nothing
// plays, and the choice survives a reload.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, PHONE } from "./browser.mjs";
import { plainTurn, read, shot, waitMyTurn, waitToastText } from "./play.mjs";
import { browserSession } from "./session.mjs";

const session = browserSession();
const { problems } = session;

async function open(options) {
  const page = await session.open(options);
  // Every sound the page plays, in order.
  await page.addInitScript(() => {
    window.__sounds = [];
    window.addEventListener("remi:sound", (e) => window.__sounds.push(e.detail));
  });
  return page;
}

const sounds = (page) => page.evaluate(() => window.__sounds.slice());

test("reactions beside the seat, muting, the limit; sounds on and off", async () => {
  test.setTimeout(180_000);
  const ana = await open(DESKTOP);
  await session.named(ana, "Ana");
  await ana.selectOption("[data-testid=s-variant]", "remi");
  await ana.selectOption("[data-testid=s-seats]", "2");
  await ana.selectOption("[data-testid=s-vis]", "private");
  await ana.click("[data-testid=create-room]");
  await ana.waitForSelector("[data-testid=waiting-room]");
  const link = await ana.locator("[data-testid=invite-link]").inputValue();

  const bob = await open(PHONE);
  await bob.goto(link);
  await bob.fill("[data-testid=name-input]", "Bogdan");
  await bob.click("[data-testid=name-save]");
  await bob.waitForSelector("[data-testid=waiting-room]");
  await ana.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')");
  await ana.click("[data-testid=start]");
  await ana.waitForSelector("[data-testid=rack] .tile");
  await bob.waitForSelector("[data-testid=rack] .tile");

  // A reaction: the panel's "Bravo!" shows beside Ana's seat on both screens.
  await ana.click("[data-testid=react-open]");
  await ana.waitForSelector("[data-testid=react-panel]");
  assert.equal(await ana.locator("[data-testid=react-panel] .react-choice").count(), 12);
  await ana.click("[data-testid=react-well_played]");
  await ana.waitForSelector("[data-testid=react-panel]", { state: "detached" });
  for (const p of [ana, bob]) {
    const bubble = p.locator("[data-testid=reaction-0]");
    await bubble.waitFor();
    assert.match(await bubble.textContent(), /Bravo!/);
  }
  // Beside the seat: the bubble's box touches the seat's (below it, horizontally within).
  const seatBox = await bob.locator("[data-testid=seat-0]").boundingBox();
  const bubbleBox = await bob.locator("[data-testid=reaction-0]").boundingBox();
  assert.ok(
    Math.abs(bubbleBox.y - (seatBox.y + seatBox.height)) < 12,
    JSON.stringify({ seatBox, bubbleBox }),
  );
  await shot(bob, "reaction-phone.png");
  await bob.locator("[data-testid=reaction-0]").waitFor({ state: "detached", timeout: 10_000 });

  // Bogdan mutes Ana: her next reaction shows on her screen only.
  await bob.click("[data-testid=react-open]");
  await bob.check("[data-testid=mute-0]");
  await shot(bob, "reactions-panel-phone.png");
  await bob.keyboard.press("Escape");
  await bob.waitForSelector("[data-testid=react-panel]", { state: "detached" });
  await ana.click("[data-testid=react-open]");
  await ana.click("[data-testid=react-laugh]");
  await ana.locator("[data-testid=reaction-0]").waitFor();
  // Bogdan's own reaction still reaches him, after Ana's: so hers came and was not shown.
  await bob.click("[data-testid=react-open]");
  await bob.click("[data-testid=react-thanks]");
  await bob.locator("[data-testid=reaction-1]").waitFor();
  await ana.locator("[data-testid=reaction-1]").waitFor();
  assert.equal(await bob.locator("[data-testid=reaction-0]").count(), 0);

  // Too fast: the fourth reaction within 10 s is refused in words.
  await ana.click("[data-testid=react-open]");
  await ana.click("[data-testid=react-wow]");
  await ana.click("[data-testid=react-open]");
  await ana.click("[data-testid=react-hello]");
  assert.match(await waitToastText(ana), /Prea multe reacții/);

  // Sounds: the other player's whole turn (a draw, a discard) is heard, then one's own turn.
  await ana.waitForFunction(() => document.querySelector("[data-testid=status]"));
  const first = (await read(ana)).mine ? ana : bob;
  const second = first === ana ? bob : ana;
  await waitMyTurn(first);
  await plainTurn(first); // the first turn of the round may be a discard only
  await waitMyTurn(second);
  const heardBefore = (await sounds(first)).length;
  await plainTurn(second);
  await waitMyTurn(first);
  await first.waitForFunction((n) => window.__sounds.length >= n + 3, heardBefore);
  assert.deepEqual((await sounds(first)).slice(heardBefore, heardBefore + 3), [
    "draw",
    "discard",
    "turn",
  ]);

  // Switched off on one device: nothing plays there, and it stays off after a reload.
  assert.equal(await second.getAttribute("[data-testid=sound-toggle]", "aria-pressed"), "true");
  await second.click("[data-testid=sound-toggle]");
  assert.equal(await second.getAttribute("[data-testid=sound-toggle]", "aria-pressed"), "false");
  const heard = (await sounds(second)).length;
  await plainTurn(first);
  await waitMyTurn(second);
  assert.equal((await sounds(second)).length, heard);
  await second.reload();
  await second.waitForSelector("[data-testid=rack] .tile");
  assert.equal(await second.getAttribute("[data-testid=sound-toggle]", "aria-pressed"), "false");
  assert.deepEqual(problems, []);
});
