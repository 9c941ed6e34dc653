/**
 * The notification filter as data, and the one comparison a machine needs
 * (is an acknowledged filter inside the requested one). Pure, so machines
 * can use it; src/protocol/filter.ts re-exports it next to validation.
 */

/** What a listen stream (modern) or a notification listener (legacy) asks for: which list changes and which resource URIs. */
export interface NotificationFilter {
  /** `notifications/tools/list_changed`. */
  toolsListChanged?: boolean;
  /** `notifications/prompts/list_changed`. */
  promptsListChanged?: boolean;
  /** `notifications/resources/list_changed`. */
  resourcesListChanged?: boolean;
  /** Resource URIs whose `notifications/resources/updated` are wanted. */
  resourceSubscriptions?: string[];
  /** Task ids whose status notifications are wanted. */
  taskIds?: string[];
}

export const FILTER_BOOLEAN_KEYS = ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged'] as const;
export const FILTER_LIST_KEYS = ['resourceSubscriptions', 'taskIds'] as const;

/** True when `honored` asks for nothing that `requested` did not. */
export function isWithin(honored: NotificationFilter, requested: NotificationFilter): boolean {
  for (const key of FILTER_BOOLEAN_KEYS) if (honored[key] && !requested[key]) return false;
  for (const key of FILTER_LIST_KEYS) {
    const allowed = new Set(requested[key] ?? []);
    if ((honored[key] ?? []).some((item) => !allowed.has(item))) return false;
  }
  return true;
}
