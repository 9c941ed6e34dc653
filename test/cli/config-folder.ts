/**
 * A temporary folder for the host config files one test file writes
 * (`watch --config FILE`), removed after that file's tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** The folder, and how to write a file into it (JSON, as hosts write it, or any text); each write returns its path. */
export interface ConfigFolder {
  dir: string;
  writeJson(name: string, config: unknown): string;
  writeText(name: string, text: string): string;
}

/** Makes the folder (named from `prefix`) and removes it once the calling test file is done. */
export function configFolder(prefix: string): ConfigFolder {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const writeText = (name: string, text: string): string => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  return { dir, writeText, writeJson: (name, config) => writeText(name, JSON.stringify(config, null, 2)) };
}
