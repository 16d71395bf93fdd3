import { describe, expect, it } from 'vitest';
import { type StartupFacts, startupLines, storageFromEnv } from './startup-lines.js';

const FILE = { backend: 'sqlite', path: '/srv/app/.agentdeck/state.db' } as const;

function facts(overrides: Partial<StartupFacts> = {}): StartupFacts {
  return {
    deck: { name: 'shop', agents: ['concierge'], workflows: [], skills: [] },
    url: 'http://127.0.0.1:8000',
    host: '127.0.0.1',
    apiKeys: 0,
    ui: 'on',
    storage: { events: FILE, checkpoints: FILE, sessions: FILE },
    retentionDays: null,
    modelMissing: null,
    ...overrides,
  };
}

const openLines = (overrides: Partial<StartupFacts>) =>
  startupLines(facts(overrides)).filter((line) => line.includes('open to anyone'));

describe('the start-up lines', () => {
  it('say what is served, where it is kept, the inspector and the retention', () => {
    expect(startupLines(facts())).toEqual([
      "agentdeck: serving 'shop' (1 agent: concierge, no workflows, no skills) on http://127.0.0.1:8000",
      'agentdeck: events, checkpoints and sessions are kept in /srv/app/.agentdeck/state.db',
      'agentdeck: run inspector at http://127.0.0.1:8000/ui',
      'agentdeck: every run is kept (set SERVICE_RETENTION_DAYS to remove the ones that ended long ago)',
    ]);
  });

  it('say each place once, with what it keeps, passwords hidden', () => {
    const postgres = { backend: 'postgres', url: 'postgres://app:s3cret@db/deck' } as const;
    const [, line] = startupLines(
      facts({
        storage: { events: postgres, checkpoints: postgres, sessions: { backend: 'memory' } },
      }),
    );
    expect(line).toBe(
      "agentdeck: events and checkpoints are kept in postgres://app:***@db/deck; sessions in this process's memory (lost when it stops): other processes on these events, their queue workers included, do not see them (set SERVICE_SESSION=redis://...)",
    );
  });

  it('say what is open on a non-loopback address without keys, and only then', () => {
    expect(openLines({ host: '0.0.0.0' })).toEqual([
      "agentdeck: no API keys are set: the 1.2.1 routes (chat, workflows, pause, cancel, resume) and the run history are open to anyone who can reach 0.0.0.0; answers, timers, schedules and the run inspector's controls are refused to other machines (SERVICE_OPEN_CONTROL=true opens them too). Any host name is answered: list the names clients use in SERVICE_ALLOWED_HOSTS, against DNS rebinding. Set SERVICE_API_KEYS to require a key, or bind to 127.0.0.1 (--host 127.0.0.1) for local use.",
    ]);
    expect(
      openLines({ host: '0.0.0.0', openControl: true, allowedHosts: ['deck.example.com'] }),
    ).toEqual([
      "agentdeck: every route is open to anyone who can reach 0.0.0.0, the run inspector's answer and cancel buttons included: no API keys are set, and SERVICE_OPEN_CONTROL=true. Set SERVICE_API_KEYS to require a key, or bind to 127.0.0.1 (--host 127.0.0.1) for local use.",
    ]);
    expect(openLines({ host: '10.0.0.7' })).toHaveLength(1);
    expect(openLines({ host: '0.0.0.0', apiKeys: 1 })).toEqual([]);
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      expect(openLines({ host })).toEqual([]);
    }
  });
});

describe('storageFromEnv', () => {
  it('reads the places as the deck opens them', () => {
    const cwd = process.cwd();
    const file = { backend: 'sqlite', path: `${cwd}/.agentdeck/state.db` };
    expect(storageFromEnv({})).toEqual({ events: file, checkpoints: file, sessions: file });
    expect(storageFromEnv({ SERVICE_EVENTS: 'memory://' })).toEqual({
      events: { backend: 'memory' },
      checkpoints: { backend: 'memory' },
      sessions: { backend: 'memory' },
    });
    expect(
      storageFromEnv({ SERVICE_SESSION: 'redis://cache:6379', SERVICE_CHECKPOINT: 'memory://' }),
    ).toEqual({
      events: file,
      checkpoints: { backend: 'memory' },
      sessions: { backend: 'redis', url: 'redis://cache:6379' },
    });
  });
});
