/**
 * The studio's read routes (#21): `GET /catalog` describes what the deck declares (tools with
 * their JSON schemas and approval, workflow graphs with conditional edges, skills, MCP servers
 * with their live status and tools) and never a secret; a thread's state comes from its
 * checkpointer; a session's history from the session store.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { END, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDeck } from '../../../test/support/decks.js';
import { postJson } from '../../../test/support/http.js';
import { approval } from '../../../test/support/workflows.js';
import { Agent, tool, Workflow } from '../../index.js';
import { ScriptedModel } from '../../testing/index.js';

const EVERYTHING = resolve(
  import.meta.dirname,
  '../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js',
);

const Route = z.object({ text: z.string(), lane: z.string().optional() });
const router = new Workflow({
  name: 'router',
  description: 'Sort a text by its length.',
  state: Route,
  graph: (state) =>
    new StateGraph(state)
      .addNode('classify', (s: z.infer<typeof Route>) => ({
        lane: s.text.length > 3 ? 'long' : 'short',
      }))
      .addNode('long', () => ({}))
      .addNode('short', () => ({}))
      .addEdge(START, 'classify')
      .addConditionalEdges('classify', (s: z.infer<typeof Route>) => s.lane ?? 'short', [
        'long',
        'short',
      ])
      .addEdge('long', END)
      .addEdge('short', END),
});

const pay = tool({
  name: 'pay',
  description: 'Pay an invoice',
  parameters: z.object({ invoice: z.string(), amount: z.number() }),
  needsApproval: ({ amount }) => amount > 100,
  execute: () => 'paid',
});

describe('GET /catalog', () => {
  it('describes agents, tools, workflow graphs, skills and MCP servers, with no secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentdeck-studio-'));
    const mcp = join(dir, '.mcp.json');
    writeFileSync(
      mcp,
      JSON.stringify({
        mcpServers: {
          everything: {
            command: process.execPath,
            args: [EVERYTHING, 'stdio'],
            env: { SECRET_TOKEN: 'sk-very-secret-value' },
          },
        },
      }),
    );
    const skillsDir = join(dir, 'skills', 'house-rules');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(skillsDir, { recursive: true });
    writeFileSync(
      join(skillsDir, 'SKILL.md'),
      '---\nname: house-rules\ndescription: How we talk\n---\nBe kind.\n',
    );
    const clerk = new Agent({
      name: 'Clerk',
      instructions: 'Pay invoices.',
      tools: [pay, router],
      skills: ['house-rules'],
      mcpServers: ['everything'],
      needsApproval: ['router', 'echo'],
      model: new ScriptedModel([]),
    });
    const computed = new Agent({ name: 'Computed', instructions: () => 'dynamic' });
    const { deck } = await openTestDeck({
      agents: [clerk, computed],
      workflows: [router],
      mcp,
      skills: join(dir, 'skills'),
    });
    const response = await deck.app().request('/catalog');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain('sk-very-secret-value');
    expect(text).not.toContain(EVERYTHING);
    const catalog = JSON.parse(text);

    const agent = catalog.agents.find((a: { name: string }) => a.name === 'Clerk');
    expect(agent).toMatchObject({
      description:
        "Talk to the agent 'Clerk', which can call the tools 'pay' and 'router', read the skill 'house-rules' and use the tools of the MCP server 'everything'.",
      instructions: 'Pay invoices.',
      instructions_computed: false,
      skills: ['house-rules'],
      mcp_servers: ['everything'],
      needs_approval: ['router', 'echo'],
    });
    const tools = Object.fromEntries(agent.tools.map((t: { name: string }) => [t.name, t]));
    expect(tools.pay).toMatchObject({ kind: 'tool', needs_approval: 'conditional' });
    expect(tools.pay.parameters.properties).toMatchObject({
      invoice: { type: 'string' },
      amount: { type: 'number' },
    });
    expect(tools.router).toMatchObject({ kind: 'workflow', needs_approval: true });
    expect(tools.load_skill).toMatchObject({ kind: 'skill', needs_approval: false });
    expect(catalog.agents.find((a: { name: string }) => a.name === 'Computed')).toMatchObject({
      instructions: null,
      instructions_computed: true,
    });

    const graph = catalog.workflows.find((w: { name: string }) => w.name === 'router').graph;
    expect(graph.nodes.map((n: { id: string }) => n.id).sort()).toEqual(
      ['__end__', '__start__', 'classify', 'long', 'short'].sort(),
    );
    const conditional = graph.edges.filter((e: { conditional: boolean }) => e.conditional);
    expect(conditional.map((e: { target: string }) => e.target).sort()).toEqual(['long', 'short']);
    expect(catalog.workflows[0].state_schema.properties).toHaveProperty('text');
    expect(catalog.workflows[0].description).toBe('Sort a text by its length.');

    expect(catalog.skills).toEqual([
      {
        name: 'house-rules',
        description: 'How we talk',
        body: expect.stringContaining('Be kind.'),
      },
    ]);
    const [server] = catalog.mcp_servers;
    expect(server).toMatchObject({ name: 'everything', transport: 'stdio', status: 'connected' });
    expect(server.tools.map((t: { name: string }) => t.name)).toContain('echo');
    expect(catalog.schedules).toEqual([]);
  });
});

describe('threads and sessions', () => {
  it("reads a waiting thread's state from the checkpointer; 404 for none", async () => {
    const { deck } = await openTestDeck({ workflows: [approval()] });
    const app = deck.app();
    await app.request('/workflows/approval?thread_id=t-1', postJson({ amount: 12 }));
    const response = await app.request('/threads/approval/t-1');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      workflow: 'approval',
      thread_id: 't-1',
      values: { amount: 12, note: 'amount 12' },
      next: ['ask'],
      waiting: [{ payload: { question: 'approve?', amount: 12 }, wake_at: null }],
      updated_at: expect.any(String),
    });
    expect((await app.request('/threads/approval/none')).status).toBe(404);
    expect((await app.request('/threads/nope/t-1')).status).toBe(404);
  });

  it("reads a session's latest history items", async () => {
    const model = new ScriptedModel([{ text: 'Hello Ann.' }]);
    const { deck } = await openTestDeck({ agents: [new Agent({ name: 'Greeter', model })] });
    await deck.run('Greeter', 'I am Ann', { sessionId: 'ann' });
    const body = (await (await deck.app().request('/sessions/ann?limit=10')).json()) as {
      items: { role?: string }[];
    };
    expect(body.items.map((item) => item.role)).toEqual(['user', 'assistant']);
    const empty = await (await deck.app().request('/sessions/nobody')).json();
    expect(empty).toEqual({ session_id: 'nobody', items: [] });
    expect((await deck.app().request('/sessions/ann?limit=0')).status).toBe(422);
  });
});
