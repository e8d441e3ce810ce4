// What most browser test files share: one server for the file (started before its tests,
// stopped after them), the browsers it opens (closed after), every page error collected in
// `problems`, and a guest named from the lobby.
import { launch } from "./browser.mjs";
import { test } from "./fixtures.mjs";
import { startServer } from "./server.mjs";

/** The file's server and browsers; `env`: the server's extra environment. */
export function browserSession(env = {}) {
  const session = {
    server: undefined,
    problems: [],
    browsers: [],
    /** A new browser's page at these options (DESKTOP, PHONE), its errors collected. */
    async open(options) {
      const b = await launch(options);
      session.browsers.push(b);
      const page = await b.page();
      page.on("pageerror", (err) => session.problems.push(`pageerror: ${err.message}`));
      return page;
    },
    /** The lobby as a guest named `name`, once the create form is there. */
    async named(page, name) {
      await page.goto(session.server.url);
      await page.fill("[data-testid=name-input]", name);
      await page.click("[data-testid=name-save]");
      await page.waitForSelector("[data-testid=create-form]");
    },
  };
  test.beforeAll(async () => {
    session.server = await startServer(env);
  });
  test.afterAll(async () => {
    for (const b of session.browsers) await b.close();
    await session.server?.stop();
  });
  return session;
}
