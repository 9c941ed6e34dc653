/**
 * RFC 6570 URI templates, levels 1 to 3, in both directions: `expand` fills a
 * template with values, `match` recovers the values from a URI. Level 4
 * (prefix `:n` and explode `*` modifiers) is refused when the template is
 * parsed, since a server that cannot match a template must not advertise it.
 *
 * Matching is the inverse of expansion where the inverse is defined: every
 * variable of a non-query expression must be present, and a value may not
 * contain its expression's separator unencoded (`,` under `+` and `#`, `.`
 * under `.`). Query expressions (`?`, `&`) match any subset of their
 * variables in any order, as clients fill them in. A `{var}` or `{+var}`
 * right after another expression is refused: no one split is right.
 *
 * Where a URI still splits more than one way, because a literal between two
 * values may also stand in a value (`db://{a}-{b}-{c}`), a value takes as much
 * as leaves the rest of the URI matchable (`db://x-y-z-w` gives a = `x-y`), a
 * reserved (`+`, `#`) one as little; src/server/uri-template-match.ts finds
 * that split in time linear in the URI's length.
 */
import { InvalidUriTemplateError } from './definition-errors.ts';
import { charSet, matchPieces, type CharSet, type Piece } from './uri-template-match.ts';

/** The level 2 and 3 operators, plus `''` for a simple (level 1) expression. */
export type TemplateOperator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

interface Expression {
  operator: TemplateOperator;
  variables: string[];
}

type Part = string | Expression;

interface OperatorRule {
  first: string;
  separator: string;
  named: boolean;
  /** `;` writes an empty value as the bare name; `?` and `&` as `name=`. */
  emptyWithEquals: boolean;
  /** Reserved characters pass unencoded (`+`, `#`). */
  reserved: boolean;
}

const RULES: Readonly<Record<TemplateOperator, OperatorRule>> = {
  '': { first: '', separator: ',', named: false, emptyWithEquals: false, reserved: false },
  '+': { first: '', separator: ',', named: false, emptyWithEquals: false, reserved: true },
  '#': { first: '#', separator: ',', named: false, emptyWithEquals: false, reserved: true },
  '.': { first: '.', separator: '.', named: false, emptyWithEquals: false, reserved: false },
  '/': { first: '/', separator: '/', named: false, emptyWithEquals: false, reserved: false },
  ';': { first: ';', separator: ';', named: true, emptyWithEquals: false, reserved: false },
  '?': { first: '?', separator: '&', named: true, emptyWithEquals: true, reserved: false },
  '&': { first: '&', separator: '&', named: true, emptyWithEquals: true, reserved: false },
};

const OPERATORS = new Set(Object.keys(RULES).filter((operator) => operator !== ''));
/** Operators RFC 6570 reserves for future extensions. */
const RESERVED_OPERATORS = new Set(['=', ',', '!', '@', '|']);
const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})+)*$/;
/** Characters a literal may not hold (RFC 6570 section 2.1), braces aside. */
const FORBIDDEN_LITERAL = /[\u0000-\u0020"'<>\\^`|\u007f]/;
const UNRESERVED = /[A-Za-z0-9\-._~]/;
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;
const UNRESERVED_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';
const RESERVED_CHARS = ":/?#[]@!$&'()*+,;=";

/** A parsed template: what it lists, how to fill it in and how to read a URI back through it. */
export class UriTemplate {
  /** Every variable name, in template order. */
  readonly variables: readonly string[];
  private readonly parts: Part[];
  private readonly pieces: Piece[];

  /** Throws InvalidUriTemplateError when `template` is not an RFC 6570 level 1–3 template. */
  constructor(readonly template: string) {
    this.parts = parse(template);
    this.variables = this.parts.flatMap((part) => (typeof part === 'string' ? [] : part.variables));
    const seen = new Set<string>();
    for (const name of this.variables) {
      if (seen.has(name)) throw new InvalidUriTemplateError(template, `variable ${name} appears twice`);
      seen.add(name);
    }
    this.pieces = this.parts.flatMap(piecesOf);
  }

  /** The URI for these values; a variable without a value is left out, as RFC 6570 says for undefined ones. */
  expand(values: Readonly<Record<string, string>>): string {
    return this.parts.map((part) => (typeof part === 'string' ? part : expandExpression(part, values))).join('');
  }

  /** The variables' values (percent-decoded) when `uri` is an expansion of this template, else undefined. */
  match(uri: string): Record<string, string> | undefined {
    const found = matchPieces(this.pieces, uri);
    if (!found) return undefined;
    const values: Record<string, string> = {};
    let span = 0;
    for (const part of this.parts) {
      if (typeof part === 'string') continue;
      if (part.operator === '?' || part.operator === '&') {
        if (!readQuery(part, found[span++]!, values)) return undefined;
        continue;
      }
      for (const name of part.variables) {
        const raw = found[span++]!;
        const value = decode(RULES[part.operator].named ? raw.replace(/^[^=]*=?/, '') : raw);
        if (value === undefined) return undefined;
        values[name] = value;
      }
    }
    return values;
  }
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const literal = template.slice(at, open === -1 ? undefined : open);
    if (literal.includes('}')) throw new InvalidUriTemplateError(template, 'a } without its {');
    if (FORBIDDEN_LITERAL.test(literal)) throw new InvalidUriTemplateError(template, `the literal ${JSON.stringify(literal)} holds a character a URI template may not`);
    if (literal !== '') parts.push(literal);
    if (open === -1) break;
    const close = template.indexOf('}', open);
    if (close === -1) throw new InvalidUriTemplateError(template, 'a { without its }');
    const expression = parseExpression(template, template.slice(open + 1, close));
    // `{a}{b}` has no one reading, and trying every split of a long URI is quadratic or worse.
    if (RULES[expression.operator].first === '' && parts.length > 0 && typeof parts[parts.length - 1] !== 'string') {
      throw new InvalidUriTemplateError(template, `{${template.slice(open + 1, close)}} follows another expression with nothing between them`);
    }
    parts.push(expression);
    at = close + 1;
  }
  return parts;
}

function parseExpression(template: string, body: string): Expression {
  if (body.includes('{')) throw new InvalidUriTemplateError(template, 'a { inside an expression');
  const head = body.charAt(0);
  if (RESERVED_OPERATORS.has(head)) throw new InvalidUriTemplateError(template, `operator ${head} is reserved by RFC 6570`);
  const operator = (OPERATORS.has(head) ? head : '') as TemplateOperator;
  const variables = body.slice(operator.length).split(',');
  for (const name of variables) {
    if (name.endsWith('*') || /:\d+$/.test(name)) {
      throw new InvalidUriTemplateError(template, `{${body}} uses a level 4 modifier (prefix or explode), which is not supported`);
    }
    if (!VARNAME.test(name)) throw new InvalidUriTemplateError(template, `{${body}} has an invalid variable name ${JSON.stringify(name)}`);
  }
  return { operator, variables };
}

function encodeValue(value: string, reserved: boolean): string {
  let out = '';
  for (const char of value) {
    if (UNRESERVED.test(char) || (reserved && RESERVED.test(char))) out += char;
    else out += encodeURIComponent(char).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  }
  // Reserved expansion keeps existing percent-encoded triplets; a lone % was encoded above only outside it.
  return reserved ? out.replace(/%25([0-9A-Fa-f]{2})/g, '%$1') : out;
}

function expandExpression({ operator, variables }: Expression, values: Readonly<Record<string, string>>): string {
  const rule = RULES[operator];
  const items: string[] = [];
  for (const name of variables) {
    const value = values[name];
    if (value === undefined) continue;
    const encoded = encodeValue(value, rule.reserved);
    if (!rule.named) items.push(encoded);
    else if (value === '') items.push(rule.emptyWithEquals ? `${name}=` : name);
    else items.push(`${name}=${encoded}`);
  }
  return items.length === 0 ? '' : rule.first + items.join(rule.separator);
}

/** A value's characters: its operator's allowed set less its separator, so adjacent values split one way only. */
function valueChars(operator: TemplateOperator): CharSet {
  let allowed = UNRESERVED_CHARS;
  if (RULES[operator].reserved) allowed += RESERVED_CHARS.replace(',', '');
  else if (operator === '.') allowed = allowed.replace('.', '');
  return charSet(allowed);
}

function piecesOf(part: Part): Piece[] {
  if (typeof part === 'string') return [{ kind: 'literal', text: part }];
  const { operator, variables } = part;
  const rule = RULES[operator];
  const allowed = valueChars(operator);
  if (operator === '?' || operator === '&') return [{ kind: 'query', first: rule.first, allowed }];
  const pieces: Piece[] = rule.first === '' ? [] : [{ kind: 'literal', text: rule.first }];
  variables.forEach((name, index) => {
    if (index > 0) pieces.push({ kind: 'literal', text: rule.separator });
    // Reserved values take as little as they can, so `{+path}{?q}` leaves the query to the query expression.
    pieces.push(rule.named ? { kind: 'parameter', name, allowed } : { kind: 'value', allowed, lazy: rule.reserved });
  });
  return pieces;
}

/** Reads `?a=1&b=2` into `values`; false when it names a variable twice or one the expression does not have. */
function readQuery({ variables }: Expression, query: string, values: Record<string, string>): boolean {
  if (query === '') return true;
  const found = new Set<string>();
  for (const pair of query.slice(1).split('&')) {
    const equals = pair.indexOf('=');
    const name = pair.slice(0, equals);
    const value = decode(pair.slice(equals + 1));
    if (!variables.includes(name) || found.has(name) || value === undefined) return false;
    found.add(name);
    values[name] = value;
  }
  return true;
}

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined; // a percent sequence that is not UTF-8: no URI of this template
  }
}
