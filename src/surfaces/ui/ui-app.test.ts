/**
 * The run inspector's files as the HTTP app serves them: where, with which headers (a
 * self-only CSP), compressed, before the deck is open and without a key, and not at all with
 * `SERVICE_UI=off`. The browser tests (test/browser/ui.browser.test.ts) use the pages.
 */
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testDeck } from '../../../test/support/decks.js';
import { ConfigError } from '../../core/errors.js';
import { appSettingsFromEnv } from '../http/options.js';
import { UI_CSP } from './ui-app.js';
import { uiAssets, VENDOR_MODULE } from './ui-assets.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

const gzip = { headers: { 'accept-encoding': 'gzip, deflate, br' } };

/** The modules a module imports, statically (`from './x.js'`) or lazily (`import('./x.js')`). */
function importsOf(source: string): { static: string[]; lazy: string[] } {
  const relative = (re: RegExp) => [...source.matchAll(re)].map((m) => (m[1] ?? '').slice(2));
  return {
    static: relative(/\bfrom\s+'(\.\/[^']+)'/g),
    lazy: relative(/\bimport\('(\.\/[^']+)'\)/g),
  };
}

describe('GET /ui', () => {
  it('serves the shell with a self-only CSP, before the deck is open and without a key', async () => {
    const { deck } = testDeck();
    const app = deck.app({ apiKeys: ['secret'] });
    for (const path of ['/ui', '/ui/', '/ui/inbox', '/ui/runs/some-run']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toBe(UI_CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      const html = await response.text();
      expect(html).toContain('<meta name="agentdeck-ui-mode" content="on" />');
      expect(html).toContain('<script type="module" src="/ui/assets/main.js"></script>');
    }
    expect(UI_CSP).toContain("script-src 'self'");
    expect(UI_CSP).toContain("connect-src 'self'");
    expect(UI_CSP).not.toContain('unsafe');
    // The API behind it is not served before open, nor without the key once open.
    expect((await app.request('/runs')).status).toBe(503);
    await deck.open();
    expect((await app.request('/runs')).status).toBe(401);
    expect((await app.request('/ui/assets/main.js')).status).toBe(200);
  });

  it('serves every file the shell and the modules name, and nothing from elsewhere', async () => {
    const { deck } = testDeck();
    const app = deck.app();
    const shell = await (await app.request('/ui')).text();
    const named = [...shell.matchAll(/(?:href|src)="\/ui\/assets\/([^"]+)"/g)].map((m) => m[1]);
    expect(named).toContain('main.js');
    expect(named).toContain(VENDOR_MODULE);
    const seen = new Set<string>();
    const queue = [...named];
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (seen.has(name)) continue;
      seen.add(name);
      const response = await app.request(`/ui/assets/${name}`);
      expect(response.status, name).toBe(200);
      const text = await response.text();
      if (name.endsWith('.js')) {
        expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
        const found = importsOf(text);
        queue.push(...found.static, ...found.lazy);
      }
    }
    expect([...seen].sort()).toEqual(
      expect.arrayContaining(['run-page.js', 'inbox-page.js', 'timeline.js', 'api.js']),
    );
    // Offline: no file names a remote origin (the SVG namespace is a name, not a request).
    for (const [name, asset] of uiAssets()) {
      if (name === VENDOR_MODULE) continue;
      const text = Buffer.from(asset.body).toString('utf8').replaceAll('http://www.w3.org/', '');
      expect(text, name).not.toMatch(/https?:\/\/|\/\/[a-z0-9-]+\.[a-z]{2,}\//i);
    }
    expect((await app.request('/ui/assets/nope.js')).status).toBe(404);
    // A path climbing out of assets/ is normalised first: it names a page, never a file.
    const climbing = await (await app.request('/ui/assets/../ui-app.ts')).text();
    expect(climbing).toContain('agentdeck-ui-mode');
    expect(climbing).not.toContain('mountUi');
  });

  it('sends gzip when asked; the first page, every module it loads at once, is under 150 KB', async () => {
    const { deck } = testDeck();
    const app = deck.app();
    const shell = await app.request('/ui', gzip);
    expect(shell.headers.get('content-encoding')).toBe('gzip');
    expect(shell.headers.get('vary')).toBe('Accept-Encoding');
    const shellBytes = new Uint8Array(await shell.arrayBuffer());
    expect(gunzipSync(shellBytes).toString('utf8')).toContain('agentdeck-ui-mode');
    // The runs page: the shell, its stylesheets and the static import graph of main.js.
    let total = shellBytes.byteLength;
    const first = ['app.css', 'pages.css', 'icon.svg'];
    const queue = ['main.js'];
    while (queue.length > 0) {
      const name = queue.shift() as string;
      if (first.includes(name)) continue;
      first.push(name);
      if (name.endsWith('.js') || name.endsWith('.mjs')) {
        const plain = await (await app.request(`/ui/assets/${name}`)).text();
        queue.push(...importsOf(plain).static);
      }
    }
    for (const name of first) {
      const response = await app.request(`/ui/assets/${name}`, gzip);
      expect(response.headers.get('content-encoding'), name).toBe('gzip');
      const bytes = (await response.arrayBuffer()).byteLength;
      expect(Number(response.headers.get('content-length'))).toBe(bytes);
      total += bytes;
    }
    expect(first).toContain(VENDOR_MODULE);
    expect(first).not.toContain('run-page.js'); // loaded when a run is opened
    console.log(`[ui] first page: ${first.length + 1} files, ${total} bytes gzip`);
    expect(total).toBeLessThan(150 * 1024);
    // Plain when gzip is not accepted.
    const plain = await app.request('/ui/assets/main.js');
    expect(plain.headers.get('content-encoding')).toBeNull();
  });

  it('answers 304 to a request with the current ETag', async () => {
    const { deck } = testDeck();
    const app = deck.app();
    const first = await app.request('/ui/assets/main.js');
    const etag = first.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await app.request('/ui/assets/main.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });
});

describe('SERVICE_UI', () => {
  it('off: every /ui path is 404', async () => {
    vi.stubEnv('SERVICE_UI', 'off');
    const { deck } = testDeck();
    await deck.open();
    const app = deck.app();
    for (const path of ['/ui', '/ui/', '/ui/runs/x', '/ui/assets/main.js']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Not Found' });
    }
    expect((await app.request('/health')).status).toBe(200);
  });

  it('read-only: the shell says so (the pages then show no control that changes a run)', async () => {
    vi.stubEnv('SERVICE_UI', 'read-only');
    const { deck } = testDeck();
    const html = await (await deck.app().request('/ui')).text();
    expect(html).toContain('<meta name="agentdeck-ui-mode" content="read-only" />');
  });

  it('the app option wins over the environment; a bad value is a configuration error', async () => {
    vi.stubEnv('SERVICE_UI', 'off');
    const { deck } = testDeck();
    expect((await deck.app({ ui: 'on' }).request('/ui')).status).toBe(200);
    expect(appSettingsFromEnv({}).ui).toBe('on');
    expect(appSettingsFromEnv({ SERVICE_UI: ' Read-Only ' }).ui).toBe('read-only');
    expect(() => appSettingsFromEnv({ SERVICE_UI: 'yes' })).toThrow(ConfigError);
    expect(() => appSettingsFromEnv({ SERVICE_UI: 'yes' })).toThrow(
      "SERVICE_UI must be one of off, read-only, on, got 'yes'",
    );
  });
});
