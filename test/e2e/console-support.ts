import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { loopbackFor, randomIp } from '../support/e2e';

/**
 * What the console's browser tests share (test/e2e/console*.test.ts): Debian's chromium driven
 * headless by playwright-core, a proxy that makes each browser connection its own network peer,
 * CSP violation collection and the documentation's screenshots (`CONSOLE_SCREENSHOTS=docs`).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const VIEWPORT = { width: 1366, height: 768 };
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS;

/**
 * The browser reaches the gateway through this proxy, whose every connection leaves from its own
 * loopback address: the console's API calls are then spread over many per-IP rate-limit buckets,
 * as each e2e client is its own network peer (test/support/e2e.ts), instead of all falling on
 * 127.0.0.1's.
 */
export class PeerProxy {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  async start(target: URL): Promise<string> {
    const port = Number(target.port || 80);
    const local = /^(127\.\d+\.\d+\.\d+|localhost)$/.test(target.hostname);
    this.server = net.createServer((inbound) => {
      const localAddress = local ? loopbackFor(randomIp()) : undefined;
      const outbound = net.connect({
        host: target.hostname,
        port,
        ...(localAddress ? { localAddress } : {}),
      });
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      inbound.pipe(outbound).pipe(inbound);
      inbound.on('close', () => outbound.destroy());
      outbound.on('close', () => inbound.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as net.AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `The console's browser tests need Debian's chromium at ${CHROMIUM}: run scripts/install-infra.sh (or apt-get install -y chromium)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/**
 * A browser context (its own cookies) whose pages collect CSP violations where the test can read
 * them (code that runs in the page is given as text: the tests are compiled without the DOM's types).
 */
export async function consoleContext(browser: Browser): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript({
    content: `window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));`,
  });
  return context;
}

export async function violations(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.cspViolations');
}

export function alert(page: Page, text: string | RegExp) {
  return page.getByRole('alert').filter({ hasText: text });
}

/** Writes docs/console-<name>.png when CONSOLE_SCREENSHOTS names the folder. */
export async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  const dir = join(__dirname, '..', '..', SCREENSHOTS);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `console-${name}.png`) });
}
