/**
 * `agentdeck/server`: serving a deck over HTTP. `deck.app()` (on Deck) builds the Hono app;
 * `serve()` runs it with the deck's lifespan; the settings readers are what a command needs.
 */
import '../../node-check.js'; // first: an older Node.js stops with a clear message

export type { Identity, Role } from '../../core/identity.js';
/** `AppOptions.ui`: the run inspector at `/ui` (`SERVICE_UI`). */
export type { UiMode } from '../ui/ui-app.js';
export type { ApiKey } from './auth/api-keys.js';
export type { Authenticate } from './auth/gate.js';
export type { TokenOptions } from './auth/token-settings.js';
export type { DeckApp } from './build.js';
export { type CatalogNames, catalogNames } from './health.js';
export {
  type AppOptions,
  appSettingsFromEnv,
  DEFAULT_MAX_BODY_BYTES,
  type ServeOptions,
  serveSettingsFromEnv,
} from './options.js';
export { type RunningServer, serve } from './serve.js';
export { SSE_HEADERS } from './sse.js';
