/**
 * What the evals pages work out from the API's answers, kept apart from the markup so it is
 * tested on its own (evals-compare.test.ts): two experiments' results paired item by item,
 * the summary with its deltas and which side did better (a higher score, a lower cost, a
 * lower latency), the body of a "Run experiment" form, and how an input or output reads.
 */

/**
 * The two experiments' results side by side, one row per dataset item: in `a`'s order (the
 * dataset's), then any item only `b` has (an item added to the dataset between the two
 * experiments). A side without the item is null.
 */
export function pairResults(a, b) {
  const rows = [];
  const byItem = new Map();
  for (const [side, experiment] of [
    ['a', a],
    ['b', b],
  ]) {
    for (const result of experiment?.results ?? []) {
      let row = byItem.get(result.item_id);
      if (!row) {
        row = {
          item_id: result.item_id,
          input: result.input,
          reference: result.reference,
          a: null,
          b: null,
        };
        byItem.set(result.item_id, row);
        rows.push(row);
      }
      row[side] = result;
    }
  }
  return rows;
}

/**
 * `{ a, b, delta, better }` for one measure: `delta` is b − a (null unless both are numbers),
 * `better` the side that did better (`'a'`, `'b'`, or null for a tie or a missing side).
 */
export function versus(a, b, { lowerIsBetter = false } = {}) {
  const both = typeof a === 'number' && typeof b === 'number';
  const delta = both ? b - a : null;
  let better = null;
  if (both && delta !== 0) better = delta > 0 !== lowerIsBetter ? 'b' : 'a';
  return { a: a ?? null, b: b ?? null, delta, better };
}

/** Every scorer either experiment used, in the order they name them. */
export function scorerNames(a, b) {
  return [...new Set([...(a?.scorers ?? []), ...(b?.scorers ?? [])])];
}

/**
 * The summary row: per scorer its mean and how many items passed on each side; the total
 * cost; the median latency; and how many items each side won on each scorer (a higher
 * value on the same item).
 */
export function summarize(a, b) {
  const rows = pairResults(a, b);
  const scorers = scorerNames(a, b).map((name) => {
    const wins = { a: 0, b: 0, ties: 0 };
    for (const row of rows) {
      const one = versus(row.a?.scores?.[name]?.value, row.b?.scores?.[name]?.value);
      if (one.delta === null) continue;
      if (one.better) wins[one.better] += 1;
      else wins.ties += 1;
    }
    return {
      name,
      mean: versus(a?.scores?.[name]?.mean, b?.scores?.[name]?.mean),
      passed: versus(a?.scores?.[name]?.passed, b?.scores?.[name]?.passed),
      failed: {
        a: a?.scores?.[name]?.failed ?? null,
        b: b?.scores?.[name]?.failed ?? null,
      },
      wins,
    };
  });
  return {
    scorers,
    usd: versus(a?.usd, b?.usd, { lowerIsBetter: true }),
    latency: versus(a?.latency_ms_p50, b?.latency_ms_p50, { lowerIsBetter: true }),
    done: { a: a?.done ?? 0, b: b?.done ?? 0, items: rows.length },
  };
}

/** One item's scores on both sides, per scorer: `versus` of the values, with pass/fail. */
export function itemScores(row, names) {
  return names.map((name) => {
    const a = row.a?.scores?.[name] ?? null;
    const b = row.b?.scores?.[name] ?? null;
    const { delta, better } = versus(a?.value, b?.value);
    return { name, a, b, delta, better };
  });
}

/**
 * Whether an item came out differently on the two sides: a scorer's value or pass/fail
 * differs, or one side has no result for it. What "only the items that differ" keeps.
 */
export function differs(row, names) {
  if (!row.a || !row.b) return true;
  return names.some((name) => {
    const a = row.a.scores?.[name];
    const b = row.b.scores?.[name];
    return (a?.value ?? null) !== (b?.value ?? null) || (a?.passed ?? null) !== (b?.passed ?? null);
  });
}

/**
 * The body of `POST /evals/experiments` from the form's fields, or `{ error: { field,
 * message } }` naming what to fix: a target is needed, the settings must be a JSON object and
 * the concurrency a whole number of runs.
 * Empty fields are left out (the agent's own model, instructions and settings apply).
 */
export function experimentBody(form) {
  const { dataset, targetType, target, name, model, instructions, settings, scorers, concurrency } =
    form;
  if (!target) {
    return { error: { field: 'target', message: `Choose the ${targetType} to run.` } };
  }
  const body = { dataset, [targetType]: target };
  if (name?.trim()) body.name = name.trim();
  const variant = {};
  if (model?.trim()) variant.model = model.trim();
  if (instructions?.trim()) variant.instructions = instructions;
  if (settings?.trim()) {
    let parsed;
    try {
      parsed = JSON.parse(settings);
    } catch (error) {
      return { error: { field: 'settings', message: `Settings are not JSON: ${error.message}` } };
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      return {
        error: {
          field: 'settings',
          message: 'Settings must be a JSON object, like {"temperature": 0}.',
        },
      };
    }
    variant.model_settings = parsed;
  }
  if (Object.keys(variant).length > 0) body.variant = variant;
  if (scorers?.length) body.scorers = [...scorers];
  if (concurrency !== undefined && String(concurrency).trim() !== '') {
    const n = Number(concurrency);
    if (!Number.isInteger(n) || n < 1) {
      return {
        error: {
          field: 'concurrency',
          message: 'Concurrency is a whole number of runs, 1 or more.',
        },
      };
    }
    body.concurrency = n;
  }
  return { body };
}

/**
 * An input, reference or output as text: a string as itself, content blocks that are all
 * text as their text, anything else (a workflow's state, structured output) as indented JSON.
 */
export function shown(value) {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((block) => block?.type === 'text' && typeof block.text === 'string')
  ) {
    return value.map((block) => block.text).join('\n');
  }
  return JSON.stringify(value, null, 2);
}

/** A score as it reads: `0.75`, `1`, or `–` when there is none. */
export function scoreText(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return '–';
  return String(Math.round(value * 1000) / 1000);
}

/** A delta with its sign (`+0.25`, `−0.1`, `±0`); `unit` formats its size. */
export function deltaText(delta, unit = scoreText) {
  if (typeof delta !== 'number') return '';
  if (delta === 0) return '±0';
  return `${delta > 0 ? '+' : '−'}${unit(Math.abs(delta))}`;
}

/** A variant as one line: `model gpt-x · instructions … · settings {…}`, or `as declared`. */
export function variantText(variant) {
  const parts = [];
  if (variant?.model) parts.push(`model ${variant.model}`);
  if (variant?.instructions) {
    const text = String(variant.instructions);
    parts.push(`instructions “${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`);
  }
  if (variant?.model_settings && Object.keys(variant.model_settings).length > 0) {
    parts.push(`settings ${JSON.stringify(variant.model_settings)}`);
  }
  return parts.length > 0 ? parts.join(' · ') : 'as declared';
}
