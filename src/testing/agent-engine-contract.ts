/**
 * The contract every `AgentEngine` passes (the real adapter and the scripted fake alike): one
 * vitest suite, run by each engine's own test file with a factory that sets up a few named
 * scenarios. It pins what the runtime relies on and the port only states in prose: a finished
 * turn's drafts end with exactly one `run.completed` (or `run.paused`), never with an event
 * the runtime owns; a pause requested at a safe point is saved (`control.suspend`) before
 * `run.paused`, and the saved continuation finishes the turn; a failure is thrown, not
 * yielded; and an aborted signal stops the turn within a bounded time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { joinedText, TextBlock } from '../core/blocks.js';
import type { EventDraft } from '../core/events.js';
import type { AgentEngine, TurnControl } from '../runtime/agent-engine.js';
import { createRunScope } from '../runtime/run-scope.js';
import { drain, ENVELOPE_KINDS, STOP_WITHIN_MS, stopsWithin } from './engine-contract-support.js';

/** What the scenarios say; the contract checks them. */
export const AGENT_CONTRACT = {
  reply: 'Hello from the contract.',
  failure: 'the scripted model is down',
} as const;

/**
 * The scenarios a factory sets up, each an engine and an agent whose next turn goes so:
 * - `reply`: the turn answers {@link AGENT_CONTRACT}`.reply` and completes;
 * - `pause`: the same, with a safe point before the answer: asked to pause there, the turn
 *   stops; its continuation answers `reply`;
 * - `hang`: the turn starts answering, then never goes on by itself;
 * - `fail`: the turn fails with {@link AGENT_CONTRACT}`.failure`.
 */
export type AgentContractScenario = 'reply' | 'pause' | 'hang' | 'fail';

export interface AgentEngineSubject {
  engine: AgentEngine;
  agent: AgentDefinition;
  /** Dispose of what the scenario started. @default `engine.close()` */
  dispose?(): Promise<void> | void;
}

export interface AgentEngineContractFactory {
  create(scenario: AgentContractScenario): Promise<AgentEngineSubject> | AgentEngineSubject;
  /** The turn modes to check (`TurnRequest.live`). @default [true] */
  live?: readonly boolean[];
}

/**
 * Register the agent engine contract suite for one engine.
 *
 * @example
 * ```ts
 * describeAgentEngineContract('scripted', { create: (scenario) => scriptedAgentSubject(scenario) });
 * ```
 */
export function describeAgentEngineContract(
  name: string,
  factory: AgentEngineContractFactory,
): void {
  for (const live of factory.live ?? [true]) {
    describe(`AgentEngine contract: ${name}${factory.live ? (live ? ' (live)' : ' (whole replies)') : ''}`, () => {
      const subjects: AgentEngineSubject[] = [];
      afterEach(async () => {
        for (const subject of subjects.splice(0)) {
          await (subject.dispose ? subject.dispose() : subject.engine.close());
        }
      });
      const open = async (scenario: AgentContractScenario) => {
        const subject = await factory.create(scenario);
        subjects.push(subject);
        return subject;
      };

      it('ends a finished turn with exactly one run.completed, carrying the reply', async () => {
        const { engine, agent } = await open('reply');
        const { drafts, error } = await drain(engine.playTurn(turn(agent, { live })));
        expect(error).toBeUndefined();
        const last = drafts.at(-1);
        expect(last?.kind).toBe('run.completed');
        expect(drafts.filter((d) => d.kind === 'run.completed')).toHaveLength(1);
        expect(drafts.filter((d) => ENVELOPE_KINDS.has(d.kind))).toEqual([]);
        if (last?.kind === 'run.completed') {
          expect(joinedText(last.payload.output)).toBe(AGENT_CONTRACT.reply);
        }
        const streamed = drafts.flatMap((d) => (d.kind === 'text.delta' ? [d.payload.text] : []));
        expect(streamed.join('')).toBe(AGENT_CONTRACT.reply);
      });

      it('stops at a safe point for a pause: saves first, then ends with run.paused; the saved turn finishes', async () => {
        const { engine, agent } = await open('pause');
        const seen: string[] = [];
        const saved: string[] = [];
        const control: TurnControl = {
          pauseRequested: () => true,
          suspend: async (continuation) => {
            seen.push('suspend');
            saved.push(continuation);
          },
        };
        const first = await drain(engine.playTurn(turn(agent, { live, control })), (draft) =>
          seen.push(draft.kind),
        );
        expect(first.error).toBeUndefined();
        expect(seen.at(-1)).toBe('run.paused');
        expect(seen.filter((s) => s === 'suspend')).toHaveLength(1);
        expect(seen.indexOf('suspend')).toBeLessThan(seen.indexOf('run.paused'));
        expect(first.drafts.filter((d) => d.kind === 'run.paused')).toHaveLength(1);
        expect(first.drafts.some((d) => d.kind === 'run.completed')).toBe(false);

        // As the runtime continues a paused turn: nobody reads it live.
        const continued = await drain(
          engine.playTurn(turn(agent, { live: false, continuation: saved[0] ?? null })),
        );
        expect(continued.error).toBeUndefined();
        const last = continued.drafts.at(-1);
        expect(last?.kind).toBe('run.completed');
        if (last?.kind === 'run.completed') {
          expect(joinedText(last.payload.output)).toBe(AGENT_CONTRACT.reply);
        }
      });

      it('throws a failed turn, yielding no terminal draft', async () => {
        const { engine, agent } = await open('fail');
        const { drafts, error } = await drain(engine.playTurn(turn(agent, { live })));
        expect(String((error as Error | undefined)?.message)).toContain(AGENT_CONTRACT.failure);
        expect(drafts.some((d) => d.kind === 'run.completed' || d.kind === 'run.paused')).toBe(
          false,
        );
      });

      it(`stops within ${STOP_WITHIN_MS} ms once its signal aborts, without completing`, async () => {
        const { engine, agent } = await open('hang');
        const controller = new AbortController();
        const drafts: EventDraft[] = [];
        const { stopped, elapsedMs } = await stopsWithin(
          drain(engine.playTurn(turn(agent, { live, signal: controller.signal })), (d) =>
            drafts.push(d),
          ),
          controller,
        );
        expect(stopped, `the turn was still going ${elapsedMs} ms after the abort`).toBe(true);
        expect(drafts.some((d) => d.kind === 'run.completed' || d.kind === 'run.paused')).toBe(
          false,
        );
      });
    });
  }
}

/** A turn request with a fresh scope, no session and no pause unless given. */
function turn(
  agent: AgentDefinition,
  options: {
    live: boolean;
    control?: TurnControl;
    continuation?: string | null;
    signal?: AbortSignal;
  },
) {
  const control = options.control ?? { pauseRequested: () => false, suspend: async () => {} };
  const scope = createRunScope({
    data: null,
    invocable: agent.name,
    runId: `contract-${crypto.randomUUID()}`,
    sessionId: null,
    signal: options.signal ?? new AbortController().signal,
    pauseRequested: control.pauseRequested,
  });
  return {
    agent,
    input: options.continuation ? [] : [new TextBlock('Say hello.')],
    session: null,
    scope,
    continuation: options.continuation ?? null,
    control,
    live: options.live,
  };
}
