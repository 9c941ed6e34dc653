/**
 * RFC 6570 level 1–3 templates (src/server/uri-template.ts): the RFC's own
 * expansion examples, matching back, the templates refused, and a round-trip
 * property: expanding any values and matching the result recovers them,
 * for every operator, where the inverse is defined (see the module's doc).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidUriTemplateError } from '../../src/server/index.ts';
import { UriTemplate, type TemplateOperator } from '../../src/server/uri-template.ts';

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
