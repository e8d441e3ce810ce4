// The browser tests' `test`: Playwright Test's, with one automatic fixture that keeps the
// traces of the players' browsers (browser.mjs) when a test fails.
import { test as base } from "@playwright/test";
import { keepTraces } from "./browser.mjs";

export const test = base.extend({
  traces: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's needs from this pattern
    async ({}, use, info) => {
      await use(undefined);
      await keepTraces(info.status !== info.expectedStatus, info.outputDir);
    },
    { auto: true },
  ],
});
