/**
 * Whether the human timeline is coloured: the no-color.org and FORCE_COLOR
 * conventions first, then whether stdout is a terminal.
 */

/** `NO_COLOR` (any non-empty value) wins; `FORCE_COLOR` turns colours on (`0` or `false`: off); otherwise only on a terminal. */
export function wantsColour(env: NodeJS.ProcessEnv, isTerminal: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return isTerminal;
}
