/**
 * An agent that asks another service's agent over A2A: the payments service's `payer`, whose
 * card is at PAYER_A2A_CARD (and whose API key, if it has keys, is PAYER_A2A_KEY). See
 * docs/a2a.md, "Calling another service's agent".
 */
import { Agent } from 'agentdeck';
import { remoteAgentTool } from '../../../remote-agent.js';

const askPayer = remoteAgentTool({
  name: 'ask_payer',
  description: "Ask the payments service's payer agent to pay an invoice, or about payments",
  cardUrl:
    process.env.PAYER_A2A_CARD ?? 'http://127.0.0.1:8001/a2a/payer/.well-known/agent-card.json',
  ...(process.env.PAYER_A2A_KEY ? { apiKey: process.env.PAYER_A2A_KEY } : {}),
});

export default new Agent({
  name: 'accountant',
  instructions:
    'You keep the books. To pay an invoice, ask the payer agent with ask_payer and report its answer.',
  tools: [askPayer],
});
