/**
 * `Deck.fromProject()` on real directories: TypeScript bundles loaded without a build step
 * (their `agentdeck` import is the host's own module, so the classes are the same), skills,
 * `.mcp.json` next to the project directory, and a ConfigError naming each bad file.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, ConfigError, Deck, Workflow } from '../index.js';

const decks: Deck[] = [];
afterEach(async () => {
  for (const deck of decks.splice(0)) await deck.close();
});

const NODE_MODULES = resolve(import.meta.dirname, '../../node_modules');

/**
 * Write files under a fresh `<tmp>/billing-app/` (its node_modules linked to ours, as an
 * installed app's would be) and return the path of `billing-app/.agentdeck`.
 */
function project(files: Record<string, string>): string {
  const app = join(mkdtempSync(join(tmpdir(), 'agentdeck-project-')), 'billing-app');
  mkdirSync(app);
  symlinkSync(NODE_MODULES, join(app, 'node_modules'));
  for (const [path, text] of Object.entries(files)) {
    const file = join(app, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return join(app, '.agentdeck');
}

const AGENT_TS = `
import { Agent, tool } from 'agentdeck';
import { ScriptedModel } from 'agentdeck/testing';
import { z } from 'zod';

interface Quote { item: string; price: number }            // TypeScript-only syntax
enum Currency { EUR = 'EUR' }

const quote = tool({
  name: 'quote',
  description: 'Price an item',
  parameters: z.object({ item: z.string() }),
  execute: ({ item }): Quote => ({ item, price: 3 }),
});

export default new Agent({
  name: 'Biller',
  instructions: \`You quote prices in \${Currency.EUR}.\`,
  tools: [quote],
  skills: ['invoices'],
  mcpServers: ['ledger'],
  model: new ScriptedModel([
    { toolCalls: [{ name: 'quote', arguments: { item: 'pen' } }] },
    { text: 'A pen costs 3 EUR.' },
  ]),
});
`;

const WORKFLOW_JS = `
import { END, START, StateGraph } from '@langchain/langgraph';
import { Workflow } from 'agentdeck';
import { z } from 'zod';

const State = z.object({ amount: z.number(), vat: z.number().optional() });
export default new Workflow({
  name: 'vat',
  state: State,
  graph: (state) =>
    new StateGraph(state)
      .addNode('add', (s) => ({ vat: s.amount * 0.2 }))
      .addEdge(START, 'add')
      .addEdge('add', END),
});
`;

const SKILL = '---\nname: invoices\ndescription: How invoices are numbered\n---\nINV-<year>-<n>\n';
const MCP_JSON = JSON.stringify({ mcpServers: { ledger: { url: 'http://127.0.0.1:9/mcp' } } });

describe('Deck.fromProject', () => {
  it('discovers agents, workflows, skills and .mcp.json, and plays them', async () => {
    const dir = project({
      '.agentdeck/agents/biller/agent.ts': AGENT_TS,
      '.agentdeck/workflows/vat/workflow.js': WORKFLOW_JS,
      '.agentdeck/skills/invoices/SKILL.md': SKILL,
      '.mcp.json': MCP_JSON,
    });
    const deck = await Deck.fromProject(dir);
    decks.push(deck);
    expect(deck.name).toBe('billing-app');
    expect([...deck.agents.keys()]).toEqual(['Biller']);
    expect([...deck.workflows.keys()]).toEqual(['vat']);
    expect(deck.agents.get('Biller')).toBeInstanceOf(Agent);
    expect(deck.workflows.get('vat')).toBeInstanceOf(Workflow);
    deck.build();
    expect([...deck.skills.keys()]).toEqual(['invoices']);

    await deck.open(); // the ledger server cannot start: reported, not fatal
    expect((await deck.run('Biller', 'How much is a pen?')).output).toBe('A pen costs 3 EUR.');
    expect(await deck.run('vat', { amount: 100 })).toEqual({ amount: 100, vat: 20 });
  });

  it('treats a missing .mcp.json as no servers, so an agent naming one fails build()', async () => {
    const dir = project({
      '.agentdeck/agents/biller/agent.ts': AGENT_TS,
      '.agentdeck/skills/invoices/SKILL.md': SKILL,
    });
    const deck = await Deck.fromProject(dir);
    decks.push(deck);
    expect(() => deck.build()).toThrow(
      "agent 'Biller' uses MCP server 'ledger', which the deck's mcp configuration does not define. Available: none",
    );
  });

  it('serves host modules passed as `modules`, so a context class is the same class', async () => {
    class Calendar {
      free() {
        return ['9am'];
      }
    }
    const bundle = `
import { Agent, tool } from 'agentdeck';
import { ScriptedModel } from 'agentdeck/testing';
import { Calendar } from '@app/calendar';
import { z } from 'zod';
export default new Agent({
  name: 'Booker',
  tools: [tool({ name: 'free', description: 'Free slots', parameters: z.object({}),
    context: Calendar, execute: (_a, ctx) => ctx.data.free() })],
  model: new ScriptedModel([{ toolCalls: [{ name: 'free', arguments: {} }] }, { text: 'At 9am.' }]),
});`;
    const dir = project({ '.agentdeck/agents/booker/agent.ts': bundle });
    const deck = await Deck.fromProject(dir, {
      context: Calendar,
      modules: { '@app/calendar': { Calendar } },
    });
    decks.push(deck);
    await deck.open();
    expect((await deck.run('Booker', 'When?', { context: new Calendar() })).output).toBe('At 9am.');
  });

  it('names the file of a bundle that fails to load or exports no Agent', async () => {
    const broken = project({ '.agentdeck/agents/bad/agent.ts': 'export default (;' });
    await expect(Deck.fromProject(broken)).rejects.toThrow(
      new RegExp(`^cannot load ${escapeRegExp(join(broken, 'agents/bad/agent.ts'))}: `),
    );
    const throwing = project({
      '.agentdeck/workflows/w/workflow.ts': "throw new Error('no database');",
    });
    await expect(Deck.fromProject(throwing)).rejects.toThrow(
      `cannot load ${join(throwing, 'workflows/w/workflow.ts')}: no database`,
    );
    const wrong = project({ '.agentdeck/agents/x/agent.ts': 'export default { name: "x" };' });
    await expect(Deck.fromProject(wrong)).rejects.toThrow(
      `${join(wrong, 'agents/x/agent.ts')} must export an Agent as its default export (export default new Agent({ ... })), got an instance of Object`,
    );
    const none = project({ '.agentdeck/agents/x/helper.ts': 'export const x = 1;' });
    await expect(Deck.fromProject(none)).rejects.toThrow(
      `bundle ${join(none, 'agents/x')} has no agent file; add ${join(none, 'agents/x/agent.ts')} (or .js) with a default export`,
    );
    await expect(Deck.fromProject('/nonexistent/.agentdeck')).rejects.toBeInstanceOf(ConfigError);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
