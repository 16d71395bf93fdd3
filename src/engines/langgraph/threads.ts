/**
 * Thread ids as the checkpointer stores them. Workflows of one deck share the durable
 * checkpointer, so the thread a caller calls `t1` is stored under its workflow's name
 * (`approval:t1`): two workflows never read each other's checkpoints. The workflow name is
 * URI-encoded, so the first `:` always ends it whatever either name contains.
 */

export function storedThreadId(workflow: string, threadId: string): string {
  return `${threadIdPrefix(workflow)}${threadId}`;
}

/** The prefix every stored thread id of `workflow` starts with. */
export function threadIdPrefix(workflow: string): string {
  return `${encodeURIComponent(workflow)}:`;
}

/** The workflow and the caller's thread id of a stored thread id, or `null` for a foreign one. */
export function parseStoredThreadId(stored: string): { workflow: string; threadId: string } | null {
  const colon = stored.indexOf(':');
  if (colon <= 0) return null;
  try {
    return {
      workflow: decodeURIComponent(stored.slice(0, colon)),
      threadId: stored.slice(colon + 1),
    };
  } catch {
    return null;
  }
}
