/**
 * Walks over untrusted JSON values that input cannot turn into deep
 * recursion: `JSON.parse` is iterative in V8, but `JSON.stringify`,
 * `String()` of an array, `structuredClone` and any recursive walk throw
 * `RangeError` a few thousand levels down (about 3,300 for structuredClone
 * on Node 20). Both functions here keep an explicit work list instead.
 */

/**
 * Whether any array or object in `value` sits more than `limit` levels deep
 * (the value itself is level 1). Visits each container at most once and
 * stops at the first one past the limit, so a cycle (possible only in values
 * that did not come from JSON) ends too.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const pending: object[] = [value];
  const depths: number[] = [1];
  while (pending.length > 0) {
    const current = pending.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const child: unknown = current[i];
        if (typeof child === 'object' && child !== null) {
          pending.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in current) {
      const child: unknown = (current as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * At most `maxChars` characters of `value` rendered as JSON, then `…` when
 * cut: for error reports about frames that may be huge, deep or cyclic. Reads
 * only as much of the value as the excerpt shows.
 */
export function previewJson(value: unknown, maxChars: number): string {
  let out = '';
  // The work list, last first: literal text to emit, or values still to render.
  const work: unknown[] = [value];
  const literal: boolean[] = [false];
  const emit = (text: string) => {
    work.push(text);
    literal.push(true);
  };
  const render = (item: unknown) => {
    work.push(item);
    literal.push(false);
  };
  try {
    while (work.length > 0 && out.length <= maxChars) {
      const item = work.pop();
      if (literal.pop()) {
        out += item as string;
        continue;
      }
      if (typeof item === 'string') out += JSON.stringify(item.length > maxChars ? item.slice(0, maxChars) : item);
      else if (typeof item !== 'object' || item === null) out += String(item);
      else if (Array.isArray(item)) {
        // Every element shows as one character at least, so no more than maxChars of them can.
        const shown = Math.min(item.length, maxChars);
        emit(shown < item.length ? ',…]' : ']');
        for (let i = shown - 1; i >= 0; i--) {
          render(item[i]);
          if (i > 0) emit(',');
        }
        emit('[');
      } else {
        const keys: string[] = [];
        for (const key in item) {
          if (keys.length >= maxChars) break;
          keys.push(key);
        }
        emit('}');
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i] as string;
          render((item as Record<string, unknown>)[key]);
          emit(`${JSON.stringify(key.length > maxChars ? key.slice(0, maxChars) : key)}:`);
          if (i > 0) emit(',');
        }
        emit('{');
      }
    }
  } catch {
    // A getter or proxy in a value that did not come from JSON: show what was read.
    out += '(unreadable)';
  }
  return out.length > maxChars || work.length > 0 ? `${out.slice(0, maxChars)}…` : out;
}
