import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors.js';
import { Agent } from './agent.js';
import { checkVariant, withVariant } from './variant.js';

describe('agent variants', () => {
  const agent = new Agent({
    name: 'Greeter',
    instructions: 'Greet.',
    model: 'gpt-4o-mini',
    modelSettings: { temperature: 0.7, maxTokens: 100 },
  });

  it('derive a definition once per variant, keeping the agent untouched', () => {
    const a = withVariant(agent, { model: 'gpt-4.1', modelSettings: { temperature: 0 } });
    expect(a).toBeInstanceOf(Agent);
    expect(a.model).toBe('gpt-4.1');
    expect(a.modelSettings).toEqual({ temperature: 0, maxTokens: 100 });
    expect(a.instructions).toBe('Greet.');
    expect(withVariant(agent, { model: 'gpt-4.1', modelSettings: { temperature: 0 } })).toBe(a);
    expect(agent.model).toBe('gpt-4o-mini');
    expect(withVariant(agent, {})).toBe(agent);
    expect(withVariant(agent, undefined)).toBe(agent);
  });

  it('refuse a variant field that is unknown or of the wrong type, naming it', () => {
    expect(() => checkVariant({ modle: 'x' })).toThrow(/variant.modle is not a variant field/);
    expect(() => checkVariant({ model: '' })).toThrow(InvalidInputError);
    expect(() => checkVariant({ instructions: 3 })).toThrow(/variant.instructions/);
    expect(() => checkVariant({ modelSettings: [] })).toThrow(/variant.modelSettings/);
    expect(() => checkVariant('gpt')).toThrow(/variant must be an object/);
  });
});
