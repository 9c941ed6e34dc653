/**
 * The installed package's version, for `--version` and the watcher's
 * clientInfo. package.json is two folders up from src/cli in a checkout and
 * three from dist/src/cli in the package; whichever exists is read.
 */
import { readFileSync } from 'node:fs';

const CANDIDATES = ['../../package.json', '../../../package.json'];

/** The `version` field of this package's package.json ("unknown" if none can be read). */
export function packageVersion(): string {
  for (const candidate of CANDIDATES) {
    try {
      const parsed = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === 'mcp-actors' && typeof parsed.version === 'string') return parsed.version;
    } catch {
      // Not this layout; try the next.
    }
  }
  return 'unknown';
}
