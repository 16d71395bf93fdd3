/**
 * The AI SDK surface's routes, mounted by the HTTP app beside the 1.2.1 ones (additive: no
 * 1.2.1 route changes): the agents' and the workflows' `ui-chat`.
 */
import type { HttpDeps } from '../http/deps.js';
import { uiChatRoutes } from './ui-chat.js';
import { uiWorkflowRoutes } from './ui-workflow.js';

export function aiSdkRoutes(deps: HttpDeps) {
  return [...uiChatRoutes(deps), ...uiWorkflowRoutes(deps)];
}
