/**
 * The README's API reference as Markdown: per entry point, per kind, one
 * table row per export with its short signature, the first paragraph of its
 * TSDoc and a link to the README section that explains it. Classes, and
 * interfaces with methods (handles such as `McpServer`), get a table of their
 * members; other interfaces list their fields by name.
 */
import type { ApiEntry, ApiItem, ApiKind, ApiMember } from './collect.ts';
import { type ReadmeSection, sectionExplaining } from './readme-links.ts';

/** Each kind's heading and the header of its table's first column, in the order they are shown. */
const HEADINGS: ReadonlyArray<readonly [ApiKind, string, string]> = [
  ['function', 'Functions', 'Function'],
  ['class', 'Classes', 'Class'],
  ['type', 'Interfaces and types', 'Type'],
  ['constant', 'Constants', 'Constant'],
  ['error', 'Errors', 'Error'],
];

/** Text safe in a table cell: pipes escaped (GitHub honours `\|` inside code spans too). */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** `text` as a code span; a double-backtick span when it holds a backtick itself (a template literal type). */
function code(text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function summaryOf(item: { summary: string }, deprecated = false): string {
  const text = item.summary === '' ? '*(undocumented)*' : item.summary;
  return deprecated ? `**Deprecated.** ${text}` : text;
}

function link(sections: readonly ReadmeSection[], name: string): string {
  const section = sectionExplaining(sections, name);
  return section ? ` [→ ${section.title.replace(/`/g, '')}](#${section.anchor})` : '';
}

function hasMethods(item: ApiItem): boolean {
  return item.members.some((member) => member.signature.startsWith('(') || member.signature.startsWith('<'));
}

function memberTable(owner: string, members: readonly ApiMember[]): string[] {
  if (members.length === 0) return [];
  return ['', '| Member | Summary |', '|---|---|', ...members.map((m) => `| ${cell(code(`${owner}.${m.name}${m.signature}`))} | ${cell(summaryOf(m))} |`)];
}

function fields(item: ApiItem): string {
  // An error's `code` has its own column.
  const names = item.members.map((member) => member.name).filter((name) => item.kind !== 'error' || name !== 'code');
  return names.length === 0 ? '' : ` Fields: ${names.map((name) => `\`${name}\``).join(', ')}.`;
}

function row(item: ApiItem, sections: readonly ReadmeSection[]): string {
  const summary = summaryOf(item, item.deprecated) + link(sections, item.name);
  if (item.kind === 'error') return `| \`${item.name}\` | ${cell(item.signature === '' ? '' : code(item.signature))} | ${cell(summary + fields(item))} |`;
  const signature = item.kind === 'type' && item.signature === '' ? '' : item.signature;
  return `| ${cell(code(`${item.name}${signature}`))} | ${cell(summary + (item.kind === 'type' ? fields(item) : ''))} |`;
}

function kindSection([kind, title, column]: (typeof HEADINGS)[number], items: readonly ApiItem[], sections: readonly ReadmeSection[]): string[] {
  if (items.length === 0) return [];
  const lines = ['', `**${title}**`];
  const handles = kind === 'class' || kind === 'type' ? items.filter((item) => kind === 'class' || hasMethods(item)) : [];
  const rows = items.filter((item) => !handles.includes(item));
  if (rows.length > 0) {
    const header = kind === 'error' ? [`| ${column} | \`code\` | Summary |`, '|---|---|---|'] : [`| ${column} | Summary |`, '|---|---|'];
    lines.push('', ...header, ...rows.map((item) => row(item, sections)));
  }
  for (const item of handles) {
    lines.push('', `\`${item.name}\`: ${summaryOf(item, item.deprecated)}${link(sections, item.name)}`, ...memberTable(item.name, item.members));
  }
  return lines;
}

/** What goes between the API reference markers, for `entries`, linking into `sections` (the README outside the markers). */
export function apiReferenceSection(entries: readonly ApiEntry[], sections: readonly ReadmeSection[]): string {
  const lines: string[] = [];
  for (const entry of entries) {
    if (lines.length > 0) lines.push('');
    lines.push(`### Entry point \`${entry.specifier}\``, '', `Built from \`${entry.source}\`; ${entry.items.length} exports.`);
    for (const heading of HEADINGS) lines.push(...kindSection(heading, entry.items.filter((item) => item.kind === heading[0]), sections));
  }
  return `${lines.join('\n')}\n`;
}
