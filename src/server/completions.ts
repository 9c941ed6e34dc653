/**
 * `completion/complete` (both eras): suggestions for a prompt argument
 * (`ref/prompt`) or a resource template variable (`ref/resource`), from the
 * `complete` callback defined on it. The `completions` capability is
 * advertised only while some argument or variable has one; an argument
 * without one completes to nothing. At most 100 values go out, with `total`
 * and `hasMore` saying how many there were (2025-11-25 completion page).
 */
import type { JsonObject } from '../protocol/jsonrpc.ts';
import { InvalidPromptError } from './definition-errors.ts';
import { InternalFailure, InvalidParamsError } from './errors.ts';
import { isJsonObject } from './json-values.ts';
import type { PromptDefinition, Registry } from './registry.ts';
import type { RequestContext } from './request-context.ts';

/** What a completion callback gets besides the partial value. */
export interface CompletionContext {
  /** Values the client already chose for the prompt's other arguments or the template's other variables. */
  readonly arguments: Readonly<Record<string, string>>;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
}

/** Suggests values for one argument or variable, given what the user typed so far. */
export type CompleteCallback = (value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>;

/** The most values one completion result may carry (the spec's cap). */
export const MAX_COMPLETION_VALUES = 100;

/** True while some prompt argument or template variable has a `complete` callback. */
export function canComplete(registry: Registry): boolean {
  return (
    registry.prompts.all().some(({ definition }) => definition.arguments?.some((argument) => argument.complete !== undefined)) ||
    registry.resourceTemplates.all().some(({ definition }) => Object.keys(definition.complete ?? {}).length > 0)
  );
}

/** Throws InvalidPromptError when an argument's `complete` is there but is no function. */
export function checkPromptCompletions(name: string, definition: PromptDefinition): void {
  for (const argument of definition.arguments ?? []) {
    if (argument.complete !== undefined && typeof argument.complete !== 'function') {
      throw new InvalidPromptError(name, `argument ${argument.name}: complete is not a function`);
    }
  }
}

function completer(registry: Registry, ref: unknown, argument: string): CompleteCallback | undefined {
  if (!isJsonObject(ref)) throw new InvalidParamsError('Invalid params: ref must be an object');
  if (ref.type === 'ref/prompt') {
    if (typeof ref.name !== 'string') throw new InvalidParamsError('Invalid params: ref.name must be a string');
    const prompt = registry.prompts.get(ref.name);
    if (!prompt) throw new InvalidParamsError(`Unknown prompt: ${ref.name}`);
    return prompt.definition.arguments?.find((candidate) => candidate.name === argument)?.complete;
  }
  if (ref.type === 'ref/resource') {
    if (typeof ref.uri !== 'string') throw new InvalidParamsError('Invalid params: ref.uri must be a string');
    const template = registry.resourceTemplates.get(ref.uri);
    if (template) return template.definition.complete?.[argument];
    // A fixed resource has no variables to complete.
    if (registry.resources.get(ref.uri)) return undefined;
    throw new InvalidParamsError(`Unknown resource template: ${ref.uri}`);
  }
  throw new InvalidParamsError('Invalid params: ref.type must be ref/prompt or ref/resource');
}

function contextArguments(params: JsonObject): Record<string, string> {
  const context = params.context;
  if (context === undefined) return {};
  const given = isJsonObject(context) ? context.arguments ?? {} : undefined;
  if (!isJsonObject(given) || Object.values(given).some((value) => typeof value !== 'string')) {
    throw new InvalidParamsError('Invalid params: context.arguments must be an object of strings');
  }
  return given as Record<string, string>;
}

/** Answers `completion/complete`; the router has checked the capability. */
export async function complete(registry: Registry, params: JsonObject | undefined, context: RequestContext): Promise<JsonObject> {
  const argument = params?.argument;
  if (!params || !isJsonObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    throw new InvalidParamsError('Invalid params: argument must be { name: string, value: string }');
  }
  const callback = completer(registry, params.ref, argument.name);
  if (callback === undefined) return { completion: { values: [] } };
  const values: unknown = await callback(argument.value, { arguments: contextArguments(params), signal: context.signal });
  if (!Array.isArray(values) || values.some((value) => typeof value !== 'string')) {
    throw new InternalFailure(`the complete callback of ${argument.name} did not return an array of strings`);
  }
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETION_VALUES),
      total: values.length,
      hasMore: values.length > MAX_COMPLETION_VALUES,
    },
  };
}
