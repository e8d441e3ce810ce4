// Hostile display names, on the page as the server serves it (its
// Content-Security-Policy on): markup in a name (`<img src=x onerror=…>`, `"><script>…`),
// a right-to-left name beside the page's own words, the longest word a name may be, in the
// lobby's public room list, the waiting room, at the table (a phone at 390×844 too) and on
// the score sheet. Nothing from a name runs (`window.__pwned` stays unset) or becomes an
// element, each name is shown as its text, isolated from the text around it, and no name
// widens the page or overflows its box. The names the server refuses (a right-to-left
// override, a 200-character word) are refused in words and never reach a page. Any console
// error, uncaught exception or CSP violation on any page fails the test.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { closeToast, shot, waitToastText } from "./play.mjs";
import { startServer } from "./server.mjs";

const IMG = "<img src=x onerror=__pwned=1>";
const SCRIPT = '"><script>__pwned=1</script>';
const LONG = "W".repeat(32); // the longest name the server takes: one word, no spaces
const RTL = "שרה 42"; // Hebrew and digits: must not reorder the words around it
const OVERRIDE = "\u202Eevil.exe"; // a right-to-left override: refused (a control character)
const WORD_200 = "M".repeat(200); // refused: longer than a name may be

let server;
const browsers = [];
const problems = [];

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

/** A browser whose every page reports its console errors, exceptions and CSP violations. */
async function browser(options) {
  const b = await launch(options);
  browsers.push(b);
  await b.context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = await b.page();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    const where = msg.location()?.url ?? "";
    // The API's refusals (401 before a name is chosen, 422 for a refused name) are
    // answers, not faults: Chromium logs each as a failed load.
    if (
      /Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text()) &&
      where.includes("/api/")
    )
      return;
    problems.push(`console: ${msg.text()} (${where})`);
  });
  return page;
}

async function named(name, options) {
  const page = await browser(options);
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  return page;
}

/** A player and a public room they own, through the API (for the lobby's list). */
async function publicRoomOf(name) {
  const res = await fetch(`${server.url}/api/players`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ display_name: name }),
  });
  assert.equal(res.status, 201);
  const { token } = await res.json();
  const room = await fetch(`${server.url}/api/rooms`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ variant: "remi45", seats: 4, public: true, fill_with_bots: true }),
  });
  assert.equal(room.status, 201, await room.text());
}

/** Nothing ran, no element came from a name, the page does not scroll sideways, and every
 * element holding a name stays within its box and isolates its text. */
async function assertSafe(page, label, names) {
  const found = await page.evaluate((names) => {
    const out = {
      pwned: window.__pwned,
      imgs: document.querySelectorAll("img[src=x], img").length,
      scripts: 0,
      hScroll: 0,
      shown: [],
      broken: [],
    };
    out.scripts = [...document.querySelectorAll("script")].filter((s) => !s.src).length;
    out.hScroll = document.documentElement.scrollWidth - document.documentElement.clientWidth;
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const name = names.find((x) => n.data.includes(x));
      if (!name) continue;
      const el = n.parentElement;
      if (el.closest("[hidden], input, select, option")) continue;
      out.shown.push(name);
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not displayed (a closed dialog)
      const bidi = getComputedStyle(el).unicodeBidi;
      const isolated =
        el.tagName === "BDI" ||
        bidi === "isolate" ||
        bidi === "isolate-override" ||
        bidi === "plaintext";
      if (!isolated)
        out.broken.push(
          `${name.slice(0, 12)}: not isolated (<${el.tagName.toLowerCase()} class="${el.className}">, unicode-bidi ${bidi})`,
        );
      // A box that cuts the name short (the table's seats: an ellipsis, the full name as its
      // tooltip) holds it: that box must stay within its own container.
      let clip = el;
      while (clip && clip !== document.body && getComputedStyle(clip).overflowX === "visible")
        clip = clip.parentElement;
      const clipped =
        clip &&
        clip !== document.body &&
        getComputedStyle(clip).textOverflow === "ellipsis" &&
        clip.title.includes(name);
      const held = clipped ? clip : el;
      const hr = held.getBoundingClientRect();
      const outer = held.parentElement.getBoundingClientRect();
      if (
        hr.right > outer.right + 1 ||
        hr.left < outer.left - 1 ||
        (!clipped && el.scrollWidth > el.clientWidth + 1)
      )
        out.broken.push(
          `${name.slice(0, 12)}: overflows <${held.parentElement.tagName.toLowerCase()} class="${held.parentElement.className}"> (${Math.round(hr.left)}..${Math.round(hr.right)} in ${Math.round(outer.left)}..${Math.round(outer.right)})`,
        );
      if (hr.right > document.documentElement.clientWidth + 1)
        out.broken.push(`${name.slice(0, 12)}: past the viewport's edge`);
    }
    return out;
  }, names);
  assert.equal(found.pwned, undefined, `${label}: a name ran as script`);
  assert.equal(found.imgs, 0, `${label}: an <img> from a name`);
  assert.equal(found.scripts, 0, `${label}: an inline <script> in the page`);
  for (const name of names)
    assert.ok(found.shown.includes(name), `${label}: ${name} shown as text`);
  assert.deepEqual(found.broken, [], `${label}: layout`);
  assert.ok(found.hScroll <= 0, `${label}: the page scrolls sideways by ${found.hScroll}px`);
  assert.deepEqual(problems, [], `${label}: console errors or CSP violations`);
}

test("hostile names: nothing runs, nothing is made of them, the layout holds", async () => {
  test.setTimeout(180_000);
  // Refused names: in words, and no player is made.
  const refused = await browser(PHONE);
  await refused.goto(server.url);
  for (const bad of [OVERRIDE, WORD_200]) {
    const res = await fetch(`${server.url}/api/players`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ display_name: bad }),
    });
    assert.equal(res.status, 422, `the server refuses ${JSON.stringify(bad.slice(0, 12))}`);
  }
  await refused.fill("[data-testid=name-input]", OVERRIDE);
  await refused.click("[data-testid=name-save]");
  assert.match(await waitToastText(refused), /\S/);
  await closeToast(refused);
  assert.equal(
    await refused.locator("[data-testid=create-form]").count(),
    0,
    "no player with a right-to-left override",
  );

  // The lobby's list of public rooms, on a phone: owners with hostile names.
  await publicRoomOf(RTL);
  await publicRoomOf(LONG);
  const ana = await named(IMG, DESKTOP);
  await ana.selectOption("[data-testid=s-variant]", "remi45");
  await ana.selectOption("[data-testid=s-seats]", "4");
  await ana.selectOption("[data-testid=s-vis]", "public");
  await ana.check("[data-testid=s-bots]");
  const long = await named(LONG, PHONE);
  await ana.click("[data-testid=create-room]");
  await ana.waitForSelector("[data-testid=waiting-room]");
  const roomId = decodeURIComponent(ana.url().split("#/room/")[1]);
  await long.waitForSelector(`[data-testid=join-${roomId}]`, { timeout: 10_000 });
  await shot(long, "hostile-lobby-phone.png");
  await assertSafe(long, "lobby (phone)", [IMG, LONG, RTL]);

  // The waiting room.
  await long.click(`[data-testid=join-${roomId}]`);
  await long.waitForSelector(`[data-testid=wait-seat-1]`);
  const script = await named(SCRIPT, DESKTOP);
  await script.click(`[data-testid=join-${roomId}]`);
  // Both pages have heard of the third player before either is looked at.
  for (const page of [ana, long]) {
    await page.waitForSelector("[data-testid=wait-seat-2]:has-text('__pwned')", {
      timeout: 10_000,
    });
  }
  await shot(long, "hostile-waiting-phone.png");
  await assertSafe(long, "waiting room (phone)", [IMG, LONG, SCRIPT]);
  await assertSafe(ana, "waiting room (desktop)", [IMG, LONG, SCRIPT]);

  // The table, on both screens, while the names' players and a bot play.
  await ana.click("[data-testid=start]");
  for (const p of [ana, long, script]) await p.waitForSelector("[data-testid=rack] .tile");
  assert.equal(await ana.locator("[data-testid=seat-1] .nm").textContent(), LONG);
  assert.equal(await long.locator("[data-testid=seat-0] .nm").textContent(), IMG);
  await shot(long, "hostile-table-phone.png");
  await shot(ana, "hostile-table-desktop.png");
  await assertSafe(long, "table (phone)", [IMG, LONG, SCRIPT]);
  await assertSafe(ana, "table (desktop)", [IMG, LONG, SCRIPT]);

  // The score sheet.
  for (const [p, label] of [
    [long, "phone"],
    [ana, "desktop"],
  ]) {
    await p.click("[data-testid=scores-open]");
    await p.waitForSelector("[data-testid=scores]");
    await shot(p, `hostile-scores-${label}.png`);
    await assertSafe(p, `score sheet (${label})`, [IMG, LONG, SCRIPT]);
    await p.click("[data-testid=scores-close]");
  }
});
