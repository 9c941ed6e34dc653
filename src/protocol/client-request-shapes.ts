/**
 * The three requests a server may ask of a client (`elicitation/create`,
 * `sampling/createMessage`, `roots/list`): their params and results as the
 * 2025-11-25 and 2026-07-28 schemas type them (the shapes agree across both
 * eras). Shared by the client, which answers them (src/client/), and the
 * server, which asks them (src/server/client-input.ts). Every object stays
 * open to fields a later revision adds.
 */
import type { JsonObject } from './jsonrpc.ts';

/** One field of a form elicitation's `requestedSchema` (a restricted, flat JSON Schema). */
export type ElicitFieldSchema = JsonObject & { type?: string; default?: unknown; enum?: unknown[] };

/** `elicitation/create` in form mode (`mode` absent means form). */
export interface ElicitFormParams {
  /** `form`, or absent (form is the default). */
  mode?: 'form';
  /** What the server asks the user, shown above the form. */
  message: string;
  /** The form: a flat object schema whose properties are the fields. */
  requestedSchema: { type: 'object'; properties: Record<string, ElicitFieldSchema>; required?: string[]; $schema?: string };
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** `elicitation/create` in URL mode: the user is sent to `url` out of band. */
export interface ElicitUrlParams {
  /** Discriminates URL mode from form mode. */
  mode: 'url';
  /** Why the user is sent to `url`. */
  message: string;
  /** The page the user completes the interaction on. */
  url: string;
  /** Legacy era (2025-11-25) only: the server's identifier of this elicitation. */
  elicitationId?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The params of `elicitation/create`. */
export type ElicitParams = ElicitFormParams | ElicitUrlParams;

/** A form field's value: string, number, boolean or a list of strings (multi-select). */
export type ElicitValue = string | number | boolean | string[];

/** The answer to `elicitation/create`. */
export interface ElicitResult {
  /** `accept`: the user submitted; `decline`: refused; `cancel`: dismissed without choosing. */
  action: 'accept' | 'decline' | 'cancel';
  /** The submitted form, only with `accept` in form mode. */
  content?: Record<string, ElicitValue>;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** One content block of a sampling message (text, image, audio, tool use or tool result). */
export type SamplingContent =
  | { type: 'text'; text: string; annotations?: JsonObject; _meta?: JsonObject; [key: string]: unknown }
  | { type: 'image' | 'audio'; data: string; mimeType: string; annotations?: JsonObject; _meta?: JsonObject; [key: string]: unknown }
  | { type: 'tool_use'; id: string; name: string; input: JsonObject; _meta?: JsonObject; [key: string]: unknown }
  | { type: 'tool_result'; toolUseId: string; content: JsonObject[]; isError?: boolean; structuredContent?: unknown; _meta?: JsonObject; [key: string]: unknown };

/** A message of a sampling conversation. */
export interface SamplingMessage {
  /** Who says the message. */
  role: 'user' | 'assistant';
  /** One content block, or several. */
  content: SamplingContent | SamplingContent[];
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The params of `sampling/createMessage`. */
export interface CreateMessageParams {
  /** The conversation to continue. */
  messages: SamplingMessage[];
  /** The most tokens the model may generate. */
  maxTokens: number;
  /** A system prompt the server asks for; the client may change or omit it. */
  systemPrompt?: string;
  /** Sampling temperature, when the server has a preference. */
  temperature?: number;
  /** Sequences that end generation. */
  stopSequences?: string[];
  /** Which servers' context to include in the prompt (soft-deprecated by the spec). */
  includeContext?: 'none' | 'thisServer' | 'allServers';
  /** Hints and priorities (cost, speed, intelligence) for choosing a model. */
  modelPreferences?: JsonObject;
  /** Provider-specific metadata, passed through. */
  metadata?: JsonObject;
  /** Tools the model may call while sampling. */
  tools?: JsonObject[];
  /** How the model may use `tools`. */
  toolChoice?: JsonObject;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The answer to `sampling/createMessage`. */
export interface CreateMessageResult {
  /** Who says the generated message (normally `assistant`). */
  role: 'user' | 'assistant';
  /** The generated content. */
  content: SamplingContent | SamplingContent[];
  /** The model that generated it. */
  model: string;
  /** Why generation stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, or another). */
  stopReason?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** A root the client lets the server work in (a `file://` URI). */
export interface Root {
  /** The root's URI (`file://` in the current spec). */
  uri: string;
  /** A human-readable name. */
  name?: string;
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The params of `roots/list` (nothing but `_meta`). */
export interface ListRootsParams {
  _meta?: JsonObject;
  [key: string]: unknown;
}

/** The answer to `roots/list`. */
export interface ListRootsResult {
  /** The roots the client offers. */
  roots: Root[];
  _meta?: JsonObject;
  [key: string]: unknown;
}
