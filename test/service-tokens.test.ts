/**
 * Tokens in a real `service-serve` process configured only by its environment
 * (`SERVICE_AUTH_ISSUER`, `SERVICE_AUTH_AUDIENCE`, `SERVICE_AUTH_TENANT_CLAIM`), against a
 * real issuer on 127.0.0.1: an MCP client is refused with the challenge that points it to
 * the protected resource metadata, reads the metadata, and with a token from the issuer
 * lists the tools; the native routes take the same token, and refuse an expired one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';
import { TestIssuer } from './support/token-issuer.js';

const PROJECT = join(resolve(import.meta.dirname, '..'), 'examples/project/.agentdeck');
const issuer = new TestIssuer();
let server: ServerProcess;
let dir: string;
let url: string;

beforeAll(async () => {
  await issuer.start();
  await issuer.addKey('k1');
  issuer.publish('k1');
  dir = mkdtempSync(join(tmpdir(), 'agentdeck-tokens-'));
  server = startServer(
    PROJECT,
    {
      SERVICE_AUTH_ISSUER: issuer.url,
      SERVICE_AUTH_AUDIENCE: 'api://deck',
      SERVICE_AUTH_TENANT_CLAIM: 'org_id',
    },
    dir,
  );
  url = await server.url;
}, 60_000);

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  await issuer.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('service-serve with SERVICE_AUTH_*', () => {
  it('points an MCP client without a token to the metadata, and serves it the tools with one', async () => {
    const refused = await fetch(`${url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(refused.status).toBe(401);
    const challenge = refused.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
    expect(metadataUrl).toBe(`${url}/.well-known/oauth-protected-resource`);
    const metadata = (await (await fetch(metadataUrl as string)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: url, authorization_servers: [issuer.url] });

    const token = await issuer.sign('k1', {
      org_id: 'acme',
      scope: 'agentdeck:read agentdeck:run',
    });
    const client = new Client({ name: 'token-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('expense-approval');
    await client.close();
  }, 60_000);

  it('takes the token on the native routes and refuses an expired one', async () => {
    const token = await issuer.sign('k1', { org_id: 'acme' });
    const runs = await fetch(`${url}/runs`, { headers: { authorization: `Bearer ${token}` } });
    expect(runs.status).toBe(200);
    const expired = await issuer.sign('k1', {
      org_id: 'acme',
      exp: Math.floor(Date.now() / 1000) - 300,
    });
    const refused = await fetch(`${url}/runs`, { headers: { authorization: `Bearer ${expired}` } });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ detail: 'the token has expired' });
  });
});
