/** Type tests for the exact filter types of listen and subscribeNotifications (see type-tests.test.ts). */
import type { McpClient } from '../../src/index.ts';

declare const client: McpClient;

void client.listen({ toolsListChanged: true, resourceSubscriptions: ['file:///a'] }, () => undefined);
// @ts-expect-error: a misspelt key is a compile error, not only a FilterError at run time
void client.listen({ toolsListChange: true }, () => undefined);
// @ts-expect-error: a value of the wrong type too
void client.listen({ toolsListChanged: 'yes' }, () => undefined);
void client.subscribeNotifications({ promptsListChanged: true }, () => undefined);
// @ts-expect-error: the legacy listener's filter is the same exact type
void client.subscribeNotifications({ promptListChanged: true }, () => undefined);
