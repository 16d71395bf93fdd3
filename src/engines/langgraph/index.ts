export { LangGraphEngine } from './engine.js';
export { resumeWorkflowHeadless, runWorkflowHeadless } from './headless.js';
export { interrupt, sleepUntil, withContext } from './nodes.js';
