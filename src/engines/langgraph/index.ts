export { LangGraphEngine } from './engine.js';
export { resumeWorkflowHeadless, runWorkflowHeadless } from './headless.js';
export { type InterruptOptions, interrupt, sleepUntil, withContext } from './nodes.js';
