/**
 * `build()`'s context check (SPEC.md "Context compatibility at build"): walk every
 * injection site of the catalog (each agent's tools, its instructions function and hook
 * methods; every node of every workflow), rule on each requirement against the declared
 * context class, and report every incompatible site at once in one ContextTypeError.
 * Deferred sites are left to the check each call makes on the value it receives.
 */
import type { Agent } from '../authoring/agent.js';
import { HOOK_METHODS } from '../authoring/agent-definition.js';
import { type ContextRequirement, declaredRequirement } from '../authoring/context.js';
import { isDeckTool } from '../authoring/tool.js';
import { Workflow } from '../authoring/workflow.js';
import { type ContextClass, className, describeRequirement } from '../core/context-requirements.js';
import { ruleOn, type Verdict } from '../core/context-verdicts.js';
import { ContextTypeError } from '../core/errors.js';
import type { NodeSite } from '../engines/langgraph/node-sites.js';

/** One place that receives the context, and what it requires (`'unreadable'`: deferred). */
export interface InjectionSite {
  /** The site as the error names it: "tool 'slots' of agent 'Booker'". */
  readonly where: string;
  readonly requirement: ContextRequirement | 'unreadable';
}

export interface SiteVerdict {
  readonly site: InjectionSite;
  readonly verdict: Verdict;
}

// biome-ignore lint/suspicious/noExplicitAny: the catalog's types are generic over any agent
type AnyAgent = Agent<any, any>;

/** The injection sites of one agent. */
export function agentSites(agent: AnyAgent): InjectionSite[] {
  const of = `of agent '${agent.name}'`;
  const sites: InjectionSite[] = [];
  for (const t of agent.tools) {
    if (t instanceof Workflow) continue; // its nodes are walked with its workflow
    if (isDeckTool(t)) {
      if (t.context !== undefined) {
        sites.push({ where: `tool '${t.name}' ${of}`, requirement: t.context });
      }
    } else {
      // An already-built engine tool: what it reads of the run context is its own affair.
      sites.push({ where: `built tool '${t.name}' ${of}`, requirement: 'unreadable' });
    }
  }
  const instructions = declaredRequirement(agent.instructions);
  if (instructions) sites.push({ where: `instructions ${of}`, requirement: instructions });
  for (const method of HOOK_METHODS) {
    const requirement = declaredRequirement(agent.hooks[method]);
    if (requirement) sites.push({ where: `hook method ${method} ${of}`, requirement });
  }
  return sites;
}

/** The injection sites of one workflow, from its compiled nodes. */
export function workflowSites(workflow: string, nodes: readonly NodeSite[]): InjectionSite[] {
  return nodes.map(({ node, requirement }) => ({
    where: `node '${node}' of workflow '${workflow}'`,
    requirement,
  }));
}

/** Rule on every site; a site whose requirement cannot be read is deferred. */
export function ruleOnSites(
  sites: readonly InjectionSite[],
  declared: ContextClass,
): SiteVerdict[] {
  return sites.map((site) => ({
    site,
    verdict:
      site.requirement === 'unreadable'
        ? { verdict: 'deferred', why: 'its signature cannot be read; checked at invocation' }
        : ruleOn(site.requirement, declared),
  }));
}

/** Throw one ContextTypeError listing every incompatible site, or return the verdicts. */
/** {@link checkContextSites} over every agent's and every workflow node's sites. */
export function checkCatalogContext(
  deckName: string,
  declared: ContextClass,
  agents: Iterable<AnyAgent>,
  workflows: Iterable<string>,
  nodeSites: (workflow: string) => readonly NodeSite[],
): void {
  const sites = [
    ...[...agents].flatMap(agentSites),
    ...[...workflows].flatMap((name) => workflowSites(name, nodeSites(name))),
  ];
  checkContextSites(deckName, declared, sites);
}

export function checkContextSites(
  deckName: string,
  declared: ContextClass,
  sites: readonly InjectionSite[],
): SiteVerdict[] {
  const verdicts = ruleOnSites(sites, declared);
  const problems = verdicts.flatMap(({ site, verdict }) =>
    verdict.verdict === 'incompatible' && site.requirement !== 'unreadable'
      ? [`- ${site.where} requires ${describeRequirement(site.requirement)}: ${verdict.why}`]
      : [],
  );
  if (problems.length > 0) {
    const provided = className(declared);
    const count = problems.length === 1 ? '1 site requires' : `${problems.length} sites require`;
    throw new ContextTypeError(
      `deck '${deckName}' provides a context of type ${provided}, but ${count} something else:\n` +
        `${problems.join('\n')}\n` +
        `Fix: declare a context class that satisfies every site (one that extends each required class ` +
        `and has each protocol's methods), or change a site's requirement to one ${provided} satisfies ` +
        `(${provided} itself, a class it extends, a protocol it implements, or Context.any).`,
    );
  }
  return verdicts;
}
