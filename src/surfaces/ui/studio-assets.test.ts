/**
 * The studio's plain modules (run by the browser as is): the JSON-schema check the playground
 * runs before it sends a workflow's state (on schemas as zod emits them), and the layered
 * layout of a workflow graph (longest path from start; loops drawn back up; edges that skip
 * a row go around it).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type GraphShape, layoutGraph } from './assets/graph-layout.js';
import { sampleOf, schemaErrors } from './assets/json-schema-check.js';

const Expense = z.toJSONSchema(
  z.object({
    employee: z.string().min(1),
    amount: z.number().positive(),
    currency: z.enum(['EUR', 'USD']).default('EUR'),
    lines: z.array(z.object({ label: z.string(), cents: z.number().int() })).optional(),
    note: z.string().nullable().optional(),
    tags: z.strictObject({ urgent: z.boolean() }).optional(),
  }),
  { io: 'input' }, // as the catalog describes a workflow's state
);

describe('schemaErrors', () => {
  it('accepts a state that zod accepts', () => {
    const state = {
      employee: 'Ada',
      amount: 5,
      lines: [{ label: 'taxi', cents: 1200 }],
      note: null,
    };
    expect(schemaErrors(Expense, state)).toEqual([]);
  });

  it('names each place a state breaks its schema', () => {
    const state = {
      employee: '',
      amount: 0,
      currency: 'GBP',
      lines: [{ label: 'taxi', cents: 1.5 }, { cents: 3 }],
      note: 4,
      tags: { urgent: 'yes', team: 'ops' },
      extra: true, // zod strips an unknown field of a plain object: no error
    };
    expect(schemaErrors(Expense, state)).toEqual([
      { path: 'employee', message: 'shorter than 1 characters' },
      { path: 'amount', message: 'not more than 0' },
      { path: 'currency', message: 'expected one of "EUR", "USD"' },
      { path: 'lines[0].cents', message: 'expected integer, got number' },
      { path: 'lines[1].label', message: 'required' },
      { path: 'note', message: 'expected string or null, got integer' },
      { path: 'tags.urgent', message: 'expected boolean, got string' },
      { path: 'tags.team', message: 'not a field of this state' },
    ]);
    expect(schemaErrors(Expense, [])).toEqual([
      { path: '', message: 'expected object, got array' },
    ]);
    const either = { anyOf: [{ type: 'string' }, { type: 'object', required: ['id'] }] };
    expect(schemaErrors(either, 'a')).toEqual([]);
    expect(schemaErrors(either, {})).toEqual([
      { path: '', message: 'matches none of the allowed shapes' },
    ]);
  });

  it("follows a $ref to the schema's own $defs (a recursive state)", () => {
    interface Step {
      name: string;
      next?: Step | undefined;
    }
    const Step: z.ZodType<Step> = z.lazy(() =>
      z.object({ name: z.string(), next: Step.optional() }),
    );
    const Plan = z.toJSONSchema(z.object({ first: Step }), { io: 'input' });
    expect(JSON.stringify(Plan)).toContain('$ref');
    expect(schemaErrors(Plan, { first: { name: 'a', next: { name: 'b' } } })).toEqual([]);
    expect(schemaErrors(Plan, { first: { name: 'a', next: { name: 2 } } })).toEqual([
      { path: 'first.next.name', message: 'expected string, got integer' },
    ]);
  });

  it('starts from the required fields, each with a value of its type', () => {
    expect(sampleOf(Expense)).toEqual({ employee: '', amount: 1 });
  });
});

const graph = (edges: [string, string, boolean?][], extra: string[] = []): GraphShape => {
  const ids = new Set([
    '__start__',
    ...edges.map(([source]) => source),
    ...edges.map(([, target]) => target),
    ...extra,
  ]);
  return {
    nodes: [...ids].map((id) => ({ id })),
    edges: edges.map(([source, target, conditional]) => ({
      source,
      target,
      conditional: conditional ?? false,
      label: null,
    })),
  };
};

describe('layoutGraph', () => {
  it('puts each node on the layer of its longest path from start', () => {
    const layout = layoutGraph(
      graph([
        ['__start__', 'a'],
        ['a', 'b'],
        ['b', 'c'],
        ['a', 'c', true],
        ['c', '__end__'],
      ]),
    );
    const layer = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layer).toEqual({ __start__: 0, a: 1, b: 2, c: 3, __end__: 4 });
    // a -> c skips b's row, where b's box stands: it goes around on the right.
    const skip = layout.edges.find((e) => e.source === 'a' && e.target === 'c');
    const b = layout.nodes.find((n) => n.id === 'b');
    expect(skip?.conditional).toBe(true);
    expect(skip?.labelAt.x).toBeGreaterThan((b?.x ?? 0) + (b?.w ?? 0));
    expect(layout.width).toBeGreaterThan(skip?.labelAt.x ?? 0);
  });

  it('draws a loop back up instead of pushing its nodes down forever', () => {
    const layout = layoutGraph(
      graph([
        ['__start__', 'agent'],
        ['agent', 'tools', true],
        ['tools', 'agent'],
        ['agent', '__end__', true],
      ]),
    );
    const layer = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layer).toEqual({ __start__: 0, agent: 1, tools: 2, __end__: 2 });
    expect(layout.edges.filter((e) => e.back).map((e) => `${e.source}->${e.target}`)).toEqual([
      'tools->agent',
    ]);
    // Nodes of one layer side by side, none overlapping.
    const row = layout.nodes.filter((n) => n.layer === 2).sort((a, b) => a.x - b.x);
    expect((row[0]?.x ?? 0) + (row[0]?.w ?? 0)).toBeLessThan(row[1]?.x ?? 0);
  });

  it('places a node no path reaches, and ignores an edge to a node it does not list', () => {
    const shape = graph([['__start__', 'a']], ['orphan']);
    shape.edges.push({ source: 'a', target: 'ghost', conditional: false, label: null });
    const layout = layoutGraph(shape);
    expect(layout.nodes.map((n) => n.id).sort()).toEqual(['__start__', 'a', 'orphan']);
    expect(layout.edges).toHaveLength(1);
  });
});
