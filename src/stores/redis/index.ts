/** The Redis backends. Sessions (conversation memory) for now. */
export { RedisSessionBackend, type RedisSessionBackendOptions } from './sessions.js';
export { redactUrl } from '../shared/url.js';
