/** The invocation check of a declaring site, on the engine's side of a turn. */

import type { ContextRequirement } from '../../../authoring/context.js';
import { checkContextValue } from '../../../core/context-verdicts.js';
import { asRunScope } from '../../../runtime/run-scope.js';

/** Check the value a declaring site is about to receive (no scope: a headless run, which passes none). */
export function checkScope(requirement: ContextRequirement, engineContext: unknown, where: string) {
  const scope = asRunScope(engineContext);
  if (scope) checkContextValue(requirement, scope.data, where);
}
