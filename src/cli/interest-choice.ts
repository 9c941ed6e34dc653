/**
 * What the watcher asks the change cache for: the operator's selection, or
 * by default everything the server has, plus the contents of its first few
 * resources when it supports resources/subscribe (so updates have something
 * to show without asking for URIs).
 */
import type { Interest } from '../cache/interest.ts';
import { isResourceUri } from '../protocol/filter.ts';
import type { McpClient } from '../client/client.ts';
import type { JsonObject } from '../protocol/jsonrpc.ts';
import type { ServerCapabilities } from '../protocol/versions.ts';
import { DEFAULT_WATCHED_URIS, type InterestSelection } from './args.ts';
import type { AdvertisedChanges } from './timeline.ts';

export async function chooseInterest(selection: InterestSelection, client: McpClient, capabilities: ServerCapabilities): Promise<Interest> {
  if (!selection.everything) {
    return { tools: selection.tools, prompts: selection.prompts, resources: selection.resources, uris: selection.uris };
  }
  const interest: Interest = {
    tools: capabilities.tools !== undefined,
    prompts: capabilities.prompts !== undefined,
    resources: capabilities.resources !== undefined,
    uris: [],
  };
  if (capabilities.resources?.subscribe === true) {
    const resources: JsonObject[] = await client.listResources().catch(() => []);
    interest.uris = resources
      .map((resource) => resource.uri)
      .filter(isResourceUri)
      .slice(0, DEFAULT_WATCHED_URIS);
  }
  return interest;
}

export function advertisedChanges(capabilities: ServerCapabilities): AdvertisedChanges {
  return {
    toolsListChanged: capabilities.tools?.listChanged === true,
    promptsListChanged: capabilities.prompts?.listChanged === true,
    resourcesListChanged: capabilities.resources?.listChanged === true,
    resourceSubscribe: capabilities.resources?.subscribe === true,
  };
}
