/** The Redis backends. Sessions (conversation memory) for now. */

export { redactUrl } from '../shared/url.js';
export { RedisSessionBackend, type RedisSessionBackendOptions } from './sessions.js';
