/**
 * Evals over HTTP (#41, docs/evals.md, docs/http-api.md): datasets (`/evals/datasets`),
 * experiments (`/evals/experiments`) and the deck's scorers (`/evals/scorers`). Reading is
 * `read`; creating datasets, adding to them, deleting them and starting experiments is `run`
 * (it starts runs, or makes what they play). Every call acts as the request's tenant: a
 * tenant's datasets and experiments are its own. The deck does the work (deck/evals.ts); this
 * file maps its views to the wire (snake_case).
 */
import { z } from 'zod';
import type { DatasetItem, DatasetSummary } from '../../core/evals.js';
import type { HttpDeps } from './deps.js';
import { HttpError } from './errors.js';
import { route } from './routes.js';
import { Detail } from './schemas.js';
import type { DeckGrants } from './served-deck.js';
import type { ExperimentResult, ExperimentSummary, ServedEvals } from './served-evals.js';
import { requestTenant } from './tenancy.js';

const ItemIn = z
  .object({ input: z.unknown(), reference: z.unknown().optional() })
  .meta({ description: 'An item: the input to play and, optionally, the expected output.' });

const NewDatasetBody = z.object({
  name: z.string().describe("Letters, digits, '.', '_' and '-'; unique to the tenant"),
  description: z.string().optional(),
  items: z.array(ItemIn).optional(),
  runs: z
    .array(z.string())
    .optional()
    .describe('Completed runs: one item each, their input and their output as the reference'),
});

const AddItemsBody = NewDatasetBody.pick({ items: true, runs: true });

const DatasetSummaryBody = z
  .object({
    name: z.string(),
    description: z.string(),
    items: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: 'DatasetSummary', description: 'A dataset and how many items it has.' });

const DatasetBody = z
  .object({
    name: z.string(),
    description: z.string(),
    created_at: z.string(),
    items: z.array(
      z.object({
        id: z.string(),
        input: z.unknown(),
        reference: z.unknown(),
        run_id: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'Dataset', description: 'A dataset with its items, in order.' });

const ExperimentBody = z.object({
  dataset: z.string(),
  agent: z.string().optional(),
  workflow: z.string().optional(),
  name: z.string().optional(),
  variant: z
    .object({
      model: z.string().optional(),
      instructions: z.string().optional(),
      model_settings: z.record(z.string(), z.unknown()).optional(),
    })
    .passthrough()
    .optional()
    .describe("An agent's model, instructions, model settings; for a workflow, a label"),
  scorers: z.array(z.string()).optional().describe("The deck's scorers' names; default: all"),
  concurrency: z.number().int().optional().describe('Items played at once (1-32); default 4'),
});

const SummaryFields = {
  id: z.string(),
  name: z.string(),
  dataset: z.string(),
  target: z.object({ type: z.enum(['agent', 'workflow']), name: z.string() }),
  variant: z.record(z.string(), z.unknown()).nullable(),
  scorers: z.array(z.string()),
  status: z.enum(['running', 'completed', 'failed']),
  error: z.string().nullable(),
  created_at: z.string(),
  items: z.number().int(),
  done: z.number().int(),
  scores: z.record(
    z.string(),
    z.object({ mean: z.number().nullable(), passed: z.number().int(), failed: z.number().int() }),
  ),
  usd: z.number().nullable(),
  latency_ms_p50: z.number().nullable(),
};

const ExperimentSummaryBody = z
  .object(SummaryFields)
  .meta({ id: 'ExperimentSummary', description: 'An experiment: what it plays, and its scores.' });

const ExperimentViewBody = z
  .object({
    ...SummaryFields,
    results: z.array(
      z.object({
        item_id: z.string(),
        input: z.unknown(),
        reference: z.unknown(),
        run_id: z.string().nullable(),
        status: z.string(),
        output: z.unknown(),
        scores: z.record(
          z.string(),
          z.object({
            value: z.number().nullable(),
            passed: z.boolean().nullable(),
            comment: z.string().nullable(),
          }),
        ),
        usd: z.number().nullable(),
        latency_ms: z.number().nullable(),
      }),
    ),
  })
  .meta({
    id: 'Experiment',
    description: 'An experiment with each item’s result, in dataset order.',
  });

const ScorerList = z
  .object({
    scorers: z.array(
      z.object({
        name: z.string(),
        description: z.string(),
        kind: z.enum(['code', 'judge']),
        threshold: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: 'ScorerList', description: "The deck's scorers." });

const notFound = { description: 'No dataset (or experiment) by that name.', schema: Detail };
const invalid = { description: 'A field is missing or malformed (named).', schema: Detail };

export function evalsRoutes(_deps: HttpDeps, grants: DeckGrants) {
  const evals = (): ServedEvals => {
    const found = grants.evals?.();
    if (!found) throw new HttpError(503, 'the deck is not started; evals need an open deck');
    return found;
  };
  const tenant = () => {
    const namespace = requestTenant();
    return namespace === undefined ? {} : { namespace };
  };
  return [
    route({
      method: 'get',
      path: '/evals/datasets',
      role: 'read',
      summary: 'The datasets, by name',
      tag: 'evals',
      responses: {
        200: {
          description: 'Every dataset of the caller.',
          schema: z.object({ datasets: z.array(DatasetSummaryBody) }),
        },
      },
      async handle() {
        const datasets = await evals().listDatasets(tenant());
        return Response.json({ datasets: datasets.map(datasetSummary) });
      },
    }),
    route<z.infer<typeof NewDatasetBody>>({
      method: 'post',
      path: '/evals/datasets',
      role: 'run',
      summary: 'Create a dataset from items and recorded runs',
      tag: 'evals',
      body: { schema: NewDatasetBody, description: 'Its name, and its first items.' },
      responses: {
        201: { description: 'Created.', schema: DatasetSummaryBody },
        404: { description: 'A run in `runs` is unknown.', schema: Detail },
        409: { description: 'The name is taken.', schema: Detail },
        422: invalid,
      },
      async handle({ body }) {
        const made = await evals().createDataset(definedOnly(body), tenant());
        if (!made) throw new HttpError(500, 'the dataset was not stored');
        return Response.json(datasetSummary(made), { status: 201 });
      },
    }),
    route({
      method: 'get',
      path: '/evals/datasets/{name}',
      role: 'read',
      summary: 'A dataset and its items',
      tag: 'evals',
      responses: { 200: { description: 'The dataset.', schema: DatasetBody }, 404: notFound },
      async handle({ params }) {
        const dataset = await evals().getDataset(params.name ?? '', tenant());
        return Response.json({
          name: dataset.name,
          description: dataset.description,
          created_at: dataset.createdAt,
          items: dataset.items.map(itemView),
        });
      },
    }),
    route<z.infer<typeof AddItemsBody>>({
      method: 'post',
      path: '/evals/datasets/{name}/items',
      role: 'run',
      summary: 'Add items and recorded runs to a dataset',
      tag: 'evals',
      body: {
        schema: AddItemsBody,
        description: 'Items, runs, or both; added after the last item.',
      },
      responses: {
        200: {
          description: 'How many were added, and the count now.',
          schema: z.object({ added: z.number().int(), items: z.number().int() }),
        },
        404: notFound,
        422: invalid,
      },
      async handle({ params, body }) {
        return Response.json(await evals().addItems(params.name ?? '', body, tenant()));
      },
    }),
    route({
      method: 'delete',
      path: '/evals/datasets/{name}',
      role: 'run',
      summary: 'Delete a dataset and its items (experiments over it stay)',
      tag: 'evals',
      responses: { 204: { description: 'Deleted.' }, 404: notFound },
      async handle({ params }) {
        await evals().deleteDataset(params.name ?? '', tenant());
        return new Response(null, { status: 204 });
      },
    }),
    route<z.infer<typeof ExperimentBody>>({
      method: 'post',
      path: '/evals/experiments',
      role: 'run',
      summary: 'Start an experiment: an agent or workflow over a dataset, scored',
      description:
        'Answers 202 once checked; each item plays as an ordinary recorded run ' +
        '(`run.started.experiment`), and each score is a `score.recorded` event on it. ' +
        'Follow it with `GET /evals/experiments/{id}`.',
      tag: 'evals',
      body: {
        schema: ExperimentBody,
        description: 'The dataset, the target, the variant, the scorers.',
      },
      responses: {
        202: {
          description: 'Started.',
          schema: z.object({ id: z.string(), name: z.string(), status: z.literal('running') }),
          headers: ['Location'],
        },
        404: notFound,
        422: invalid,
      },
      async handle({ body }) {
        const { variant, ...rest } = body;
        const started = await evals().startExperiment(
          {
            ...definedOnly(rest),
            ...(variant ? { variant: variantIn(variant, body.agent !== undefined) } : {}),
          },
          tenant(),
        );
        const { id, name, status } = started;
        return Response.json(
          { id, name, status },
          { status: 202, headers: { location: `/evals/experiments/${encodeURIComponent(id)}` } },
        );
      },
    }),
    route<undefined, { dataset?: string | undefined }>({
      method: 'get',
      path: '/evals/experiments',
      role: 'read',
      summary: 'The experiments, newest first',
      tag: 'evals',
      query: z.object({ dataset: z.string().optional().describe('Only those over this dataset') }),
      responses: {
        200: {
          description: 'Every experiment of the caller (over `dataset`).',
          schema: z.object({ experiments: z.array(ExperimentSummaryBody) }),
        },
      },
      async handle({ query }) {
        const filter = { ...tenant(), ...(query.dataset ? { dataset: query.dataset } : {}) };
        const experiments = await evals().listExperiments(filter);
        return Response.json({ experiments: experiments.map(summaryView) });
      },
    }),
    route({
      method: 'get',
      path: '/evals/experiments/{id}',
      role: 'read',
      summary: 'An experiment, with each item’s result',
      tag: 'evals',
      responses: {
        200: { description: 'The experiment.', schema: ExperimentViewBody },
        404: notFound,
      },
      async handle({ params }) {
        const view = await evals().getExperiment(params.id ?? '', tenant());
        return Response.json({ ...summaryView(view), results: view.results.map(resultView) });
      },
    }),
    route({
      method: 'get',
      path: '/evals/scorers',
      role: 'read',
      summary: "The deck's scorers",
      tag: 'evals',
      responses: { 200: { description: 'Every scorer, by name.', schema: ScorerList } },
      async handle() {
        const scorers = [...evals().scorers.values()]
          .map(({ name, description, kind, threshold }) => ({ name, description, kind, threshold }))
          .sort((a, b) => (a.name < b.name ? -1 : 1));
        return Response.json({ scorers });
      },
    }),
  ];
}

/** A wire variant as the deck takes it: an agent's `model_settings` is `modelSettings`. */
function variantIn(variant: Record<string, unknown>, agent: boolean): Record<string, unknown> {
  if (!agent) return variant;
  const { model_settings, ...rest } = variant;
  return model_settings === undefined ? rest : { ...rest, modelSettings: model_settings };
}

function variantOut(variant: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!variant || !('modelSettings' in variant)) return variant;
  const { modelSettings, ...rest } = variant;
  return { ...rest, model_settings: modelSettings };
}

/** `value` without its undefined fields (an optional field is absent, never undefined). */
function definedOnly<T extends object>(value: T): { [K in keyof T]: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as never;
}

function datasetSummary(d: DatasetSummary) {
  return { name: d.name, description: d.description, items: d.items, created_at: d.createdAt };
}

function itemView(item: DatasetItem) {
  return { id: item.id, input: item.input, reference: item.reference, run_id: item.runId };
}

function summaryView(e: ExperimentSummary) {
  return {
    id: e.id,
    name: e.name,
    dataset: e.dataset,
    target: e.target,
    variant: e.target.type === 'agent' ? variantOut(e.variant) : e.variant,
    scorers: e.scorers,
    status: e.status,
    error: e.error,
    created_at: e.createdAt,
    items: e.items,
    done: e.done,
    scores: e.scores,
    usd: e.usd,
    latency_ms_p50: e.latencyMsP50,
  };
}

function resultView(r: ExperimentResult) {
  return {
    item_id: r.itemId,
    input: r.input,
    reference: r.reference,
    run_id: r.runId,
    status: r.status,
    output: r.output,
    scores: r.scores,
    usd: r.usd,
    latency_ms: r.latencyMs,
  };
}
