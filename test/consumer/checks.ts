/**
 * What the consumer test expects of the tarball, of the consumer clients'
 * output and of the typed consumer's diagnostics. Each check throws with what
 * it found, or returns a short line for the step's report.
 */

/** One entry of `npm pack --json`'s file list. */
export interface PackedFile {
  path: string;
}

const REQUIRED = [
  'package.json',
  'README.md',
  'LICENSE',
  'CHANGELOG.md',
  'bin/mcp-actors.js',
  'dist/src/index.js',
  'dist/src/index.d.ts',
  'dist/src/server/index.js',
  'dist/src/server/index.d.ts',
  'dist/src/redis/index.js',
  'dist/src/redis/index.d.ts',
  'dist/src/testing/index.js',
  'dist/src/testing/index.d.ts',
  'dist/src/demo/demo-server.js',
];
const TOP_LEVEL = new Set(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']);
/** Emitted files only: JavaScript, declarations and their maps. */
const EMITTED = /\.(js|js\.map|d\.ts|d\.ts\.map)$/;

export function checkTarball(files: readonly PackedFile[]): string {
  const paths = files.map((file) => file.path);
  const missing = REQUIRED.filter((path) => !paths.includes(path));
  const stray = paths.filter((path) => !TOP_LEVEL.has(path) && path !== 'bin/mcp-actors.js' && !(path.startsWith('dist/') && EMITTED.test(path)));
  if (missing.length > 0 || stray.length > 0) {
    throw new Error(`missing: ${missing.join(', ') || 'none'}; not for users: ${stray.slice(0, 20).join(', ') || 'none'}`);
  }
  return `${paths.length} files`;
}

interface EraRun {
  asked: string;
  era: string;
  protocolVersion: string;
  before: string[];
  notifications: string[];
  after: string[];
  meta: Record<string, unknown>;
}

const EXPECTED_VERSION: Record<string, string> = { modern: '2026-07-28', legacy: '2025-11-25' };

/** scenario.cjs prints one JSON line per era. */
export function checkClientOutput(stdout: string): string {
  const runs = stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as EraRun);
  const problems: string[] = [];
  for (const era of ['modern', 'legacy']) {
    const run = runs.find((candidate) => candidate.asked === era);
    if (!run) {
      problems.push(`no ${era} run`);
      continue;
    }
    if (run.era !== era || run.protocolVersion !== EXPECTED_VERSION[era]) problems.push(`${era}: negotiated ${run.era} ${run.protocolVersion}`);
    if (JSON.stringify(run.meta) !== JSON.stringify({ 'consumer.example/run': era })) problems.push(`${era}: handler saw _meta ${JSON.stringify(run.meta)}`);
    if (run.before.join() !== 'add_tool,echo,meta') problems.push(`${era}: tools before ${run.before.join()}`);
    if (run.notifications.join() !== 'notifications/tools/list_changed') problems.push(`${era}: notifications ${run.notifications.join() || 'none'}`);
    if (!run.after.includes('added')) problems.push(`${era}: tools after ${run.after.join()}`);
  }
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\nstdout:\n${stdout}`);
  return 'modern (listen) and legacy (subscribeNotifications) each heard notifications/tools/list_changed once; a request `meta` reached the handler in both';
}

/** A diagnostic's location inside xstate's package, whatever the layout above it (npm, pnpm). */
const inXstate = (line: string): string | undefined => {
  const at = line.indexOf('xstate/dist/');
  return at >= 0 && !line.includes('@xstate/') ? line.slice(at) : undefined;
};

/**
 * The typed consumer must add no diagnostic of its own. xstate 5.33.3's own
 * declarations do not type-check under exactOptionalPropertyTypes with
 * skipLibCheck false (setup.d.ts, TS2344): a project that imports only xstate
 * gets them too, so they are measured there (`xstateAlone`) and tolerated
 * here only if they are exactly those. Everything else fails the step.
 */
export function checkTypeDiagnostics(diagnostics: readonly string[], xstateAlone: readonly string[]): string {
  const known = new Set(xstateAlone.map(inXstate));
  const ours = diagnostics.filter((line) => {
    const location = inXstate(line);
    return location === undefined || !known.has(location);
  });
  if (ours.length > 0) throw new Error(`${ours.length} diagnostics:\n${ours.join('\n')}`);
  if (diagnostics.length === 0) return 'no diagnostics';
  return `no diagnostic from mcp-actors or the consumer; the ${diagnostics.length} left are xstate's own (setup.d.ts, as in a project importing only xstate)`;
}
