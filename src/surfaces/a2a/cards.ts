/**
 * A2A agent cards from the catalog: one per agent (its name and description, a skill per tool
 * and per skill it reads, streaming yes, push notifications no, its JSON-RPC endpoint, and the
 * Bearer scheme when the service has API keys), and the service's own card at
 * `/.well-known/agent-card.json`, whose skills are the agents (a skill's id is the agent's
 * name, the last segment of its endpoint `/a2a/{name}`). The service card lists no endpoint
 * of its own: a client talks to one agent, at the URL of that agent's card.
 */
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import type { CatalogDescription } from '../http/served-deck.js';

/** The A2A protocol version served (`@a2a-js/sdk` 1.x speaks v1.0). */
export const A2A_VERSION = '1.0';

/** The older version also served, through the SDK's compatibility layer (no `A2A-Version` header). */
export const A2A_LEGACY_VERSION = '0.3';

type CatalogAgent = CatalogDescription['agents'][number];

/** What a card says of the service around the agent. */
export interface CardSettings {
  /** The service's origin as the client reached it: `http://127.0.0.1:8000`. */
  origin: string;
  /** API keys are set: the card asks for a Bearer token. */
  secured: boolean;
}

/** The path of an agent's JSON-RPC endpoint. */
export function agentPath(name: string): string {
  return `/a2a/${encodeURIComponent(name)}`;
}

export function agentCard(
  agent: CatalogAgent,
  skills: CatalogDescription['skills'],
  settings: CardSettings,
): AgentCard {
  const toolSkills = agent.tools.map(
    (tool): AgentSkill =>
      skill(tool.name, tool.name, tool.description || `The tool '${tool.name}'.`, [
        'tool',
        ...(tool.needs_approval === false ? [] : ['needs-approval']),
      ]),
  );
  const readSkills = agent.skills.map((name) => {
    const described = skills.find((s) => s.name === name)?.description;
    return skill(`skill:${name}`, name, described || `The skill '${name}'.`, ['skill']);
  });
  const all = [...toolSkills, ...readSkills];
  return {
    ...baseCard(agent.name, agent.description, settings),
    // One endpoint, both versions: the request's A2A-Version header says which it speaks.
    supportedInterfaces: [A2A_VERSION, A2A_LEGACY_VERSION].map((protocolVersion) => ({
      url: `${settings.origin}${agentPath(agent.name)}`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    // An agent with no tools or skills still does something: its conversation.
    skills: all.length > 0 ? all : [skill(agent.name, agent.name, agent.description, ['chat'])],
  };
}

/** The service's card: a skill per agent, each with the URL of its own card. */
export function serviceCard(
  name: string,
  catalog: CatalogDescription,
  settings: CardSettings,
): AgentCard {
  const names = catalog.agents.map((a) => `'${a.name}'`).join(', ');
  return {
    ...baseCard(
      name,
      `The agentdeck service '${name}'. Its agents (${names || 'none'}) each have a card at ` +
        '/a2a/{name}/.well-known/agent-card.json and an A2A endpoint at /a2a/{name}.',
      settings,
    ),
    supportedInterfaces: [],
    skills: catalog.agents.map((agent) =>
      skill(
        agent.name,
        agent.name,
        `${agent.description} Its card: ${settings.origin}${agentPath(agent.name)}/.well-known/agent-card.json`,
        ['agent'],
      ),
    ),
  };
}

function baseCard(name: string, description: string, settings: CardSettings) {
  return {
    name,
    description,
    provider: undefined,
    // Agents have no versions of their own: the card's version is the protocol's.
    version: A2A_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: settings.secured
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme' as const,
              value: {
                description: "One of the service's API keys (SERVICE_API_KEYS).",
                scheme: 'Bearer',
                bearerFormat: '',
              },
            },
          },
        }
      : {},
    securityRequirements: settings.secured ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    signatures: [],
  };
}

function skill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return {
    id,
    name,
    description,
    tags,
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}
