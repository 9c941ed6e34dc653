/**
 * Text a server chose (its name, a tool's, a URI, an error message), made
 * safe to write to a terminal: the control characters (C0, DEL, C1), the line
 * and paragraph separators and the bidirectional formatting characters are
 * shown as `\u{…}` escapes instead of being written. Written as they came, a
 * hostile server could retitle the window, clear the screen, set the
 * clipboard (OSC 52), forge timeline lines with a newline, or reorder what a
 * line shows. `--json` needs none of this: JSON escapes what it must, and a
 * program reading it wants the exact text.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with every character a terminal would act on, rather than show, written as `\u{hex}`. */
export const printable = (text: string): string => text.replace(UNPRINTABLE, (character) => `\\u{${character.codePointAt(0)!.toString(16)}}`);
