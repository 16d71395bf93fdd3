/**
 * The sample's page: a chat with one agentdeck agent through the AI SDK's `useChat`, over the
 * service's UI message stream (`POST /agents/<agent>/ui-chat`). It shows the answer's text,
 * each tool call with its input and output, and a call held for approval with Approve and
 * Reject buttons; an answer sends itself again once every held call is answered, and Stop
 * cancels the run behind the answer being written. The chat id (the agent's session id) is
 * kept in the address, so a reload keeps the conversation: the messages come back from
 * sessionStorage and `resume: true` picks up an answer still playing
 * (`GET /agents/<agent>/ui-chat/<id>/stream`). The address may name the service, the agent and
 * the chat: `?service=http://localhost:8000&agent=concierge&chat=<id>`.
 */
import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  type DynamicToolUIPart,
  getToolName,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type ToolUIPart,
  type UIMessage,
} from 'ai';
import { type FormEvent, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

const params = new URLSearchParams(location.search);
const service = params.get('service') ?? 'http://localhost:8000';
const agent = params.get('agent') ?? 'concierge';
const chatId = params.get('chat') ?? crypto.randomUUID();
if (!params.has('chat')) {
  // The id goes into the address before the first message, so a reload finds the same chat.
  params.set('chat', chatId);
  history.replaceState(null, '', `?${params}`);
}
const storageKey = `ai-sdk-chat:${agent}:${chatId}`;

/** The service names the run behind each assistant message in its metadata. */
type ChatMessage = UIMessage<{ run_id: string }>;

const stored = sessionStorage.getItem(storageKey);
const storedMessages: ChatMessage[] = stored === null ? [] : JSON.parse(stored);

/**
 * Stop the run behind an answer. `stop()` of `useChat` would only stop reading (the run plays
 * on, and a reload would show it again); cancelling the run ends its stream with `abort`.
 */
async function cancelRun(runId: string): Promise<void> {
  await fetch(`${service}/runs/${encodeURIComponent(runId)}/cancel`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'stopped in the chat' }),
  });
}

function Chat() {
  const { messages, sendMessage, addToolApprovalResponse, status, error } = useChat<ChatMessage>({
    id: chatId,
    messages: storedMessages,
    transport: new DefaultChatTransport({
      api: `${service}/agents/${encodeURIComponent(agent)}/ui-chat`,
    }),
    // Approve or Reject answers a held call in the page; this posts the answers back.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    resume: true,
  });
  const [draft, setDraft] = useState('');
  useEffect(() => sessionStorage.setItem(storageKey, JSON.stringify(messages)), [messages]);

  const busy = status === 'submitted' || status === 'streaming';
  const answering = messages.at(-1)?.role === 'assistant' ? messages.at(-1)?.metadata : undefined;
  const send = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === '' || busy) return;
    void sendMessage({ text: draft });
    setDraft('');
  };

  return (
    <main>
      <header>
        <h1>{agent}</h1>
        <a href={`?service=${encodeURIComponent(service)}&agent=${encodeURIComponent(agent)}`}>
          New chat
        </a>
      </header>
      <ol className="messages">
        {messages.map((message) => (
          <li key={message.id} className={`message ${message.role}`} data-role={message.role}>
            {message.parts.map((part, index) => {
              const key = `${message.id}-${index}`;
              if (part.type === 'text') return <p key={key}>{part.text}</p>;
              if (part.type === 'reasoning')
                return (
                  <p key={key} className="reasoning">
                    {part.text}
                  </p>
                );
              if (isToolUIPart(part))
                return <ToolCall key={key} part={part} answer={addToolApprovalResponse} />;
              return null; // step boundaries, data parts: nothing to show
            })}
          </li>
        ))}
      </ol>
      <p className="status" data-status={status}>
        {error ? `Error: ${error.message}` : busy ? 'answering…' : ''}
      </p>
      <form onSubmit={send}>
        <input
          name="message"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          placeholder={`Message ${agent}`}
          autoComplete="off"
        />
        <button type="submit" disabled={busy}>
          Send
        </button>
        {busy && answering && (
          <button type="button" onClick={() => void cancelRun(answering.run_id)}>
            Stop
          </button>
        )}
      </form>
    </main>
  );
}

function ToolCall({
  part,
  answer,
}: {
  part: ToolUIPart | DynamicToolUIPart;
  answer: (response: { id: string; approved: boolean }) => unknown;
}) {
  return (
    <div className="tool" data-tool={getToolName(part)} data-state={part.state}>
      <code className="name">{getToolName(part)}</code>
      <pre className="input">{JSON.stringify(part.input)}</pre>
      {part.state === 'approval-requested' && (
        <div className="approval">
          <button type="button" onClick={() => answer({ id: part.approval.id, approved: true })}>
            Approve
          </button>
          <button type="button" onClick={() => answer({ id: part.approval.id, approved: false })}>
            Reject
          </button>
        </div>
      )}
      {part.state === 'approval-responded' && (
        <p className="note">{part.approval.approved ? 'approved' : 'rejected'}</p>
      )}
      {part.state === 'output-available' && (
        <pre className="output">{JSON.stringify(part.output)}</pre>
      )}
      {part.state === 'output-error' && <p className="output error">{part.errorText}</p>}
      {part.state === 'output-denied' && <p className="output denied">rejected</p>}
    </div>
  );
}

const root = document.getElementById('root');
if (root) createRoot(root).render(<Chat />);
