/**
 * Scorers (#41): what grades each run of an experiment. A code scorer is a function the
 * project declares beside its agents (`scorers/<name>/scorer.ts`, or the deck's `scorers`
 * option); a judge scorer asks a model, with a rubric, to grade the output against the
 * reference. A scorer gives a number (and, optionally, a comment); with a `threshold`, a
 * value at or above it passes. Experiments (deck/experiments.ts) record each score as a
 * `score.recorded` event on the item's run.
 */
import { z } from 'zod';
import { ConfigError, InvalidInputError } from '../core/errors.js';
import { Agent } from './agent.js';
import type { AgentModel } from './agent-definition.js';
import { checkDescription } from './descriptions.js';

/** What a scorer is given for one item: its input, the run's output, the expected output. */
export interface ScoreInput {
  /** The item's input (an agent's message text or content blocks, a workflow's initial state). */
  input: unknown;
  /** The run's output: an agent's final text or structured output, a workflow's final state. */
  output: unknown;
  /** The item's reference (expected output), `null` when it has none. */
  reference: unknown;
  /** The run that played the item. */
  runId: string;
}

/** A scorer's answer: a number, or a number with a comment. */
export type ScoreValue = number | { value: number; comment?: string | null };

/** A score as recorded: the value and the comment (`null` without one). */
export interface Score {
  value: number;
  comment: string | null;
}

export interface ScorerOptions {
  /** Unique among the deck's scorers; names the score on the run and in results. */
  name: string;
  /** What it measures, in a sentence. @default a sentence naming it */
  description?: string;
  /** A value at or above it passes. @default none: scores neither pass nor fail */
  threshold?: number;
  /** Grade one item; may be async. A throw records no score for the item. */
  score: (input: ScoreInput) => ScoreValue | Promise<ScoreValue>;
}

/**
 * A code scorer.
 * @example
 * const exact = new Scorer({
 *   name: 'exact',
 *   threshold: 1,
 *   score: ({ output, reference }) => (output === reference ? 1 : 0),
 * });
 */
export class Scorer {
  readonly kind: 'code' | 'judge';
  readonly name: string;
  readonly description: string;
  readonly threshold: number | null;
  readonly #score: ScorerOptions['score'];

  constructor(options: ScorerOptions, kind: 'code' | 'judge' = 'code') {
    if (typeof options?.name !== 'string' || options.name.trim() === '') {
      throw new ConfigError('Scorer needs a non-empty `name`');
    }
    if (typeof options.score !== 'function') {
      throw new ConfigError(`scorer '${options.name}' needs a \`score\` function`);
    }
    const { threshold } = options;
    if (threshold !== undefined && (typeof threshold !== 'number' || !Number.isFinite(threshold))) {
      throw new ConfigError(`scorer '${options.name}': threshold must be a finite number`);
    }
    this.kind = kind;
    this.name = options.name;
    this.description =
      checkDescription(`scorer '${options.name}'`, options.description) ??
      `Scores runs as '${options.name}'.`;
    this.threshold = threshold ?? null;
    this.#score = options.score;
  }

  /** Grade one item; rejects when the function throws or gives no finite number. */
  async score(input: ScoreInput): Promise<Score> {
    const given = await this.#score(input);
    const value = typeof given === 'number' ? given : given?.value;
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new InvalidInputError(
        `scorer '${this.name}' gave ${JSON.stringify(given)}; return a number or { value, comment }`,
      );
    }
    const comment = typeof given === 'object' ? (given.comment ?? null) : null;
    return { value, comment };
  }

  /** Whether `value` passes the threshold; `null` without one. */
  passes(value: number): boolean | null {
    return this.threshold === null ? null : value >= this.threshold;
  }

  /** A model-as-judge scorer: see {@link judgeScorer}. */
  static judge(options: JudgeScorerOptions): Scorer {
    return judgeScorer(options);
  }
}

export interface JudgeScorerOptions {
  name: string;
  /** What a good answer is: the judge grades the output against the reference by it. */
  rubric: string;
  /** The judge's model. @default the `OPENAI_MODEL` setting, as agents */
  model?: string | AgentModel;
  /** A grade at or above it passes (grades are 0..1). @default none */
  threshold?: number;
  /** @default a sentence naming its rubric */
  description?: string;
}

/** What the judge answers: a grade from 0 to 1 and why. */
export const JudgeVerdict = z.object({
  score: z.number().min(0).max(1).describe('0: fails the rubric entirely, 1: meets it fully'),
  reason: z.string().describe('Why, in a sentence or two'),
});

/**
 * A scorer that asks a model to grade each output against its reference by a rubric: one
 * headless turn of an internal agent (the OpenAI settings agents use: `OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `OPENAI_MODEL`), whose structured output is `{ score, reason }`; the
 * score is the value, the reason the comment. Nothing of the judge's turn is recorded.
 * @example
 * const polite = judgeScorer({ name: 'polite', rubric: 'The answer is polite and on topic.', threshold: 0.7 });
 */
export function judgeScorer(options: JudgeScorerOptions): Scorer {
  const { name, rubric, model, threshold, description } = options;
  if (typeof rubric !== 'string' || rubric.trim() === '') {
    throw new ConfigError(`judge scorer '${name}' needs a non-empty \`rubric\``);
  }
  const judge = new Agent({
    name: `judge-${name}`,
    instructions:
      'You grade the output of an AI system against a reference answer, by this rubric:\n\n' +
      `${rubric}\n\nAnswer with a score from 0 (fails the rubric) to 1 (meets it fully) and a short reason.`,
    outputType: JudgeVerdict,
    ...(model !== undefined ? { model } : {}),
  });
  return new Scorer(
    {
      name,
      description: description ?? `A model grades each output by the rubric: ${rubric}`,
      ...(threshold !== undefined ? { threshold } : {}),
      score: async ({ input, output, reference }) => {
        const result = await judge.run(JSON.stringify({ input, output, reference }, null, 2));
        const verdict = JudgeVerdict.parse(result.finalOutput);
        return { value: verdict.score, comment: verdict.reason };
      },
    },
    'judge',
  );
}

/** Whether `value` is a Scorer (across copies of the module, as the project loader needs). */
export function isScorer(value: unknown): value is Scorer {
  return (
    value instanceof Scorer ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as Scorer).score === 'function' &&
      typeof (value as Scorer).name === 'string' &&
      ((value as Scorer).kind === 'code' || (value as Scorer).kind === 'judge'))
  );
}
