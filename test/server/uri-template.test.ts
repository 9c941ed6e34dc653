/**
 * RFC 6570 level 1–3 templates (src/server/uri-template.ts): the RFC's own
 * expansion examples, matching back, the templates refused, and a round-trip
 * property: expanding any values and matching the result recovers them,
 * for every operator, where the inverse is defined (see the module's doc);
 * and the split of a URI that reads more than one way, found in one pass
 * (src/server/uri-template-match.ts) where a regular expression took cubic time.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidUriTemplateError } from '../../src/server/index.ts';
import { UriTemplate, type TemplateOperator } from '../../src/server/uri-template.ts';
import { charSet, matchPieces, type CharSet, type Piece } from '../../src/server/uri-template-match.ts';

// RFC 6570 section 1.2 / 3.2 example variables (level 1–3 ones).
const RFC_VARS = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024', y: '768' };

describe('expand', () => {
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['X{#var}', 'X#value'],
    ['X{#hello}', 'X#Hello%20World!'],
    ['map?{x,y}', 'map?1024,768'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{+path,x}/here', '/foo/bar,1024/here'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{?undefined}', ''],
  ])('%s expands to %s (RFC 6570 examples)', (template, expected) => {
    expect(new UriTemplate(template).expand(RFC_VARS)).toBe(expected);
  });
});

describe('match', () => {
  it('recovers a level 1 variable and refuses a URI of another shape', () => {
    const template = new UriTemplate('test://template/{id}/data');
    expect(template.variables).toEqual(['id']);
    expect(template.match('test://template/123/data')).toEqual({ id: '123' });
    expect(template.match('test://template/123/other')).toBeUndefined();
    expect(template.match('test://template/1/2/data')).toBeUndefined();
  });

  it('decodes percent-encoded values and refuses a percent sequence that is not UTF-8', () => {
    const template = new UriTemplate('notes://{title}');
    expect(template.match('notes://Hello%20World%21')).toEqual({ title: 'Hello World!' });
    expect(template.match('notes://%C3')).toBeUndefined();
  });

  it('lets reserved expansion span slashes', () => {
    expect(new UriTemplate('file:///{+path}').match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
    expect(new UriTemplate('file:///{path}').match('file:///a/b/c.txt')).toBeUndefined();
  });

  it('leaves the query to a query expression after reserved expansion', () => {
    const template = new UriTemplate('file:///{+path}{?version}');
    expect(template.match('file:///a/b.txt?version=2')).toEqual({ path: 'a/b.txt', version: '2' });
    expect(template.match('file:///a/b.txt')).toEqual({ path: 'a/b.txt' });
  });

  it('matches a query expression with any subset of its variables, in any order', () => {
    const template = new UriTemplate('search://items{?q,page}');
    expect(template.match('search://items')).toEqual({});
    expect(template.match('search://items?page=2')).toEqual({ page: '2' });
    expect(template.match('search://items?page=2&q=a%20b')).toEqual({ q: 'a b', page: '2' });
    expect(template.match('search://items?other=1')).toBeUndefined();
    expect(template.match('search://items?q=1&q=2')).toBeUndefined();
  });
});

describe('templates refused', () => {
  it.each([
    ['{list*}', 'level 4'],
    ['{var:3}', 'level 4'],
    ['x{var', 'without its }'],
    ['x}', 'without its {'],
    ['{=var}', 'reserved'],
    ['{var,var}', 'appears twice'],
    ['a b/{var}', 'may not'],
    ['{}', 'invalid variable name'],
    ['{a-b}', 'invalid variable name'],
    ['x/{a}{b}', 'nothing between them'],
    ['x/{a}{+b}', 'nothing between them'],
  ])('%s is refused (%s)', (template, problem) => {
    const attempt = () => new UriTemplate(template);
    expect(attempt).toThrow(InvalidUriTemplateError);
    expect(attempt).toThrow(problem);
  });
});

const OPERATORS: TemplateOperator[] = ['', '+', '#', '.', '/', ';', '?', '&'];
const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);

/**
 * Values whose expansion can be read back one way: any text for the operators
 * that encode everything outside the unreserved set; for `+` and `#`, no `,`
 * (their separator) and no `%` (an existing triplet passes through as is);
 * for `.`, no `.` (its separator is unreserved).
 */
function valueFor(operator: TemplateOperator): fc.Arbitrary<string> {
  const text = fc.string({ unit: 'grapheme', maxLength: 12 });
  if (operator === '+' || operator === '#') return text.filter((value) => !/[,%]/.test(value));
  if (operator === '.') return text.filter((value) => !value.includes('.'));
  return text;
}

describe('round trip (property)', () => {
  it('matching an expansion recovers every value, for every level 1–3 operator', () => {
    const scenario = fc.constantFrom(...OPERATORS).chain((operator) =>
      fc.record({
        operator: fc.constant(operator),
        names: fc.uniqueArray(name, { minLength: 1, maxLength: 3 }),
        prefix: fc.constantFrom('test://x/', 'urn:a:', 'mem://'),
        suffix: fc.constantFrom('', '/tail', '.json'),
        values: fc.array(valueFor(operator), { minLength: 3, maxLength: 3 }),
      }));
    fc.assert(
      fc.property(scenario, ({ operator, names, prefix, suffix, values }) => {
        // A trailing literal that a value could also contain is ambiguous under reserved expansion.
        fc.pre(!(operator === '+' || operator === '#') || suffix === '');
        const template = new UriTemplate(`${prefix}{${operator}${names.join(',')}}${suffix}`);
        const assigned = Object.fromEntries(names.map((variable, index) => [variable, values[index]!]));
        expect(template.match(template.expand(assigned))).toEqual(assigned);
      }),
      { numRuns: 400 },
    );
  });

  it('takes only URIs of the template\'s shape, whose values expand and match back to themselves', () => {
    const template = new UriTemplate('test://template/{id}/data');
    const uri = fc.oneof(fc.string({ maxLength: 20 }), fc.string({ maxLength: 8 }).map((middle) => `test://template/${middle}/data`));
    fc.assert(
      fc.property(uri, (candidate) => {
        const found = template.match(candidate);
        if (found === undefined) return;
        expect(candidate.startsWith('test://template/') && candidate.endsWith('/data')).toBe(true);
        expect(found.id).not.toContain('/');
        expect(template.match(template.expand(found))).toEqual(found);
      }),
    );
  });
});

describe('a URI that splits more than one way', () => {
  it('gives a value all it can and a reserved value the least, leaving the rest matchable', () => {
    expect(new UriTemplate('db://{a}-{b}-{c}').match('db://x-y-z-w')).toEqual({ a: 'x-y', b: 'z', c: 'w' });
    expect(new UriTemplate('x/{+a}/{+b}').match('x/p/q/r')).toEqual({ a: 'p', b: 'q/r' });
    expect(new UriTemplate('x{;p}-{b}').match('x;p=1-2-3')).toEqual({ p: '1-2', b: '3' });
    expect(new UriTemplate('x{?q}-{b}').match('x?q=1-2-3')).toEqual({ q: '1-2', b: '3' });
  });

  // With a regular expression, each of these took cubic time in the URI's length: half a second at 1,000
  // characters and 3.7 s at 2,000 for the first; 200,000 would have held the event loop for days.
  const N = 200_000;
  it.each<[string, string, Record<string, string> | undefined]>([
    ['db://{a}-{b}-{c}', `db://${'-'.repeat(N)}!`, undefined],
    ['db://{a}-{b}-{c}', `db://${'-'.repeat(N)}`, { a: '-'.repeat(N - 2), b: '', c: '' }],
    ['db://{a}-{b}-{c}', `db://${'a-'.repeat(N / 2)}`, { a: `${'a-'.repeat(N / 2 - 2)}a`, b: 'a', c: '' }],
    ['x/{+a}/{+b}/{+c}', `x/${'/'.repeat(N)},`, undefined],
    ['x/{+a}/{+b}/{+c}', `x/${'/'.repeat(N)}`, { a: '', b: '', c: '/'.repeat(N - 2) }],
    ['x{#a}/{+b}/{+c}', `x#${'/'.repeat(N)},`, undefined],
    ['x{?q}-{b}-{c}', `x?q=${'-'.repeat(N)}!`, undefined],
    ['x{;p}-{b}-{c}', `x;p=${'-'.repeat(N)}!`, undefined],
    ['x{.a}~{b}~{c}', `x.${'~'.repeat(N)}!`, undefined],
    ['x{/a}-{b}-{c}', `x/${'-'.repeat(N)}!`, undefined],
  ])('%s reads a crafted URI of 200,000 characters in one pass', (template, uri, expected) => {
    expect(new UriTemplate(template).match(uri)).toEqual(expected);
  });
});

/** The backtracking regular expression a template's matcher used to be: one capture per non-literal piece. */
function regExpOf(pieces: readonly Piece[]): RegExp {
  const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const value = (allowed: CharSet): string => `(?:[${[...allowed.chars].map((char) => char.replace(/[\]\\^[-]/, '\\$&')).join('')}]|%[0-9A-Fa-f]{2})*`;
  const sources = pieces.map((piece) => {
    switch (piece.kind) {
      case 'literal':
        return escape(piece.text);
      case 'value':
        return `(${value(piece.allowed)}${piece.lazy ? '?' : ''})`;
      case 'parameter':
        return `(${escape(piece.name)}(?:=${value(piece.allowed)})?)`;
      case 'query': {
        const pair = `[A-Za-z0-9_.%]+=${value(piece.allowed)}`;
        return `((?:${escape(piece.first)}${pair}(?:&${pair})*)?)`;
      }
    }
  });
  return new RegExp(`^${sources.join('')}$`);
}

describe('matching pieces (property)', () => {
  const sets: CharSet[] = [charSet('ax-.~'), charSet('ax-~'), charSet("ax-.~/?#&=;!")];
  const text = fc.constantFrom('-', '.', '/', ',', '=', '&', '?', ';', 'x', '-x', 'p', '%41');
  const piece: fc.Arbitrary<Piece> = fc.oneof(
    text.map((literal) => ({ kind: 'literal' as const, text: literal })),
    fc.record({ kind: fc.constant('value' as const), allowed: fc.constantFrom(...sets), lazy: fc.boolean() }),
    fc.record({ kind: fc.constant('parameter' as const), name: fc.constantFrom('p', 'x'), allowed: fc.constantFrom(...sets) }),
    fc.record({ kind: fc.constant('query' as const), first: fc.constantFrom('?', '&'), allowed: fc.constantFrom(...sets) }),
  );
  const bits = (maxLength: number) =>
    fc.array(fc.oneof(text, fc.constantFrom('a', '~', '%', '4', 'é', 'p=', 'x=')), { maxLength }).map((parts) => parts.join(''));
  /** Text shaped like the piece, often with characters it does not allow, so that most URIs match and many split more than one way. */
  function textFor(piece: Piece): fc.Arbitrary<string> {
    switch (piece.kind) {
      case 'literal':
        return fc.constant(piece.text);
      case 'value':
        return bits(4);
      case 'parameter':
        return fc.oneof(fc.constant(piece.name), bits(3).map((value) => `${piece.name}=${value}`));
      case 'query': {
        const pair = fc.tuple(fc.constantFrom('p', 'x', 'a.b'), bits(3)).map(([name, value]) => `${name}=${value}`);
        return fc.oneof(fc.constant(''), fc.array(pair, { minLength: 1, maxLength: 3 }).map((pairs) => piece.first + pairs.join('&')));
      }
    }
  }
  const scenario = fc.array(piece, { minLength: 1, maxLength: 5 }).chain((pieces) =>
    fc.tuple(fc.constant(pieces), fc.oneof(bits(16), fc.tuple(...pieces.map(textFor)).map((texts) => texts.join('')))));

  it('splits a URI as a backtracking regular expression of the same pieces does, or refuses it as that does', () => {
    fc.assert(
      fc.property(scenario, ([pieces, uri]) => {
        const found = regExpOf(pieces).exec(uri);
        expect(matchPieces(pieces, uri)).toEqual(found ? found.slice(1) : undefined);
      }),
      { numRuns: 2_000 },
    );
  });
});
