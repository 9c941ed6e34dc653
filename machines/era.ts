/** The two protocol eras; machines import this instead of reaching into src/. */
export type Era = 'legacy' | 'modern';

/** Which era a client connects in: `auto` negotiates, the others pin one. */
export type EraPreference = 'auto' | Era;
