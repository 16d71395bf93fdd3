/**
 * Skills from real files on disk: the checks `build()` makes on every SKILL.md (errors name
 * the file, all at once), and an agent reading its skills through the generated
 * `load_skill` tool in a recorded turn.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTestDeck, testDeck } from '../../test/support/decks.js';
import { Agent, ConfigError, Skills } from '../index.js';
import { ScriptedModel } from '../testing/index.js';

function root(skills: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-skills-'));
  for (const [folder, text] of Object.entries(skills)) {
    mkdirSync(join(dir, folder), { recursive: true });
    if (text !== '') writeFileSync(join(dir, folder, 'SKILL.md'), text);
  }
  return dir;
}

const skillMd = (name: string, description: string, body = `How to ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

describe('skill roots', () => {
  it('reads each <root>/<name>/SKILL.md, skipping folders that start with . or _', () => {
    const dir = root({
      pdf: skillMd('pdf', 'Fill and read PDF forms', '# PDF\n\nUse the form fields.'),
      csv: skillMd('csv', 'Clean CSV files'),
      '.git': '',
      _drafts: skillMd('wrong-name', ''),
    });
    const skills = new Skills(dir).load();
    expect([...skills.keys()].sort()).toEqual(['csv', 'pdf']);
    expect(skills.get('pdf')).toEqual({
      name: 'pdf',
      description: 'Fill and read PDF forms',
      body: '# PDF\n\nUse the form fields.',
      file: join(dir, 'pdf', 'SKILL.md'),
    });
  });

  it('reports every invalid file at once, naming it', () => {
    const one = root({
      pdf: skillMd('pdf', 'PDF forms'),
      renamed: skillMd('other', 'a skill whose folder differs'),
      blank: skillMd('blank', "''"),
      bare: 'no frontmatter here',
      broken: '---\nname: [broken\n---\nbody',
      empty: '',
    });
    const two = root({ pdf: skillMd('pdf', 'another PDF skill') });
    let message = '';
    try {
      new Skills([one, two]).load();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    const lines = message.split('\n');
    expect(lines[0]).toBe('invalid skills:');
    // Sorted, so the order reads: bare, blank, broken, empty, renamed, then the duplicate.
    expect(lines.slice(1).sort()).toEqual([
      `- ${join(one, 'bare', 'SKILL.md')} has no YAML frontmatter; start it with ---, name: and description:, then ---`,
      `- ${join(one, 'blank', 'SKILL.md')}: frontmatter description must be a non-empty string (the agent chooses skills by it)`,
      expect.stringMatching(
        new RegExp(
          `^- ${escapeRegExp(join(one, 'broken', 'SKILL.md'))} has invalid YAML frontmatter: `,
        ),
      ),
      `- ${join(one, 'empty', 'SKILL.md')} is missing (every skill folder needs a SKILL.md)`,
      `- ${join(one, 'renamed', 'SKILL.md')}: frontmatter name "other" must equal its folder name 'renamed'`,
      `- skill 'pdf' is defined twice: ${join(one, 'pdf', 'SKILL.md')} and ${join(two, 'pdf', 'SKILL.md')}; rename or remove one`,
    ]);
  });

  it('refuses a root that does not exist', () => {
    expect(() => new Skills('/nonexistent/skills').load()).toThrow(
      'skills root /nonexistent/skills does not exist or is not a directory',
    );
  });
});

describe('agents with skills', () => {
  it('fails build() on a skill the deck does not have, listing the available ones', () => {
    const dir = root({ pdf: skillMd('pdf', 'PDF forms'), csv: skillMd('csv', 'CSV files') });
    const { deck } = testDeck({
      skills: dir,
      agents: [new Agent({ name: 'Clerk', skills: ['pdf', 'docx'] })],
    });
    expect(() => deck.build()).toThrow(
      "invalid catalog: agent 'Clerk' lists skill 'docx', which the deck does not have. Available: ['csv', 'pdf']",
    );
  });

  it('gives the agent load_skill and lists its skills in the instructions', async () => {
    const dir = root({
      pdf: skillMd('pdf', 'Fill and read PDF forms', 'Step 1: open the form.'),
      csv: skillMd('csv', 'Clean CSV files'),
    });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'load_skill', arguments: { name: 'pdf' } }] },
      { toolCalls: [{ name: 'load_skill', arguments: { name: 'csv' } }] },
      { text: 'Done.' },
    ]);
    const clerk = new Agent({
      name: 'Clerk',
      instructions: 'You file forms.',
      model,
      skills: ['pdf'],
    });
    const { deck, eventStore } = await openTestDeck({ skills: [dir], agents: [clerk] });
    expect([...deck.skills.keys()].sort()).toEqual(['csv', 'pdf']);
    const result = await deck.run('Clerk', 'Fill the form');
    expect(result.output).toBe('Done.');

    expect(model.calls[0]?.systemInstructions).toBe(
      'You file forms.\n\nYou have skills: instructions you can read when a task needs one. ' +
        "Call load_skill with the skill's name to read it.\n- pdf: Fill and read PDF forms",
    );
    const toolNames = (model.calls[0]?.tools ?? []).map((t) => (t as { name: string }).name);
    expect(toolNames).toEqual(['load_skill']);

    const completed = (await eventStore.read(result.runId)).filter(
      (e) => e.kind === 'tool.call.completed',
    );
    expect(completed.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        name: 'load_skill',
        output: 'Step 1: open the form.',
        error: null,
      }),
      expect.objectContaining({
        name: 'load_skill',
        output: null,
        error:
          "agent 'Clerk' has no skill 'csv'; its skills are 'pdf'. Call load_skill with one of those names",
      }),
    ]);
    model.assertConsumed();
  });

  it('needs no context: a deck that declares one builds, and load_skill is not an injection site', async () => {
    class Tenant {}
    const dir = root({ pdf: skillMd('pdf', 'PDF forms') });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'load_skill', arguments: { name: 'pdf' } }] },
      { text: 'ok' },
    ]);
    const { deck } = await openTestDeck({
      context: Tenant,
      skills: dir,
      agents: [new Agent({ name: 'Clerk', model, skills: ['pdf'] })],
    });
    expect((await deck.run('Clerk', 'go', { context: new Tenant() })).output).toBe('ok');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
