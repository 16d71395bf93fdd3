/**
 * Which loop plays a turn, and how its model answers. Decided once per turn segment, in
 * {@link chooseTurnLoop}: a resumed turn chooses again, and is not live
 * (`Runtime.resumeAgent`), so a turn paused on one loop may go on on the other (both take
 * either kind of continuation, `safe-points.ts`).
 *
 * | When                                           | Loop           | The model                    |
 * | ---------------------------------------------- | -------------- | ---------------------------- |
 * | live (`deck.stream`, SSE chat; the default)    | `StreamedLoop` | streams (`model-stream/`)    |
 * | not live, all tools the deck's own, no MCP     | `PlainLoop`    | whole replies                |
 * | not live otherwise (a tool built for the       | `StreamedLoop` | whole replies, replayed as   |
 * | engine directly, an MCP server)                |                | stream events (`replay`)     |
 *
 * "Not live" is `deck.run` and the JSON chat route (`TurnRequest.live === false`); "the
 * deck's own" is `Compiled.ownToolsOnly` (`../compiled-agent.ts`); `replay` is in
 * `whole-replies.ts`. A live turn records a `text.delta` per streamed piece, a turn with
 * whole replies one per text part; otherwise the three record the same events and write the
 * same conversation, which these tests hold:
 * - `src/deck/plain-loop.test.ts`, "records what the streamed loop records for the same
 *   turn": rows 2 and 3 (same events, same conversation), and a pause on the plain loop
 *   resumed without running a tool twice;
 * - `loop-choice.test.ts`: the choice, and rows 1, 2 and 3 on one turn with a tool (same
 *   events once a live turn's deltas of one message are joined);
 * - pauses at each safe point on the streamed loop: `src/deck/run-control-agents.test.ts`,
 *   `src/deck/pause-anywhere.test.ts`.
 */
import type { Compiled } from '../compiled-agent.js';
import { PlainLoop } from './plain-loop.js';
import { StreamedLoop } from './streamed-loop.js';
import type { TurnLoop } from './turn-loop.js';

const STREAMED = new StreamedLoop(false);
const PLAIN = new PlainLoop();
const STREAMED_WHOLE_REPLIES = new StreamedLoop(true);

/**
 * The loop of a turn of `compiled` (its MCP servers for this turn already set), read live or
 * not. The loops keep no state between turns, so each is one shared object.
 */
export function chooseTurnLoop(live: boolean, compiled: Compiled): TurnLoop {
  if (live) return STREAMED;
  if (compiled.ownToolsOnly && compiled.agent.mcpServers.length === 0) return PLAIN;
  return STREAMED_WHOLE_REPLIES;
}
