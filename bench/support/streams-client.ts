/**
 * The client side of bench/streams.bench.ts, a child process of its own: for a phase it opens
 * `streams` concurrent streamed chat requests to one URL (keep-alive connections from
 * 127.0.0.1, their starts spread evenly over `rampMs`), notes the moment each SSE delta frame
 * arrives, and checks that each stream ends with `event: done` after deltas that join to the
 * expected text. The connections are opened before the phase (a request each, all at once):
 * opened during it, a burst larger than the server's listen queue has SYNs retried seconds
 * later, and streams that start that late no longer overlap the first ones. It tells the
 * parent when every stream has had its first delta, with how many are live then (the moment
 * to read the server's memory), and counts the most streams live at once.
 */
import { Agent, request } from 'node:http';

export interface ClientPhase {
  type: 'phase';
  url: string;
  streams: number;
  rampMs: number;
  /** What every stream's deltas must join to. */
  text: string;
  /** A stream not done by then is a failure (and is cut). */
  timeoutMs: number;
}

export interface ClientResult {
  /** ms between consecutive delta frames, every stream's gaps in one list. */
  gapsMs: number[];
  /** ms from a stream's request to its first delta. */
  firstDeltaMs: number[];
  deltaFrames: number;
  completed: number;
  /** The most streams between their first delta and their end at one moment. */
  peakLive: number;
  failures: string[];
  seconds: number;
}

const agents = new Map<string, Agent>();
const agentFor = (url: string) => {
  const origin = new URL(url).origin;
  let agent = agents.get(origin);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
    agents.set(origin, agent);
  }
  return agent;
};

/**
 * One stream: resolves with its delta times, or rejects with why it is not whole. A request
 * on a kept-alive socket the server closed meanwhile (idle past its keep-alive timeout) is
 * sent again on a new one, as Node's docs advise: nothing was received, so nothing is lost.
 */
async function stream(phase: ClientPhase, index: number, onFirst: () => void): Promise<number[]> {
  try {
    return await attempt(phase, index, onFirst);
  } catch (error) {
    if (!(error instanceof StaleSocket)) throw error;
    return attempt(phase, index, onFirst);
  }
}

class StaleSocket extends Error {}

function attempt(phase: ClientPhase, index: number, onFirst: () => void): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ session_id: `s-${crypto.randomUUID()}`, message: `Go ${index}` });
    const times: number[] = [];
    let text = '';
    let pending = '';
    let done = false;
    const req = request(
      phase.url,
      {
        method: 'POST',
        agent: agentFor(phase.url),
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`status ${res.statusCode}`));
        }
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = performance.now();
          pending += chunk;
          let end = pending.indexOf('\n\n');
          while (end >= 0) {
            const frame = pending.slice(0, end);
            pending = pending.slice(end + 2);
            end = pending.indexOf('\n\n');
            if (frame.startsWith('event: done')) {
              done = true;
              continue;
            }
            if (!frame.startsWith('data: ')) continue;
            const data = JSON.parse(frame.slice(6)) as { delta?: string };
            if (typeof data.delta !== 'string') continue;
            if (times.length === 0) onFirst();
            times.push(at);
            text += data.delta;
          }
        });
        res.on('end', () => {
          if (!done) reject(new Error('no event: done'));
          else if (text !== phase.text) reject(new Error(`wrong text: ${text.slice(0, 60)}...`));
          else resolve(times);
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(phase.timeoutMs, () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && error.code === 'ECONNRESET' && times.length === 0;
      reject(stale ? new StaleSocket(error.message) : error);
    });
    req.end(body);
  });
}

/** Open `count` keep-alive connections to `url`'s server: one small request on each at once. */
async function openConnections(url: string, count: number): Promise<void> {
  const health = new URL('/health', url).href;
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((done) => {
          const req = request(health, { agent: agentFor(url) }, (res) => {
            res.resume();
            res.on('end', done);
          });
          req.on('error', () => done()); // the phase finds out what is wrong
          req.end();
        }),
    ),
  );
}

async function runPhase(phase: ClientPhase): Promise<ClientResult> {
  const result: ClientResult = {
    gapsMs: [],
    firstDeltaMs: [],
    deltaFrames: 0,
    completed: 0,
    peakLive: 0,
    failures: [],
    seconds: 0,
  };
  await openConnections(phase.url, phase.streams);
  let begun = 0;
  let live = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: phase.streams }, async (_, i) => {
      await new Promise((wait) => setTimeout(wait, (i * phase.rampMs) / phase.streams));
      const t0 = performance.now();
      let first = false;
      const onFirst = () => {
        first = true;
        result.peakLive = Math.max(result.peakLive, ++live);
        if (++begun === phase.streams) process.send?.({ type: 'allLive', live });
      };
      try {
        const times = await stream(phase, i, onFirst);
        result.firstDeltaMs.push((times[0] ?? t0) - t0);
        for (let k = 1; k < times.length; k++)
          result.gapsMs.push((times[k] as number) - (times[k - 1] as number));
        result.deltaFrames += times.length;
        result.completed++;
      } catch (error) {
        result.failures.push(String((error as Error).message));
      } finally {
        if (first) live--;
      }
    }),
  );
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

process.on('message', async (message: ClientPhase | { type: 'exit' }) => {
  if (message.type === 'exit') process.exit(0);
  const result = await runPhase(message);
  process.send?.({ type: 'result', result });
});
process.send?.({ type: 'ready' });
