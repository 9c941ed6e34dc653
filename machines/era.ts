/** The two protocol eras; machines import this instead of reaching into src/. */
export type Era = 'legacy' | 'modern';
