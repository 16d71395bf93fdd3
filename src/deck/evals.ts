/**
 * `deck.evals` and `deck.experiment()` (#41, docs/evals.md): datasets kept by the event
 * store (the EvalStore ability), the deck's scorers, and experiments that play an agent or a
 * workflow over a dataset (experiments.ts) and are read back from their runs
 * (experiment-results.ts). Every call takes the caller's tenant (`namespace`): a tenant's
 * datasets and experiments are its own. The HTTP routes (surfaces/http/evals.ts) call the
 * same methods, granted by `deck.app()`.
 */
import type { AgentDefinition } from '../authoring/agent-definition.js';
import { isScorer, type Scorer } from '../authoring/scorer.js';
import { checkVariant } from '../authoring/variant.js';
import type { WorkflowDefinition } from '../authoring/workflow-definition.js';
import { ConfigError, errorMessage, InvalidInputError, NotFoundError } from '../core/errors.js';
import { type EvalStore, type ExperimentRecord, hasEvalStore } from '../core/evals.js';
import { log } from '../core/log.js';
import { scopedLog } from '../runtime/tenant-scope.js';
import type {
  EvalsTenant,
  ExperimentSummary,
  ExperimentView,
} from '../surfaces/http/served-evals.js';
import {
  agentInputOf,
  type DatasetItemInput,
  itemsFromInput,
  itemsFromRuns,
  workflowInputOf,
} from './dataset-items.js';
import { readExperiment } from './experiment-results.js';
import { type ExperimentPlan, playExperiment } from './experiments.js';
import type { OpenParts } from './open-parts.js';

export type {
  EvalsTenant,
  ExperimentResult,
  ExperimentSummary,
  ExperimentView,
} from '../surfaces/http/served-evals.js';

export interface NewDataset {
  name: string;
  /** @default '' */
  description?: string;
  /** Items given as they are. */
  items?: DatasetItemInput[];
  /** Recorded runs to add, one item each: their input, and their output as the reference. */
  runs?: string[];
}

export interface ExperimentOptions {
  /** The dataset's name. */
  dataset: string;
  /** The agent to play each item (or `workflow`). */
  agent?: string;
  /** The workflow to play each item (or `agent`). */
  workflow?: string;
  /** @default the target's name, with the variant's model when it has one */
  name?: string;
  /** An agent's model, instructions or model settings (`AgentVariant`); for a workflow, a label. */
  variant?: Record<string, unknown>;
  /** Names of the deck's scorers. @default every scorer of the deck */
  scorers?: string[];
  /** Items played at once. @default 4 */
  concurrency?: number;
}

/** An experiment just started; `done` resolves when every item has been played and scored. */
export interface StartedExperiment {
  id: string;
  name: string;
  status: 'running';
  done: Promise<void>;
}

const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_CONCURRENCY = 32;

export interface EvalsSources {
  parts(method: string): OpenParts;
  agents: ReadonlyMap<string, AgentDefinition>;
  workflows: ReadonlyMap<string, WorkflowDefinition>;
}

export class DeckEvals {
  /** The deck's scorers by name. */
  readonly scorers: ReadonlyMap<string, Scorer>;
  readonly #sources: EvalsSources;

  constructor(sources: EvalsSources, scorers: readonly unknown[] = []) {
    this.#sources = sources;
    const byName = new Map<string, Scorer>();
    for (const [index, scorer] of scorers.entries()) {
      if (!isScorer(scorer)) {
        throw new ConfigError(`scorers[${index}] is not a Scorer; make it with new Scorer({...})`);
      }
      if (byName.has(scorer.name)) {
        throw new ConfigError(`two scorers are named '${scorer.name}'; rename one`);
      }
      byName.set(scorer.name, scorer);
    }
    this.scorers = byName;
  }

  async listDatasets(tenant: EvalsTenant = {}) {
    return this.#store('listDatasets').listDatasets(tenant.namespace ?? null);
  }

  /** Create a dataset from items and recorded runs; ConflictError when the name is taken. */
  async createDataset(dataset: NewDataset, tenant: EvalsTenant = {}) {
    const evals = this.#store('createDataset');
    const name = checkName(dataset.name);
    const { description = '' } = dataset;
    if (typeof description !== 'string')
      throw new InvalidInputError('description must be a string');
    const items = await this.#newItems(dataset, tenant);
    const record = { namespace: tenant.namespace ?? null, name, description };
    await evals.createDataset({ ...record, createdAt: new Date().toISOString() }, items);
    return (await evals.listDatasets(record.namespace)).find((d) => d.name === name);
  }

  /** A dataset and its items, in order; NotFoundError for an unknown one. */
  async getDataset(name: string, tenant: EvalsTenant = {}) {
    const evals = this.#store('getDataset');
    const namespace = tenant.namespace ?? null;
    const record = await evals.getDataset(namespace, name);
    if (!record) throw unknownDataset(name);
    return { ...record, items: await evals.datasetItems(namespace, name) };
  }

  /** Add items and recorded runs after a dataset's last item; how many were added, and the count. */
  async addItems(name: string, add: Omit<NewDataset, 'name'>, tenant: EvalsTenant = {}) {
    const evals = this.#store('addItems');
    const items = await this.#newItems(add, tenant);
    const count = await evals.addDatasetItems(tenant.namespace ?? null, name, items);
    if (count === null) throw unknownDataset(name);
    return { added: items.length, items: count };
  }

  async deleteDataset(name: string, tenant: EvalsTenant = {}): Promise<void> {
    const gone = await this.#store('deleteDataset').deleteDataset(tenant.namespace ?? null, name);
    if (!gone) throw unknownDataset(name);
  }

  /**
   * Start an experiment: checked whole first (dataset, target, variant, scorers, every item's
   * input), then played in the background. Its failure is recorded on it, never thrown.
   */
  async startExperiment(
    options: ExperimentOptions,
    tenant: EvalsTenant = {},
  ): Promise<StartedExperiment> {
    const parts = this.#sources.parts('startExperiment');
    const evals = this.#store('startExperiment');
    const plan = await this.#plan(evals, options, tenant.namespace ?? null);
    await evals.createExperiment(
      plan.record,
      plan.items.map(({ item }) => item.id),
    );
    const { id } = plan.record;
    const done = playExperiment({ runtime: parts.runtime, store: parts.store, evals }, plan)
      .then(
        () => evals.finishExperiment(id, 'completed', null),
        async (error: unknown) => {
          log.warn(`experiment '${id}' failed: ${errorMessage(error)}`);
          await evals.finishExperiment(id, 'failed', errorMessage(error));
        },
      )
      // Nobody may be waiting (HTTP answers 202): a store closed meanwhile is logged, not thrown.
      .catch((error: unknown) => {
        log.warn(`experiment '${id}' could not record its end: ${errorMessage(error)}`);
      });
    return { id, name: plan.record.name, status: 'running', done };
  }

  /** Play an experiment to its end; its summary and results. */
  async experiment(options: ExperimentOptions, tenant: EvalsTenant = {}): Promise<ExperimentView> {
    const started = await this.startExperiment(options, tenant);
    await started.done;
    return this.getExperiment(started.id, tenant);
  }

  async listExperiments(
    filter: { dataset?: string } & EvalsTenant = {},
  ): Promise<ExperimentSummary[]> {
    const evals = this.#store('listExperiments');
    const records = await evals.listExperiments(filter.namespace ?? null, filter.dataset);
    return Promise.all(
      records.map(async (record) => {
        const { results: _, ...summary } = await readExperiment(evals, this.#log(record), record);
        return summary;
      }),
    );
  }

  /** An experiment with its results in dataset order; NotFoundError for an unknown one. */
  async getExperiment(id: string, tenant: EvalsTenant = {}): Promise<ExperimentView> {
    const evals = this.#store('getExperiment');
    const record = await evals.getExperiment(tenant.namespace ?? null, id);
    if (!record) throw new NotFoundError(`no experiment '${id}'`);
    return readExperiment(evals, this.#log(record), record);
  }

  async #plan(
    evals: EvalStore,
    options: ExperimentOptions,
    namespace: string | null,
  ): Promise<ExperimentPlan> {
    if (typeof options?.dataset !== 'string' || options.dataset === '') {
      throw new InvalidInputError('dataset is missing: name the dataset to play');
    }
    const { agent: agentName, workflow: workflowName } = options;
    if ((agentName === undefined) === (workflowName === undefined)) {
      throw new InvalidInputError('give exactly one of agent and workflow: what plays each item');
    }
    const agent = agentName === undefined ? null : this.#sources.agents.get(agentName);
    const workflow = workflowName === undefined ? null : this.#sources.workflows.get(workflowName);
    if (agent === undefined) {
      throw new InvalidInputError(
        `agent: no agent '${agentName}' in the deck; pick one of ${names(this.#sources.agents)}`,
      );
    }
    if (workflow === undefined) {
      throw new InvalidInputError(
        `workflow: no workflow '${workflowName}' in the deck; pick one of ${names(this.#sources.workflows)}`,
      );
    }
    const variant = agent ? checkVariant(options.variant) : undefined;
    if (
      options.variant !== undefined &&
      (typeof options.variant !== 'object' || options.variant === null)
    ) {
      throw new InvalidInputError('variant must be an object');
    }
    const scorers = (options.scorers ?? [...this.scorers.keys()]).map((name) => {
      const scorer = this.scorers.get(name);
      if (!scorer) {
        throw new InvalidInputError(
          `scorers: no scorer '${name}' in the deck; pick among ${names(this.scorers)}`,
        );
      }
      return scorer;
    });
    const concurrency = options.concurrency ?? 4;
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
      throw new InvalidInputError(
        `concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`,
      );
    }
    const dataset = await evals.getDataset(namespace, options.dataset);
    if (!dataset) throw unknownDataset(options.dataset);
    const items = (await evals.datasetItems(namespace, options.dataset)).map((item) => {
      const where = `dataset '${dataset.name}' item ${item.position} (${item.id})`;
      return {
        item,
        input: agent ? agentInputOf(item.input, where) : workflowInputOf(item.input, where),
      };
    });
    const target = agent
      ? { type: 'agent' as const, name: agent.name }
      : { type: 'workflow' as const, name: (workflow as WorkflowDefinition).name };
    const label = variant?.model ? `${target.name} (${variant.model})` : target.name;
    const record: ExperimentRecord = {
      id: `exp_${crypto.randomUUID().replaceAll('-', '').slice(0, 20)}`,
      namespace,
      name: options.name ?? label,
      dataset: dataset.name,
      target,
      variant: (agent
        ? (variant ?? null)
        : (options.variant ?? null)) as ExperimentRecord['variant'],
      scorers: scorers.map((s) => s.name),
      status: 'running',
      error: null,
      createdAt: new Date().toISOString(),
    };
    return { record, items, agent, workflow, variant, scorers, concurrency };
  }

  async #newItems(add: Omit<NewDataset, 'name'>, tenant: EvalsTenant) {
    const given = itemsFromInput(add.items);
    const fromRuns = await itemsFromRuns(this.#log(tenant), add.runs);
    return [...fromRuns, ...given];
  }

  /** The event log as the tenant sees it. */
  #log(tenant: { namespace?: string | null }) {
    return scopedLog(this.#sources.parts('evals').store, tenant.namespace ?? undefined);
  }

  #store(method: string): EvalStore {
    const { store } = this.#sources.parts(method);
    if (!hasEvalStore(store)) {
      throw new ConfigError(
        'this event store keeps no datasets (EvalStorage); use the memory, SQLite or Postgres store',
      );
    }
    return store.evals;
  }
}

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !DATASET_NAME.test(name)) {
    throw new InvalidInputError(
      `name must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit; got ${JSON.stringify(name)}`,
    );
  }
  return name;
}

const unknownDataset = (name: string) =>
  new NotFoundError(`no dataset '${name}'; create it first (POST /evals/datasets)`);

function names(map: ReadonlyMap<string, unknown>): string {
  const all = [...map.keys()];
  return all.length ? all.map((n) => `'${n}'`).join(', ') : 'none (the deck has none)';
}
