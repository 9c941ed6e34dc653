/**
 * Where the README explains a name at length, judged by where its code,
 * inline or fenced, names it: the narrowest section that holds at least half
 * of the mentions of the section around it, so `createServer` leads to "The
 * server" rather than to the subsection with the most examples, and an OAuth
 * type to "Authorization (OAuth)" rather than to "The client". The API
 * reference links each export there, from its one-line summary to the prose
 * and the examples.
 */

/** A README heading with its level, its GitHub anchor and the text up to the next heading. */
export interface ReadmeSection {
  title: string;
  level: number;
  anchor: string;
  body: string;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, `-1`, `-2`… on repeats. */
function anchorFor(title: string, used: Map<string, number>): string {
  const base = title
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
  const count = used.get(base) ?? 0;
  used.set(base, count + 1);
  return count === 0 ? base : `${base}-${count}`;
}

/** Every heading of `markdown` outside fenced code, in order. */
export function readmeSections(markdown: string): ReadmeSection[] {
  const sections: ReadmeSection[] = [];
  const used = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.trimStart().startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^(#{1,6})\s+(.+?)\s*$/.exec(line);
    if (heading) sections.push({ title: heading[2]!, level: heading[1]!.length, anchor: anchorFor(heading[2]!, used), body: '' });
    else if (sections.length > 0) sections[sections.length - 1]!.body += `${line}\n`;
  }
  return sections;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How often `name` appears as a whole word in the code (spans and fenced blocks) of `body`. */
function mentions(body: string, name: string): number {
  const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, 'g');
  let count = 0;
  for (const code of body.match(/```[\s\S]*?```|`[^`\n]+`/g) ?? []) count += code.match(word)?.length ?? 0;
  return count;
}

/** The indices of the sections directly under `parent` (-1: the top), each with its own and its subsections' mentions. */
function children(sections: readonly ReadmeSection[], counts: readonly number[], parent: number): { index: number; total: number }[] {
  const found: { index: number; total: number }[] = [];
  const floor = parent < 0 ? 0 : sections[parent]!.level;
  let childLevel = Infinity;
  for (let i = parent + 1; i < sections.length && sections[i]!.level > floor; i++) {
    if (sections[i]!.level <= childLevel) {
      childLevel = sections[i]!.level;
      found.push({ index: i, total: 0 });
    }
    found[found.length - 1]!.total += counts[i]!;
  }
  return found;
}

/** The section that explains `name` (see above), or undefined when no section below the title names it. */
export function sectionExplaining(sections: readonly ReadmeSection[], name: string): ReadmeSection | undefined {
  const counts = sections.map((section) => mentions(section.body, name));
  let current = -1;
  let total = counts.reduce((sum, count) => sum + count, 0);
  for (;;) {
    const best = children(sections, counts, current).reduce<{ index: number; total: number } | undefined>(
      (a, b) => (a === undefined || b.total > a.total ? b : a),
      undefined,
    );
    if (best === undefined || best.total === 0 || best.total * 2 < total) break;
    [current, total] = [best.index, best.total];
  }
  return current >= 0 && sections[current]!.level > 1 ? sections[current] : undefined;
}
