/**
 * One case per row of SPEC.md's "Context compatibility at build" table, ruled against a
 * declared class (`ruleOn`), and the invocation check of the value (`checkContextValue`)
 * that deferred requirements and undeclared decks rely on.
 */
import { describe, expect, it } from 'vitest';
import { Context, ContextTypeError, oneOf, protocol, typeParameter } from '../index.js';
import { describeRequirement } from './context-requirements.js';
import { checkContextValue, ruleOn } from './context-verdicts.js';

class Calendar {
  free(): string[] {
    return [];
  }
}
class TeamCalendar extends Calendar {
  readonly team = 'core';
}
class Clock {
  now(): Date {
    return new Date(0);
  }
}
abstract class Repository<T> {
  abstract get(id: string): T;
}
class UserRepository extends Repository<{ id: string }> {
  get(id: string) {
    return { id };
  }
}
class WithGetter {
  get now(): () => Date {
    throw new Error('a getter must not run during the check');
  }
}

const verdictOf = (
  requirement: Parameters<typeof ruleOn>[0],
  declared: Parameters<typeof ruleOn>[1],
) => ruleOn(requirement, declared).verdict;

describe('ruleOn: the verdict table', () => {
  it('exact declared type: compatible', () => {
    expect(verdictOf(Calendar, Calendar)).toBe('compatible');
  });

  it('a supertype of the declared type (the declared type is a subclass): compatible', () => {
    expect(verdictOf(Calendar, TeamCalendar)).toBe('compatible');
    expect(verdictOf(Object, TeamCalendar)).toBe('compatible');
  });

  it('a subtype of the declared type, or an unrelated type: incompatible, saying why', () => {
    expect(ruleOn(TeamCalendar, Calendar)).toEqual({
      verdict: 'incompatible',
      why: 'TeamCalendar is a subclass of Calendar; a Calendar may lack what it adds',
    });
    expect(ruleOn(Clock, Calendar)).toEqual({
      verdict: 'incompatible',
      why: 'Calendar is not Clock and does not extend it',
    });
  });

  it('Context.any: compatible with anything', () => {
    expect(verdictOf(Context.any, Calendar)).toBe('compatible');
    expect(verdictOf(Context.any, Clock)).toBe('compatible');
  });

  it('a base type with parameters: checked against the base type, ignoring parameters', () => {
    // `Repository<User>` is an instantiation expression: at run time it is Repository.
    const requirement = Repository<{ id: string }>;
    expect(verdictOf(requirement, UserRepository)).toBe('compatible');
    expect(verdictOf(requirement, Calendar)).toBe('incompatible');
  });

  it('a protocol with only methods: checked structurally against the class', () => {
    expect(verdictOf(protocol('Clock', ['now']), Clock)).toBe('compatible');
    expect(verdictOf(protocol('Lister', ['free']), TeamCalendar)).toBe('compatible');
    expect(ruleOn(protocol('Clock', ['now', 'tick']), Calendar)).toEqual({
      verdict: 'incompatible',
      why: 'Calendar has no method now(), tick() (methods are read from the class; an arrow-function field is not one: declare it as a method)',
    });
    // Read through descriptors: a getter is not a method, and it is never run.
    expect(verdictOf(protocol('Clock', ['now']), WithGetter)).toBe('incompatible');
  });

  it('names two copies of one class as such (a module loaded twice)', () => {
    const Copy = (() => class Calendar {})();
    expect(ruleOn(Calendar, Copy)).toMatchObject({
      verdict: 'incompatible',
      why: expect.stringMatching(/^two different classes named Calendar are loaded/),
    });
  });

  it('a union: compatible when any arm is', () => {
    expect(verdictOf(oneOf(Clock, Calendar), TeamCalendar)).toBe('compatible');
    expect(verdictOf(oneOf(Clock, protocol('Lister', ['free'])), Calendar)).toBe('compatible');
    expect(ruleOn(oneOf(Clock, TeamCalendar), Calendar)).toEqual({
      verdict: 'incompatible',
      why: 'Calendar matches no arm of the union',
    });
    expect(verdictOf(oneOf(Clock, typeParameter('T')), Calendar)).toBe('deferred');
  });

  it('a protocol that cannot be ruled on (it names properties), or a type parameter: deferred', () => {
    expect(verdictOf(protocol('Tenant', [], { properties: ['tenantId'] }), Calendar)).toBe(
      'deferred',
    );
    expect(verdictOf(typeParameter('T'), Calendar)).toBe('deferred');
    expect(verdictOf(typeParameter('T', Clock), Calendar)).toBe('deferred');
  });
});

describe('checkContextValue: at invocation', () => {
  const where = "tool 'slots' of agent 'Booker'";

  it('accepts a value that satisfies the requirement', () => {
    expect(() => checkContextValue(Calendar, new TeamCalendar(), where)).not.toThrow();
    expect(() => checkContextValue(Context.any, 42, where)).not.toThrow();
    expect(() => checkContextValue(oneOf(Clock, Calendar), new Clock(), where)).not.toThrow();
    const tenant = protocol('Tenant', ['quota'], { properties: ['tenantId'] });
    expect(() => checkContextValue(tenant, { tenantId: 't', quota: () => 1 }, where)).not.toThrow();
    expect(() => checkContextValue(typeParameter('T', Clock), new Clock(), where)).not.toThrow();
    // A primitive wrapper class stands for its primitive values.
    expect(() => checkContextValue(String, 'tenant-1', where)).not.toThrow();
    expect(() => checkContextValue(Number, 'tenant-1', where)).toThrow('not an instance of Number');
  });

  it('lets null through: the site reads null and fails where it first uses it', () => {
    expect(() => checkContextValue(Calendar, null, where)).not.toThrow();
    expect(() => checkContextValue(Calendar, undefined, where)).not.toThrow();
  });

  it('refuses any other value with a ContextTypeError naming the site, the need and the value', () => {
    expect(() => checkContextValue(Calendar, new Clock(), where)).toThrow(
      new ContextTypeError(
        "tool 'slots' of agent 'Booker' requires a context of Calendar, but the run was given " +
          'an instance of Clock (not an instance of Calendar); pass a value that satisfies Calendar as `context`',
      ),
    );
    const tenant = protocol('Tenant', ['quota'], { properties: ['tenantId'] });
    expect(() => checkContextValue(tenant, { quota: 1 }, where)).toThrow(
      'an instance of Object (it lacks quota(), tenantId)',
    );
    expect(() => checkContextValue(typeParameter('T', Clock), 'x', where)).toThrow(
      'a string (not an instance of Clock, the bound of T)',
    );
    expect(() => checkContextValue(oneOf(Clock, Calendar), 7, where)).toThrow(
      'not an instance of Clock; and not an instance of Calendar',
    );
  });
});

describe('requirements', () => {
  it('describe themselves as a reader writes them', () => {
    expect(describeRequirement(Calendar)).toBe('Calendar');
    expect(describeRequirement(Context.any)).toBe('Context.any');
    expect(describeRequirement(oneOf(Clock, Calendar))).toBe('Clock | Calendar');
    expect(describeRequirement(protocol('Tenant', ['quota'], { properties: ['tenantId'] }))).toBe(
      'protocol Tenant { quota(); tenantId }',
    );
    expect(describeRequirement(typeParameter('T', Clock))).toBe('type parameter T extends Clock');
  });

  it('refuse malformed requirements when made', () => {
    expect(() => oneOf()).toThrow('oneOf() needs at least one requirement');
    expect(() => oneOf(new Calendar() as never)).toThrow(
      'oneOf() argument 0 is not a context requirement',
    );
    expect(() => protocol('Empty', [])).toThrow("protocol 'Empty' needs at least one member name");
  });
});
