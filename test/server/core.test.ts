/**
 * The shared server state on its own: what a listen gets while the server closes.
 */
import { expect, it } from 'vitest';
import { ServerCore } from '../../src/server/core.ts';
import { LimitExceededError, ServerClosingError } from '../../src/server/errors.ts';

it('refuses a new listen stream while closing with its own error, not a limit', async () => {
  const core = new ServerCore({ name: 'core', version: '1' });
  await core.close();
  let thrown: unknown;
  try {
    core.assertRoomForStream();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ServerClosingError);
  expect(thrown).not.toBeInstanceOf(LimitExceededError);
  expect((thrown as ServerClosingError).httpStatus).toBe(503);
  expect((thrown as ServerClosingError).toJson()).toEqual({ code: -32000, message: 'Server is shutting down: no new listen streams' });
});
