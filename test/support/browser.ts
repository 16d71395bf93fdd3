/**
 * For browser tests: Debian's Chromium driven by Playwright (`playwright-core`, no browser
 * download), headless, with a fresh profile, and a page of our own served from another
 * origin (a plain HTTP server on a free port of 127.0.0.1), so what the page does is what a
 * front end on `localhost:3000` does against the service. Every console message of type
 * `error` is collected, so a test can fail on any it did not expect.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Where a browser test writes screenshot `name`: `build/screenshots/` (git-ignored), so a
 * test run leaves the clone clean; `npm run docs:screenshots` sets `SCREENSHOTS_DIR=docs` to
 * refresh the ones the guides show.
 */
export function screenshotPath(name: string): string {
  const dir = resolve(
    import.meta.dirname,
    '../..',
    process.env.SCREENSHOTS_DIR ?? 'build/screenshots',
  );
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

export interface BrowserSession {
  /** The browser, on a fresh profile of its own. */
  context: BrowserContext;
  /** A page loaded from the page server's origin, with its console errors collected. */
  page: Page;
  /** `http://127.0.0.1:<port>`: the page's origin. */
  origin: string;
  consoleErrors: string[];
  close(): Promise<void>;
}

/** Launch Chromium and open a blank page served from an origin of its own. */
export async function openBrowserPage(): Promise<BrowserSession> {
  const profile = mkdtempSync(join(tmpdir(), 'agentdeck-chromium-'));
  const pages: Server = createServer((_, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end('<!doctype html><title>front end</title><p>front end</p>');
  });
  await new Promise<void>((ready) => pages.listen(0, '127.0.0.1', ready));
  const address = pages.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.goto(`${origin}/`);
  return {
    context,
    page,
    origin,
    consoleErrors,
    async close() {
      await context.close();
      await new Promise((done) => pages.close(done));
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
