/**
 * A JSON-schema check for what zod's `toJSONSchema` emits for a workflow's state: `type`
 * (one or a list; `integer` too), `properties`, `required`, `enum`, `const`, `items`,
 * `additionalProperties`, `anyOf`/`oneOf`, `minimum`/`maximum` and their exclusive forms,
 * `minLength`/`maxLength`, and `$ref` to the schema's own `$defs` (zod's named or recursive
 * schemas). Enough for the playground to show what is wrong with a state before sending it:
 * the server checks again with zod itself, so this errs on the side of accepting (an unknown
 * keyword, or a `$ref` elsewhere, is ignored).
 */

/** Problems of `value` against `schema`, as `{ path, message }` (empty when it passes). */
export function schemaErrors(schema, value) {
  const errors = [];
  check(schema, value, '', errors, schema);
  return errors;
}

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(expected, actual) {
  return expected === actual || (expected === 'number' && actual === 'integer');
}

/** `#/$defs/<name>` of `root`, or undefined (anything, for a reference it cannot follow). */
function resolve(ref, root) {
  const found = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  return found
    ? root?.[found[1]]?.[found[2].replaceAll('~1', '/').replaceAll('~0', '~')]
    : undefined;
}

function check(schema, value, path, errors, root) {
  if (typeof schema?.$ref === 'string') {
    check(resolve(schema.$ref, root), value, path, errors, root);
    const { $ref: _, ...rest } = schema;
    if (Object.keys(rest).length === 0) return;
    schema = rest; // keywords beside a reference apply too (JSON Schema 2019+)
  }
  if (schema === true || schema === undefined || schema === null) return;
  if (schema === false) {
    errors.push({ path, message: 'no value is allowed here' });
    return;
  }
  const at = (key) => (path === '' ? key : `${path}.${key}`);
  const actual = typeOf(value);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => matchesType(type, actual))) {
      errors.push({ path, message: `expected ${types.join(' or ')}, got ${actual}` });
      return; // the keywords below describe a value of the right type
    }
  }
  if (schema.enum && !schema.enum.some((option) => sameJson(option, value))) {
    errors.push({ path, message: `expected one of ${schema.enum.map(show).join(', ')}` });
  }
  if ('const' in schema && !sameJson(schema.const, value)) {
    errors.push({ path, message: `expected ${show(schema.const)}` });
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  const passes = (option) => {
    const found = [];
    check(option, value, path, found, root);
    return found.length === 0;
  };
  if (alternatives && !alternatives.some(passes)) {
    errors.push({ path, message: 'matches none of the allowed shapes' });
  }
  if (actual === 'number' || actual === 'integer') checkNumber(schema, value, path, errors);
  if (actual === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) {
      errors.push({ path, message: `shorter than ${schema.minLength} characters` });
    }
    if (schema.maxLength !== undefined && value.length > schema.maxLength) {
      errors.push({ path, message: `longer than ${schema.maxLength} characters` });
    }
  }
  if (actual === 'array' && schema.items && !Array.isArray(schema.items)) {
    value.forEach((item, index) => {
      check(schema.items, item, `${path}[${index}]`, errors, root);
    });
  }
  if (actual === 'object') {
    const properties = schema.properties ?? {};
    for (const name of schema.required ?? []) {
      if (!(name in value)) errors.push({ path: at(name), message: 'required' });
    }
    for (const [name, item] of Object.entries(value)) {
      if (name in properties) check(properties[name], item, at(name), errors, root);
      else if (schema.additionalProperties === false) {
        errors.push({ path: at(name), message: 'not a field of this state' });
      } else if (typeof schema.additionalProperties === 'object') {
        check(schema.additionalProperties, item, at(name), errors, root);
      }
    }
  }
}

function checkNumber(schema, value, path, errors) {
  if (schema.minimum !== undefined && value < schema.minimum) {
    errors.push({ path, message: `less than ${schema.minimum}` });
  }
  if (schema.maximum !== undefined && value > schema.maximum) {
    errors.push({ path, message: `more than ${schema.maximum}` });
  }
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) {
    errors.push({ path, message: `not more than ${schema.exclusiveMinimum}` });
  }
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) {
    errors.push({ path, message: `not less than ${schema.exclusiveMaximum}` });
  }
}

function sameJson(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function show(value) {
  return JSON.stringify(value);
}

/**
 * A state to start editing from: each required field of an object schema with its default,
 * its first enum option, or an empty value of its type.
 */
export function sampleOf(schema) {
  if (!schema || typeof schema !== 'object') return null;
  if ('default' in schema) return schema.default;
  if (schema.enum) return schema.enum[0];
  if ('const' in schema) return schema.const;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const sample = {};
      for (const name of schema.required ?? []) sample[name] = sampleOf(schema.properties?.[name]);
      return sample;
    }
    case 'array':
      return [];
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + 1
        : (schema.minimum ?? 0);
    case 'boolean':
      return false;
    default:
      return null;
  }
}
