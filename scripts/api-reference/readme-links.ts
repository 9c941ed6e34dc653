/**
 * Where the README explains a name at length: the section (any heading
 * level) whose code, inline or fenced, names it most often. The API
 * reference links each export there, so a reader goes from the one-line
 * summary to the prose and the examples.
 */

/** A README heading with its GitHub anchor and the text up to the next heading. */
export interface ReadmeSection {
  title: string;
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
    const heading = fenced ? null : /^#{1,6}\s+(.+?)\s*$/.exec(line);
    if (heading) sections.push({ title: heading[1]!, anchor: anchorFor(heading[1]!, used), body: '' });
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

/** The section that names `name` most in its code (the first of equals), or undefined when none does. */
export function sectionExplaining(sections: readonly ReadmeSection[], name: string): ReadmeSection | undefined {
  let best: ReadmeSection | undefined;
  let bestCount = 0;
  for (const section of sections) {
    const count = mentions(section.body, name);
    if (count > bestCount) [best, bestCount] = [section, count];
  }
  return best;
}
