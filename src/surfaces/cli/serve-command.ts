/**
 * `service-serve [project]`: serve a project directory over HTTP. Discovers the catalog
 * (`Deck.fromProject`, default `./.agentdeck`), opens the deck, listens on `HOST`:`PORT`
 * (default 0.0.0.0:8000), says what it serves and where it keeps it (`startup-lines.ts`), and
 * on SIGTERM/SIGINT lets in-flight requests end and closes the deck. Settings come from the
 * environment (docs/configuration.md). It records the project it serves in the state, for the
 * other commands run beside it (served-state.ts).
 */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors.js';
import { Deck } from '../../deck/deck.js';
import {
  engineSettingsFromEnv,
  modelConfigured,
  NO_MODEL_CONFIGURED,
} from '../../engines/openai-agents/settings.js';
import { runtimeSettingsFromEnv } from '../../runtime/settings.js';
import { parseEventStoreUrl } from '../../stores/events-url.js';
import { holdServingLock } from '../../stores/sqlite/serving-lock.js';
import { appSettingsFromEnv, checkOrigins, serveSettingsFromEnv } from '../http/options.js';
import { serve } from '../http/serve.js';
import { recordServedProject } from './served-state.js';
import { startupLines, storageFromEnv } from './startup-lines.js';

const USAGE = `Usage: service-serve [project] [--host HOST] [--port PORT] [--cors-origin ORIGIN]...
       (also: agentdeck serve [project] ...)

Serve an agentdeck project over HTTP (the 1.2.1 routes, /runs, /openapi.json) and the
run inspector, a web page at /ui (SERVICE_UI=off|read-only|on, default on).

  project        the project directory: agents/<name>/agent.ts, workflows/<name>/workflow.ts,
                 skills/<name>/SKILL.md, and ../.mcp.json (default: ./.agentdeck)
  --host HOST    the address to bind (default: $HOST, else 0.0.0.0)
  --port PORT    the port (default: $PORT, else 8000; 0 picks a free one)
  --manual-timers
                 do not wake sleeping workflow threads at their time; leave them to
                 POST /timers/tick or \`agentdeck tick\` (an external scheduler)
  --cors-origin ORIGIN
                 a browser app's origin allowed to call the service (repeatable;
                 default: $SERVICE_CORS_ORIGINS, comma-separated, else none)
  -h, --help     show this help
  -v, --version  print the version

Environment: SERVICE_EVENTS, SERVICE_CHECKPOINT, SERVICE_SESSION, SERVICE_API_KEYS,
SERVICE_MAX_BODY_BYTES, SERVICE_UI, OPENAI_API_KEY / OPENAI_BASE_URL, ... (see
docs/configuration.md).

Several processes (behind a load balancer) serve as one when they share one Postgres and
one Redis: SERVICE_EVENTS=postgres://... (events, claims, control requests and, unless
SERVICE_CHECKPOINT says otherwise, workflow checkpoints) and SERVICE_SESSION=redis://...
(conversations). Any process answers, resumes or follows any run; see docs/deployment.md.`;

export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseOptions>;
  try {
    parsed = parseOptions(argv);
  } catch (error) {
    console.error(`service-serve: ${errorMessage(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const project = parsed.positionals[0] ?? '.agentdeck';
  try {
    const deck = await Deck.fromProject(project);
    const port = parsed.values.port === undefined ? undefined : Number(parsed.values.port);
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
      throw new Error(`--port must be a port number (0-65535), got '${parsed.values.port}'`);
    }
    const corsOrigins = parsed.values['cors-origin'];
    const location = parseEventStoreUrl(process.env.SERVICE_EVENTS);
    // Held while it serves, so that `agentdeck runs vacuum` refuses to rewrite the file under it.
    const serving = location.backend === 'sqlite' ? holdServingLock(location.path) : null;
    const server = await serve(deck, {
      ...(parsed.values.host !== undefined ? { host: parsed.values.host } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(corsOrigins ? { app: { corsOrigins: checkOrigins(corsOrigins, '--cors-origin') } } : {}),
      wakeTimers: !parsed.values['manual-timers'],
    });
    await recordServedProject(project, location).catch((error: unknown) =>
      console.error(
        `service-serve: the project served could not be recorded in the state (${errorMessage(error)}); the other agentdeck commands will need --project`,
      ),
    );
    const lines = startupLines({
      deck: {
        name: deck.name,
        agents: deck.agents.keys(),
        workflows: deck.workflows.keys(),
        skills: deck.skills.keys(),
      },
      url: server.url,
      host: parsed.values.host ?? serveSettingsFromEnv().host,
      // Tokens guard the routes as keys do: no warning that they are open.
      apiKeys: appSettingsFromEnv().apiKeys.length + (appSettingsFromEnv().tokens.issuer ? 1 : 0),
      openControl: appSettingsFromEnv().openControl,
      allowedHosts: appSettingsFromEnv().allowedHosts,
      ui: appSettingsFromEnv().ui,
      storage: storageFromEnv(),
      retentionDays: runtimeSettingsFromEnv().retentionDays,
      modelMissing:
        deck.agents.size > 0 && !modelConfigured(engineSettingsFromEnv())
          ? NO_MODEL_CONFIGURED
          : null,
    });
    for (const line of lines) console.log(line);
    await server.closed;
    serving?.release();
    return 0;
  } catch (error) {
    console.error(`service-serve: ${errorMessage(error)}`);
    return 1;
  }
}

function parseOptions(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      'cors-origin': { type: 'string', multiple: true },
      'manual-timers': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
}
