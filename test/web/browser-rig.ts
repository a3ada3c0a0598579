/**
 * A real gateway (store in a temp dir, two TCP receivers on loopback, the page on an HTTP port)
 * driven by Debian's Chromium through playwright-core (no browser download). Screenshots go to
 * the test's temp dir and their paths are printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { silentLogger } from '../../src/core/logger.js';
import { Gateway, type GatewayOptions } from '../../src/main.js';
import { defaultValidationEnv } from '../../src/settings/environment.js';
import { SettingsService } from '../../src/settings/settings-service.js';
import { Store } from '../../src/store/store.js';
import { freePort } from '../helpers/net.js';
import { tool } from '../helpers/system-tools.js';
import { tempDir } from '../helpers/temp-dir.js';

export const TECH = { login: 'tech1', password: 'tech-one-pass' };

export interface BrowserRig {
  readonly gateway: Gateway;
  readonly base: string;
  readonly rx1: number;
  readonly rx2: number;
  readonly adminPassword: string;
  readonly browser: Browser;
  readonly shots: string;
  shot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

async function seedReceivers(dataDir: string, rx1: number, rx2: number): Promise<void> {
  const store = new Store(join(dataDir, 'vigil.db'), silentLogger);
  await store.start();
  try {
    const settings = new SettingsService({ store: store, env: defaultValidationEnv(), logger: silentLogger });
    await settings.start();
    const result = await settings.update({
      general: { instance_name: 'Riverside cabinet 7' },
      receivers: {
        tcp_receivers: [
          { id: 1, name: 'North DC-09', port: rx1, bind_address: '127.0.0.1' },
          { id: 2, name: 'South DC-09', port: rx2, bind_address: '127.0.0.1' },
        ],
      },
    });
    await settings.stop();
    if (!result.ok) throw new Error(result.errors.join('\n'));
  } finally {
    await store.stop();
  }
}

export async function startRig(extra: Partial<GatewayOptions> = {}): Promise<BrowserRig> {
  const dir = tempDir('vigil-web-e2e-');
  const rx1 = await freePort();
  const rx2 = await freePort();
  const http = await freePort();
  await seedReceivers(dir.path, rx1, rx2);
  const gateway = new Gateway({
    dataDir: dir.path,
    httpPort: http,
    httpsPort: 0,
    host: '127.0.0.1',
    logger: silentLogger,
    ...extra,
  });
  await gateway.start();
  const adminPassword = readFileSync(join(dir.path, 'initial-admin-password'), 'utf8').split('\n')[1]!;
  // A technician who sees receiver 1 only, with device control.
  const admin = gateway.settings.publicView().users[0]!;
  const added = await gateway.settings.update({
    users: [
      admin,
      {
        id: 2,
        login: TECH.login,
        password: TECH.password,
        token_time: 60,
        scopes: ['events', 'objects'],
        visible_receivers: { all: false, custom: [1] },
      },
    ],
  });
  if (!added.ok) throw new Error(added.errors.join('\n'));
  await gateway.store.write.grants.set(2, ['device_control'], 'test');
  await gateway.store.write.grants.set(1, ['device_control', 'restart_services', 'omit_mpass'], 'test');
  const browser = await chromium.launch({ executablePath: tool('chromium'), headless: true, args: ['--no-sandbox'] });
  // Every page's waits get a generous default: a busy 2-core machine runs the browser, the gateway and
  // its password hashing side by side (playwright's own default is 30 s).
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(90_000);
    return context;
  };
  // Kept after the test (outside the data dir) so a human can look at them.
  const shots = tempDir('vigil-web-screenshots-').path;
  return {
    gateway,
    base: `http://127.0.0.1:${http}`,
    rx1,
    rx2,
    adminPassword,
    browser,
    shots,
    async shot(page, name) {
      const path = join(shots, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      console.log(`screenshot: ${path}`);
      return path;
    },
    async close() {
      await browser.close();
      await gateway.stop();
      dir.remove();
    },
  };
}

export async function logIn(page: Page, base: string, login: string, password: string): Promise<void> {
  await page.goto(`${base}/login`);
  await submitLogin(page, login, password);
}

/** Sends the login form the page shows (the login page, or a refused login's answer). */
export async function submitLogin(page: Page, login: string, password: string): Promise<void> {
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', password);
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
}
