/** What the machines get from a successful negotiation, in either era: the tests' stand-in for a real server's answer. */
import type { Negotiated } from '../../machines/negotiation.machine.ts';

export const negotiated = (era: 'legacy' | 'modern'): Negotiated => ({
  era,
  protocolVersion: era === 'modern' ? '2026-07-28' : '2025-11-25',
  capabilities: {},
  serverInfo: undefined,
  instructions: undefined,
});
