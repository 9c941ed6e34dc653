/**
 * What the application consumes (its interest set) and the listen filter the
 * cache asks for: the intersection of that interest with what the connected
 * server advertises. The interest is never sent as is, because it may name
 * notifications this server does not offer; and the intersection is computed
 * afresh for every negotiation, so a filter is never carried over from an
 * earlier server. Pure: the filter can be inspected without opening anything.
 */
import { isResourceUri, type NotificationFilter } from '../protocol/filter.ts';
import type { ServerCapabilities } from '../protocol/versions.ts';
import { resourceEntry, type EntryKey } from './entries.ts';
import { InvalidInterestError } from './errors.ts';

/** The data an application reads from one server; kept as is across negotiations. */
export interface Interest {
  /** The tools list (`notifications/tools/list_changed`). */
  tools?: boolean;
  /** The prompts list (`notifications/prompts/list_changed`). */
  prompts?: boolean;
  /** The resources list (`notifications/resources/list_changed`). */
  resources?: boolean;
  /** Resource contents read by URI (`notifications/resources/updated`). */
  uris?: string[];
}

const LIST_KEYS = ['tools', 'prompts', 'resources'] as const;

/**
 * Checks an interest set that may come from configuration (JSON, YAML, env):
 * only the known keys, booleans for the lists, well-formed URIs. (An empty
 * one is valid: it overlaps no server, and the cache says so.) Returns a
 * copy; throws InvalidInterestError.
 */
export function validateInterest(raw: unknown): Interest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new InvalidInterestError('not_an_object', 'expected an object');
  const interest: Interest = {};
  for (const [key, value] of Object.entries(raw)) {
    if ((LIST_KEYS as readonly string[]).includes(key)) {
      if (typeof value !== 'boolean') throw new InvalidInterestError('wrong_type', `${key} must be a boolean`);
      interest[key as (typeof LIST_KEYS)[number]] = value;
    } else if (key === 'uris') {
      if (!Array.isArray(value)) throw new InvalidInterestError('wrong_type', 'uris must be an array of resource URIs');
      const bad = value.find((uri) => !isResourceUri(uri));
      if (bad !== undefined) throw new InvalidInterestError('malformed_uri', `${JSON.stringify(bad)} is not a resource URI`);
      interest.uris = [...(value as string[])];
    } else {
      throw new InvalidInterestError('unknown_key', `unknown key ${JSON.stringify(key)} (known: tools, prompts, resources, uris)`);
    }
  }
  return interest;
}

/**
 * The filter to open for `interest` on a server advertising `capabilities`,
 * or `null` when they have nothing in common (then nothing is opened).
 * A capability counts only when advertised as exactly `true`: capabilities
 * come from the peer, and anything else is not an offer.
 */
export function computeFilter(interest: Interest, capabilities: ServerCapabilities): NotificationFilter | null {
  const filter: NotificationFilter = {};
  if (interest.tools === true && capabilities.tools?.listChanged === true) filter.toolsListChanged = true;
  if (interest.prompts === true && capabilities.prompts?.listChanged === true) filter.promptsListChanged = true;
  if (interest.resources === true && capabilities.resources?.listChanged === true) filter.resourcesListChanged = true;
  const uris = [...new Set(interest.uris ?? [])];
  if (uris.length > 0 && capabilities.resources?.subscribe === true) filter.resourceSubscriptions = uris;
  return Object.keys(filter).length > 0 ? filter : null;
}

/** The cache entries an interest reads: its lists, then each of its URIs' contents once. */
export function interestKeys(interest: Interest): EntryKey[] {
  const keys: EntryKey[] = [];
  if (interest.tools === true) keys.push('tools');
  if (interest.prompts === true) keys.push('prompts');
  if (interest.resources === true) keys.push('resources');
  for (const uri of new Set(interest.uris ?? [])) keys.push(resourceEntry(uri));
  return keys;
}
