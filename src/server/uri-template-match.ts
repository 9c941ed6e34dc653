/**
 * Reading a URI back through a template (src/server/uri-template.ts), in time
 * linear in the URI's length: the template arrives as a sequence of pieces,
 * and the answer is one string per piece that is not a literal.
 *
 * Where a URI splits more than one way (`db://{a}-{b}-{c}` and `db://x-y-z-w`),
 * the split is the one a backtracking regular expression of the same pieces
 * finds first, as the regular expression this replaced did: a value ends at the
 * last place that still lets the rest of the URI match (`a` is `x-y`), a lazy
 * (reserved) value at the first, and an optional part (a `;` parameter's
 * `=value`, a query, its next `&name=value`) is taken whenever the rest can
 * still match with it. A backtracking engine finds that split by trying the
 * splits one by one, cubic in the URI's length for the template above, so a
 * crafted URI of a few thousand characters held the event loop for seconds.
 *
 * Here one pass from the URI's end marks, for each piece, every position it
 * can start at with every later piece still able to reach the end; a second
 * pass from the start then takes, at each choice, the first option in the
 * engine's order that the marks allow. Both passes cost O(pieces × URI length),
 * a literal of k characters k times that.
 */

/** The characters a value may hold unencoded: ASCII, and never `%`, which only starts a `%XX` triplet. */
export interface CharSet {
  /** The characters, as given to charSet. */
  readonly chars: string;
  /** 1 at each character's code: a lookup per URI character, the matcher's innermost step. */
  readonly table: Uint8Array;
}

/** The CharSet of these characters. */
export function charSet(chars: string): CharSet {
  const table = new Uint8Array(128);
  for (let index = 0; index < chars.length; index++) table[chars.charCodeAt(index)] = 1;
  return { chars, table };
}

/** One piece of a template, in URI order; every kind but `literal` yields the text it spans. */
export type Piece =
  /** Text that must appear as is. */
  | { kind: 'literal'; text: string }
  /** A run of `allowed` characters and `%XX` triplets, as long as it can be (as short, when `lazy`). */
  | { kind: 'value'; allowed: CharSet; lazy: boolean }
  /** A `;` parameter: `name`, then `=` and a value unless the value is empty. */
  | { kind: 'parameter'; name: string; allowed: CharSet }
  /** A query expression: nothing, or `first` and `name=value` pairs joined by `&`. */
  | { kind: 'query'; first: string; allowed: CharSet };

/** A piece solved against one URI. */
interface Solved {
  /** `ok[at]` is 1 when the piece can start at `at` and the pieces after it can then reach the URI's end. */
  ok: Uint8Array;
  /** Where the piece ends when it starts at `at`, a position `ok` marks. */
  end(at: number): number;
}

/** The text each non-literal piece spans, in order, when `uri` is made of `pieces`; else undefined. */
export function matchPieces(pieces: readonly Piece[], uri: string): string[] | undefined {
  // Most templates a server tries fail on their scheme: no table for those.
  const head = pieces[0];
  const tail = pieces[pieces.length - 1];
  if (head?.kind === 'literal' && !uri.startsWith(head.text)) return undefined;
  if (tail?.kind === 'literal' && !uri.endsWith(tail.text)) return undefined;
  const solved = new Array<Solved>(pieces.length);
  let rest: Uint8Array = new Uint8Array(uri.length + 1);
  rest[uri.length] = 1;
  for (let index = pieces.length - 1; index >= 0; index--) {
    solved[index] = solve(pieces[index]!, uri, rest);
    rest = solved[index]!.ok;
  }
  if (!rest[0]) return undefined;
  const spans: string[] = [];
  let at = 0;
  pieces.forEach((piece, index) => {
    const end = solved[index]!.end(at);
    if (piece.kind !== 'literal') spans.push(uri.slice(at, end));
    at = end;
  });
  return spans;
}

function solve(piece: Piece, uri: string, rest: Uint8Array): Solved {
  switch (piece.kind) {
    case 'literal':
      return solveLiteral(piece.text, uri, rest);
    case 'value':
      return solveValue(piece.allowed, piece.lazy, uri, rest);
    case 'parameter':
      return solveParameter(piece.name, piece.allowed, uri, rest);
    case 'query':
      return solveQuery(piece.first, piece.allowed, uri, rest);
  }
}

const PERCENT = 0x25;

/** 1 at the code of each hex digit. */
const HEX = charSet('0123456789ABCDEFabcdef').table;

/** How many characters the value character or `%XX` triplet at `at` takes: 1, 3, or 0 for none. */
function tokenAt(uri: string, at: number, allowed: CharSet): number {
  if (at >= uri.length) return 0;
  const code = uri.charCodeAt(at);
  if (code === PERCENT) return at + 2 < uri.length && HEX[uri.charCodeAt(at + 1)] && HEX[uri.charCodeAt(at + 2)] ? 3 : 0;
  return code < 128 && allowed.table[code] ? 1 : 0;
}

function solveLiteral(text: string, uri: string, rest: Uint8Array): Solved {
  const ok = new Uint8Array(uri.length + 1);
  const first = text.charCodeAt(0); // a cheap refusal before startsWith, at most positions
  for (let at = 0; at + text.length <= uri.length; at++) {
    if (rest[at + text.length] && (text === '' || uri.charCodeAt(at) === first) && uri.startsWith(text, at)) ok[at] = 1;
  }
  return { ok, end: (at) => at + text.length };
}

function solveValue(allowed: CharSet, lazy: boolean, uri: string, rest: Uint8Array): Solved {
  const ok = new Uint8Array(uri.length + 1);
  for (let at = uri.length; at >= 0; at--) {
    const token = tokenAt(uri, at, allowed);
    if (rest[at] || (token > 0 && ok[at + token])) ok[at] = 1;
  }
  const end = (start: number): number => {
    let at = start;
    if (lazy) {
      // ok[at] without rest[at] means the next token exists and leads somewhere ok.
      while (!rest[at]) at += tokenAt(uri, at, allowed);
      return at;
    }
    for (let token = tokenAt(uri, at, allowed); token > 0 && ok[at + token]; token = tokenAt(uri, at, allowed)) at += token;
    return at;
  };
  return { ok, end };
}

function solveParameter(name: string, allowed: CharSet, uri: string, rest: Uint8Array): Solved {
  const value = solveValue(allowed, false, uri, rest);
  const withValue = (after: number): boolean => uri[after] === '=' && value.ok[after + 1] === 1;
  const ok = new Uint8Array(uri.length + 1);
  for (let at = 0; at + name.length <= uri.length; at++) {
    const after = at + name.length;
    if ((withValue(after) || rest[after]) && uri.startsWith(name, at)) ok[at] = 1;
  }
  const end = (at: number): number => {
    const after = at + name.length;
    return withValue(after) ? value.end(after + 1) : after;
  };
  return { ok, end };
}

/** The characters of a query pair's name, up to its `=`. */
const QUERY_NAME = charSet('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.%').table;

function solveQuery(first: string, allowed: CharSet, uri: string, rest: Uint8Array): Solved {
  const length = uri.length;
  // Each marks where the rest can still reach the URI's end from: right after a pair (afterPair), inside a
  // pair's value (inValue), at the start of a pair (pairAt).
  const afterPair = new Uint8Array(length + 1);
  const inValue = new Uint8Array(length + 1);
  const pairAt = new Uint8Array(length + 2);
  /** Where the run of name characters starting at each position ends; `=` must follow it, since a name holds none. */
  const nameEnd = new Int32Array(length + 1);
  const ok = new Uint8Array(length + 1);
  for (let at = length; at >= 0; at--) {
    if (rest[at] || (uri[at] === '&' && pairAt[at + 1])) afterPair[at] = 1;
    const token = tokenAt(uri, at, allowed);
    if (afterPair[at] || (token > 0 && inValue[at + token])) inValue[at] = 1;
    const code = uri.charCodeAt(at); // NaN past the end
    nameEnd[at] = code < 128 && QUERY_NAME[code] ? nameEnd[at + 1]! : at;
    const equals = nameEnd[at]!;
    if (equals > at && uri[equals] === '=' && inValue[equals + 1]) pairAt[at] = 1;
    if ((uri.startsWith(first, at) && pairAt[at + first.length]) || rest[at]) ok[at] = 1;
  }
  const end = (at: number): number => {
    if (!(uri.startsWith(first, at) && pairAt[at + first.length])) return at;
    let next = at + first.length;
    for (;;) {
      next = nameEnd[next]! + 1;
      for (let token = tokenAt(uri, next, allowed); token > 0 && inValue[next + token]; token = tokenAt(uri, next, allowed)) next += token;
      if (uri[next] !== '&' || !pairAt[next + 1]) return next;
      next += 1;
    }
  };
  return { ok, end };
}
