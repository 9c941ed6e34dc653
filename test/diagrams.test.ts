import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { and, fromCallback, fromPromise, not, setup } from 'xstate';
import { findMachines, renderDiagrams } from '../src/diagrams/catalog.ts';
import { guardName, toMermaid } from '../src/diagrams/mermaid.ts';
import {
  markedStatecharts,
  spliceStatecharts,
  STATECHARTS_END,
  STATECHARTS_START,
  StatechartsMarkersError,
  statechartsSection,
} from '../src/diagrams/readme-section.ts';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

describe('diagrams/', () => {
  it('matches what `npm run diagrams` generates from machines/', async () => {
    const expected = await renderDiagrams(repoRoot);
    const present = (await readdir(join(repoRoot, 'diagrams')).catch(() => [] as string[])).sort();
    const problems: string[] = [];
    for (const name of expected.keys()) if (!present.includes(name)) problems.push(`missing diagrams/${name}`);
    for (const name of present) {
      const want = expected.get(name);
      if (want === undefined) problems.push(`extra diagrams/${name} (no machine produces it)`);
      else if ((await readFile(join(repoRoot, 'diagrams', name), 'utf8')) !== want) problems.push(`stale diagrams/${name}`);
    }
    expect(problems, `diagrams/ is out of date; run \`npm run diagrams\`:\n${problems.join('\n')}`).toEqual([]);
  });

  it('generates the same bytes twice', async () => {
    expect(await renderDiagrams(repoRoot)).toEqual(await renderDiagrams(repoRoot));
  });
});

describe('the statecharts section of README.md', () => {
  it('matches what `npm run diagrams` generates from machines/', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const generated = spliceStatecharts(readme, statechartsSection(await findMachines(repoRoot)));
    expect(markedStatecharts(readme), 'README.md statecharts are out of date; run `npm run diagrams`').toBe(
      markedStatecharts(generated),
    );
  });

  it('shows every machine with the same Mermaid block as its diagrams/ file', async () => {
    const found = await findMachines(repoRoot);
    const files = await renderDiagrams(repoRoot);
    const section = statechartsSection(found);
    for (const machine of found) {
      const block = /```mermaid\n[\s\S]*?\n```/.exec(files.get(`${machine.name}.md`) ?? '')?.[0];
      expect(block, machine.name).toBeDefined();
      expect(section).toContain(`### ${machine.name}\n\n${block}\n`);
    }
  });
});

describe('spliceStatecharts', () => {
  const readme = ['# Title', '', 'Intro.', STATECHARTS_START, 'old text', STATECHARTS_END, '', '## After', 'tail'].join('\r\n');

  it('replaces only the text between the markers', () => {
    const spliced = spliceStatecharts(readme, '### m\n\nnew\n');
    expect(spliced).toBe(`# Title\r\n\r\nIntro.\r\n${STATECHARTS_START}\n\n### m\n\nnew\n\n${STATECHARTS_END}\r\n\r\n## After\r\ntail`);
    expect(markedStatecharts(spliced)).toBe('\n\n### m\n\nnew\n\n');
  });

  it('is idempotent', () => {
    const once = spliceStatecharts(readme, 'x\n');
    expect(spliceStatecharts(once, 'x\n')).toBe(once);
  });

  it('refuses a README without exactly one start marker before one end marker', () => {
    expect(() => spliceStatecharts('# no markers', 'x\n')).toThrow(StatechartsMarkersError);
    expect(() => spliceStatecharts(`${STATECHARTS_START}${STATECHARTS_START}${STATECHARTS_END}`, 'x\n')).toThrow(/2 start and 1 end/);
    expect(() => spliceStatecharts(`${STATECHARTS_END}\n${STATECHARTS_START}`, 'x\n')).toThrow(/end marker comes before/);
  });
});

const door = setup({
  types: { events: {} as { type: 'open' } | { type: 'close' } | { type: 'knock' } | { type: 'lock' } | { type: 'break' } },
  actors: {
    sensor: fromCallback(() => {}),
    unlock: fromPromise(async () => true),
  },
  guards: { authorized: () => true, quiet: () => true },
  delays: { ackTimeout: 1_000 },
}).createMachine({
  id: 'door',
  initial: 'closed',
  on: { break: '.broken' },
  states: {
    closed: {
      initial: 'unlocked',
      invoke: { src: 'sensor' },
      on: { knock: {} },
      states: {
        unlocked: { on: { lock: 'locked' } },
        locked: {
          invoke: { src: 'unlock', onDone: { target: 'unlocked' }, onError: { target: '#door.broken' } },
        },
      },
      after: { ackTimeout: { target: 'open', guard: 'quiet' } },
    },
    open: {
      on: {
        close: [{ guard: and(['authorized', not('quiet')]), target: 'closed' }, { target: 'open', reenter: true }],
      },
    },
    both: {
      type: 'parallel',
      states: { left: { initial: 'a', states: { a: {} } }, right: { initial: 'b', states: { b: {} } } },
    },
    broken: { type: 'final' },
  },
});

describe('toMermaid', () => {
  it('draws nested, parallel and final states, guards, delays and invoked actors', () => {
    expect(toMermaid(door)).toBe(
      [
        'stateDiagram-v2',
        '  state "door · break → broken" as door {',
        '    [*] --> door_closed',
        '    state "closed · invoke sensor · on knock" as door_closed {',
        '      [*] --> door_closed_unlocked',
        '      state "unlocked" as door_closed_unlocked',
        '      state "locked" as door_closed_locked',
        '      door_closed_locked : invoke unlock',
        '      door_closed_unlocked --> door_closed_locked : lock',
        '      door_closed_locked --> door_closed_unlocked : done(unlock)',
        '    }',
        '    state "open" as door_open',
        '    state "both (parallel)" as door_both {',
        '      state "left" as door_both_left {',
        '        [*] --> door_both_left_a',
        '        state "a" as door_both_left_a',
        '      }',
        '      --',
        '      state "right" as door_both_right {',
        '        [*] --> door_both_right_b',
        '        state "b" as door_both_right_b',
        '      }',
        '    }',
        '    state "broken" as door_broken',
        '    door_broken --> [*]',
        '    door_closed --> door_open : after(ackTimeout) [quiet]',
        '    door_open --> door_closed : close [and(authorized, not(quiet))]',
        '    door_open --> door_open : close [else]',
        '  }',
        '  door_closed_locked --> door_broken : error(unlock)',
        '',
      ].join('\n'),
    );
  });

  it('gives every guarded transition a label of its own: an unguarded fallback is [else]', async () => {
    for (const file of await readdir(join(repoRoot, 'diagrams'))) {
      const text = await readFile(join(repoRoot, 'diagrams', file), 'utf8');
      for (const line of text.split('\n').filter((candidate) => candidate.includes(' --> ') && candidate.includes(' : '))) {
        const labels = line.slice(line.indexOf(' : ') + 3).split('<br/>');
        const events = labels.map((label) => label.split(' [')[0]);
        // The same event twice on one edge is only readable when each says its guard.
        for (const [index, label] of labels.entries()) {
          if (events.filter((event) => event === events[index]).length > 1) expect(label, `${file}: ${line}`).toMatch(/\[.+\]$/);
        }
      }
    }
  });

  it('writes edges that leave a composite at the top level, so Mermaid keeps each state in its own block', () => {
    const lines = toMermaid(door).split('\n');
    const edge = lines.indexOf('  door_closed_locked --> door_broken : error(unlock)');
    expect(edge).toBeGreaterThan(lines.lastIndexOf('  }'));
  });

  it('labels numeric delays in milliseconds and inline guards by name, one edge per source and target', () => {
    const timer = setup({}).createMachine({
      id: 'timer',
      initial: 'waiting',
      states: { waiting: { after: { 250: 'done' }, always: { guard: function ready() { return false; }, target: 'done' } }, done: { type: 'final' } },
    });
    const text = toMermaid(timer);
    expect(text).toContain('timer_waiting --> timer_done : after(250ms)<br/>always [ready]');
    expect(text.match(/timer_waiting -->/g)).toHaveLength(1);
  });

  it('keeps composite headers to one line, grouping inner transitions by destination', () => {
    const hall = setup({
      types: { events: {} as { type: 'close' } | { type: 'stop' } | { type: 'ping' } | { type: 'pong' } },
    }).createMachine({
      id: 'hall',
      initial: 'open',
      on: { close: '.shut', stop: '.shut', ping: {}, pong: {} },
      states: { open: {}, shut: {} },
    });
    expect(toMermaid(hall).split('\n')[1]).toBe('  state "hall · close, stop → shut · on ping, pong" as hall {');
  });

  it('names composite guards recursively', () => {
    expect(guardName(and(['a', not({ type: 'b' })]))).toBe('and(a, not(b))');
  });
});
