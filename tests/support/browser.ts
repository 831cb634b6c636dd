/**
 * A real browser for the console's tests: Debian's Chromium driven by playwright-core (never a
 * browser download). The binary is $CHROMIUM_PATH, else `chromium` on PATH, else /usr/bin/chromium;
 * when none exists the suite fails (it never skips): .ci/run installs it with apt.
 *
 * Each page records its page errors and CSP violations (`watchPage`), a scenario saves a screenshot
 * (`screenshot`: tests/browser/screenshots/ or $SCREENSHOTS_DIR), and `expectAccessible` runs axe.
 * A describe block gets its browser, its pages and their checks after each test from `consoleSuite`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { fleet } from './fleet.js';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** The Chromium binary to drive; throws (failing the suite) when there is none. */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
    if (onPath) return onPath;
  } catch {
    // not on PATH: try Debian's location
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  throw new Error(
    'Chromium is missing: install it (apt-get install -y --no-install-recommends chromium) or set CHROMIUM_PATH',
  );
}

export interface PageOptions {
  width?: number;
  height?: number;
  /** The system theme the page sees (prefers-color-scheme). */
  colorScheme?: 'light' | 'dark';
}

export interface ConsoleBrowser {
  browser: Browser;
  /** A fresh context (its own cookies) on the session host, 1280x800 unless told. */
  newPage(options?: PageOptions): Promise<WatchedPage>;
  close(): Promise<void>;
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Page errors and CSP violations seen so far. */
  problems: string[];
  /** Asserts that the page had no error and no CSP violation. */
  expectNoProblems(): void;
}

/**
 * Launches Chromium. playwright-core gives every launch a fresh, temporary user-data dir of its own
 * (and refuses a --user-data-dir flag), so no profile carries over between runs.
 */
export async function launchBrowser(): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  return {
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        baseURL: fleet().appUrl,
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
        colorScheme: options.colorScheme ?? 'light',
      });
      const page = await context.newPage();
      return watchPage(page, context);
    },
    async close() {
      await browser.close();
    },
  };
}

function watchPage(page: Page, context: BrowserContext): WatchedPage {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  return {
    page,
    context,
    problems,
    expectNoProblems() {
      expect(problems, problems.join('\n')).to.deep.equal([]);
    },
  };
}

const defaultScreenshotsDir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../browser/screenshots',
);

/** Saves a full-page PNG named after the scenario; answers its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = process.env.SCREENSHOTS_DIR ?? defaultScreenshotsDir;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^a-z0-9-]+/gi, '-').toLowerCase()}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * Signs in through the console's own form, opened by going to `path` signed out (the console sends
 * the signed-out to sign-in, which returns to `path` after), and waits for the signed-in page there.
 */
export async function signInThroughConsole(
  page: Page,
  credentials: { email: string; password: string },
  path = '/',
): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Email').fill(credentials.email);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'Sign out' }).waitFor();
  if (path !== '/') await page.waitForURL((url) => `${url.pathname}${url.search}` === path);
}

/** Runs axe on the page and asserts no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const severe = results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  const described = severe.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes
        .slice(0, 3)
        .map((node) => node.target.join(' '))
        .join(', ')}`,
  );
  expect(described, described.join('\n')).to.deep.equal([]);
}

/** The pages of one describe block on one browser, from `consoleSuite`. */
export interface ConsoleSuite {
  /** A fresh page (its own context), checked after the test for page errors and CSP violations. */
  newPage: (options?: PageOptions) => Promise<WatchedPage>;
  /** A fresh page signed in through the console's form at `path` (`signInThroughConsole`). */
  signIn: (
    credentials: { email: string; password: string },
    path?: string,
    options?: PageOptions,
  ) => Promise<WatchedPage>;
}

/**
 * Registers the hooks of a describe block driving the console: the browser launched in its first
 * before hook and closed after; after each test, `beforeCheck` (when given) sees the test and the
 * pages it opened, then each page must have had no page error or CSP violation.
 */
export function consoleSuite(
  options: { beforeCheck?: (test: Mocha.Test | undefined, open: WatchedPage[]) => Promise<void> } = {},
): ConsoleSuite {
  let browser: ConsoleBrowser | undefined;
  const pages: WatchedPage[] = [];
  before(async () => {
    browser = await launchBrowser();
  });
  afterEach(async function () {
    const open = pages.splice(0);
    await options.beforeCheck?.(this.currentTest, open);
    for (const watched of open) watched.expectNoProblems();
  });
  after(async () => {
    await browser?.close();
  });
  const newPage = async (pageOptions?: PageOptions) => {
    const watched = await browser!.newPage(pageOptions);
    pages.push(watched);
    return watched;
  };
  return {
    newPage,
    signIn: async (credentials, path = '/', pageOptions) => {
      const watched = await newPage(pageOptions);
      await signInThroughConsole(watched.page, credentials, path);
      return watched;
    },
  };
}
