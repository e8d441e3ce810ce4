// The browser tests (e2e/*.test.mjs) on Playwright Test, driving Debian's chromium
// (e2e/browser.mjs: no browser is downloaded). Each test file starts its own server with
// its own database and settings (e2e/server.mjs), so files run in parallel workers; the
// tests of one file run in order, as they build on each other.
import { defineConfig } from "@playwright/test";

const CI = !!process.env.CI;

export default defineConfig({
  testDir: "e2e",
  testMatch: "*.test.mjs",
  // Each test sets its own limit (test.setTimeout); this is the default for hooks.
  timeout: 120_000,
  workers: Number(process.env.REMI_E2E_WORKERS ?? 2),
  // In CI a failed test runs once more; a test that passes only then is reported as flaky,
  // with the first attempt's trace kept.
  retries: CI ? 1 : 0,
  forbidOnly: CI,
  reporter: [["list"]],
  // Where a failed test's traces go (npx playwright show-trace test-results/<test>/*.zip).
  outputDir: "test-results",
});
