// The control for the typed consumer: a project that imports only xstate,
// checked with the same flags, shows which diagnostics are xstate's own.
import { createActor, setup } from 'xstate';

export const actor = createActor(setup({}).createMachine({}));
