/**
 * Text a server chose (its name, a tool's, a URI, an error message), made
 * safe to write to a terminal: the control characters (C0, DEL, C1), the line
 * and paragraph separators and the bidirectional formatting characters are
 * shown as `\u{…}` escapes instead of being written. Written as they came, a
 * hostile server could retitle the window, clear the screen, set the
 * clipboard (OSC 52), forge timeline lines with a newline, or reorder what a
 * line shows. `--json` keeps the exact text: there they are JSON escapes
 * (`printableJson`), which a program reads back as the characters themselves.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with every character a terminal would act on, rather than show, written as `\u{hex}`. */
export const printable = (text: string): string => text.replace(UNPRINTABLE, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);

/**
 * JSON text (JSON.stringify's output) with the same characters written as JSON `\uXXXX` escapes. It parses to the
 * exact same value, but JSON.stringify leaves DEL, C1 (a one-byte CSI), U+2028/U+2029 and the bidirectional
 * controls raw: `--json` on a terminal would act on them, and line splitters that break on U+2028 or U+0085
 * (Python's str.splitlines) would cut one object in two. They can only stand inside strings, each after a whole
 * escape or character, so the replacement is a valid escape wherever it lands.
 */
export const printableJson = (json: string): string =>
  json.replace(UNPRINTABLE, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
