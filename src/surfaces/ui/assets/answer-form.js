/**
 * Answers with a shape (#41): a form built from the JSON Schema a question recorded for its
 * answer (`answer_schema`): one input per property (text, number, a select for an enum or a
 * boolean, JSON text for a nested object or a list), required ones marked and checked before
 * anything is sent. Without a schema, an empty JSON editor: never a copy of the question, and
 * nothing is sent while it is empty. The server judges the answer again; its refusal (a 422
 * naming the field) is shown beside the form. The inbox and the playground share it.
 */
import { api } from './api.js';
import { html, useState } from './vendor/preact-htm.mjs';

/** The inputs a schema asks for: one per property of an object, else one for the whole value. */
export function fieldsOf(schema) {
  if (schema?.type === 'object' && schema.properties) {
    const required = new Set(schema.required ?? []);
    return Object.entries(schema.properties).map(([name, property]) => ({
      name,
      kind: kindOf(property),
      options: property?.enum ?? null,
      required: required.has(name),
      description: property?.description ?? null,
    }));
  }
  return [
    {
      name: '',
      kind: kindOf(schema),
      options: schema?.enum ?? null,
      required: true,
      description: null,
    },
  ];
}

function kindOf(property) {
  if (Array.isArray(property?.enum)) return 'enum';
  const type = Array.isArray(property?.type) ? property.type[0] : property?.type;
  return ['string', 'number', 'integer', 'boolean'].includes(type) ? type : 'json';
}

/**
 * The answer the drafts make (`{ value }`), or what keeps them from making one
 * (`{ problems: [{ field, message }] }`): a required field left empty, a number or JSON that
 * does not parse. An optional field left empty is left out.
 */
export function answerOf(fields, drafts) {
  const problems = [];
  const value = {};
  for (const field of fields) {
    const text = drafts[field.name] ?? '';
    if (text.trim() === '') {
      if (field.required) problems.push({ field: field.name, message: 'required' });
      continue;
    }
    const parsed = parseField(field, text);
    if ('problem' in parsed) problems.push({ field: field.name, message: parsed.problem });
    else value[field.name] = parsed.value;
  }
  if (problems.length > 0) return { problems };
  const whole = fields.length === 1 && fields[0].name === '';
  return { value: whole ? value[''] : value };
}

function parseField(field, text) {
  switch (field.kind) {
    case 'string':
      return { value: text };
    case 'number':
    case 'integer': {
      const number = Number(text);
      return Number.isFinite(number) ? { value: number } : { problem: 'not a number' };
    }
    case 'boolean':
      return { value: text === 'true' };
    case 'enum': {
      // A select's value is the option's JSON: enums may list numbers or strings.
      return { value: JSON.parse(text) };
    }
    default:
      try {
        return { value: JSON.parse(text) };
      } catch (e) {
        return { problem: `not JSON: ${e.message}` };
      }
  }
}

/** The inputs of `fields`, their drafts kept by the caller (`drafts`, `setDraft(name, text)`). */
export function SchemaFields({ fields, drafts, setDraft, idPrefix, problems = [] }) {
  return fields.map((field) => {
    const id = `${idPrefix}-${field.name || 'value'}`;
    const problem = problems.find((p) => p.field === field.name);
    const label = field.name || 'Answer';
    const common = {
      id,
      name: field.name || 'value',
      value: drafts[field.name] ?? '',
      'aria-invalid': problem ? 'true' : 'false',
      'aria-required': field.required ? 'true' : 'false',
    };
    const onInput = (e) => setDraft(field.name, e.currentTarget.value);
    return html`
      <div class="schema-field" key=${id} data-field=${field.name}>
        <label for=${id}>${label}${field.required ? html` <span class="required" title="required">*</span>` : null}
          ${field.kind === 'json' ? html` <span class="muted">(JSON)</span>` : null}</label>
        ${input(field, common, onInput)}
        ${field.description ? html`<p class="muted">${field.description}</p>` : null}
        ${problem ? html`<p class="error">${label}: ${problem.message}</p>` : null}
      </div>`;
  });
}

function input(field, common, onInput) {
  if (field.kind === 'enum' || field.kind === 'boolean') {
    const options = field.kind === 'boolean' ? [true, false] : field.options;
    const value = (option) => (field.kind === 'boolean' ? String(option) : JSON.stringify(option));
    return html`<select ...${common} onChange=${onInput}>
      <option value="">choose…</option>
      ${options.map((option) => html`<option value=${value(option)}>${String(option)}</option>`)}
    </select>`;
  }
  if (field.kind === 'json') {
    return html`<textarea ...${common} class="mono" rows="3" spellcheck="false" onInput=${onInput}></textarea>`;
  }
  const numeric = field.kind === 'number' || field.kind === 'integer';
  return html`<input ...${common} inputmode=${numeric ? 'decimal' : undefined} autocomplete="off" onInput=${onInput} />`;
}

/**
 * The answer to a workflow's question, sent as `POST /runs/{runId}/answer`: a form from
 * `schema`, or an empty JSON editor without one. `onAnswered(outcome, value)` gets the route's
 * outcome; a refusal stays beside the form.
 */
export function QuestionAnswer({ runId, schema, onAnswered, idPrefix, label = 'Answer' }) {
  const shaped = Boolean(schema && typeof schema === 'object');
  const fields = shaped ? fieldsOf(schema) : [{ name: '', kind: 'json', required: true }];
  const [drafts, setDrafts] = useState({});
  const [shown, setShown] = useState([]); // the problems of the last attempt
  const [sending, setSending] = useState(false);
  const [refused, setRefused] = useState(null);
  const setDraft = (name, text) => {
    setDrafts((all) => ({ ...all, [name]: text }));
    setShown((all) => all.filter((p) => p.field !== name));
  };
  const made = answerOf(fields, drafts);
  const empty = !shaped && (drafts[''] ?? '').trim() === '';
  const submit = async (event) => {
    event.preventDefault();
    if (sending || empty) return;
    if (made.problems) {
      setShown(made.problems);
      return;
    }
    setSending(true);
    setRefused(null);
    try {
      const outcome = await api(`/runs/${encodeURIComponent(runId)}/answer`, {
        method: 'POST',
        body: { value: made.value },
      });
      onAnswered(outcome, made.value);
    } catch (e) {
      setRefused(`${e.status ?? ''} ${e.message}`.trim());
    } finally {
      setSending(false);
    }
  };
  const note = shaped
    ? 'Fields marked * are required; the answer is checked against the schema the question recorded.'
    : empty
      ? 'Type the answer as JSON (sent as {"value": <this>}).'
      : made.problems
        ? `Not JSON: ${made.problems[0].message.replace(/^not JSON: /, '')}`
        : 'Sent as {"value": <this>}.';
  return html`
    <form class="answer schema-answer" aria-label=${label} onSubmit=${submit} data-shaped=${shaped ? 'true' : 'false'}>
      ${
        shaped
          ? html`<${SchemaFields} fields=${fields} drafts=${drafts} setDraft=${setDraft} idPrefix=${idPrefix} problems=${shown} />`
          : html`
            <label for=${idPrefix}>Answer (JSON)</label>
            <textarea id=${idPrefix} class="mono" rows="4" spellcheck="false" placeholder='e.g. {"approved": true}'
              aria-invalid=${!empty && made.problems ? 'true' : 'false'} value=${drafts[''] ?? ''}
              onInput=${(e) => setDraft('', e.currentTarget.value)}></textarea>`
      }
      <p class=${!shaped && !empty && made.problems ? 'error' : 'muted'}>${note}</p>
      ${refused ? html`<p class="error" role="alert">Refused: ${refused}</p>` : null}
      <div class="buttons"><button type="submit" class="primary"
        disabled=${sending || empty || (!shaped && Boolean(made.problems))}>${sending ? 'Answering…' : 'Answer'}</button></div>
    </form>
  `;
}
