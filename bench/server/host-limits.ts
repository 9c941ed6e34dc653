/**
 * What the host allows a loopback HTTP benchmark: every listen stream over
 * HTTP/1.1 holds a socket in the client and one in the server, so N streams
 * need N open files in each process, and N ephemeral ports toward the one
 * server address. Read from Linux's /proc, never changed: a benchmark that
 * cannot run a row says why instead of depending silently on a tuned host.
 */
import { readFileSync } from 'node:fs';

/** Per-process open-file limit and ephemeral ports per source address. */
export interface HostLimits {
  /** Soft RLIMIT_NOFILE of this process (Node raises it to the hard limit at start; children inherit it). */
  openFiles: number;
  /** Ports in net.ipv4.ip_local_port_range: connections from one source address to one server port. */
  ephemeralPorts: number;
  /** The range as the kernel states it, for the report. */
  portRange: string;
}

/** Files a benchmark process holds besides its streams' sockets (stdio, IPC, tsx's pipes, the listener). */
const OTHER_FILES = 500;
/** Ports per source address the benchmark uses at most: the rest stays for whatever else the host connects. */
const PORT_SHARE = 0.9;
/** Linux's default range, 32768-60999, where /proc cannot be read. */
const DEFAULT_PORTS = 28_232;

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

export function hostLimits(): HostLimits {
  const limits = read('/proc/self/limits');
  const files = limits?.match(/^Max open files\s+(\d+|unlimited)/m)?.[1];
  const range = read('/proc/sys/net/ipv4/ip_local_port_range')?.trim().split(/\s+/).map(Number);
  const ports = range && range.length === 2 ? range[1]! - range[0]! + 1 : DEFAULT_PORTS;
  return {
    openFiles: files === undefined || files === 'unlimited' ? Number.POSITIVE_INFINITY : Number(files),
    ephemeralPorts: ports,
    portRange: range ? range.join('-') : 'unknown (assumed 32768-60999)',
  };
}

/** Whether `streams` HTTP streams can be held here; if not, why, and the most that can. */
export type HttpFit = { fits: true } | { fits: false; reason: string; largest: number };

export function httpStreamsFit(streams: number, limits: HostLimits): HttpFit {
  const usable = limits.openFiles - OTHER_FILES;
  if (streams <= usable) return { fits: true };
  return {
    fits: false,
    reason: `${streams.toLocaleString('en-US')} streams need that many open files in the server and in the client, and this host allows ${limits.openFiles.toLocaleString('en-US')} per process (hard limit; raising it needs CAP_SYS_RESOURCE)`,
    largest: Math.floor(usable / 1_000) * 1_000,
  };
}

/**
 * Source addresses for `streams` client connections to one loopback server
 * port: 127.0.0.1, then 127.0.0.2, … (all of 127.0.0.0/8 is loopback on
 * Linux), as many as the ephemeral port range makes necessary.
 */
export function sourceAddresses(streams: number, limits: HostLimits): string[] {
  const count = Math.max(1, Math.ceil(streams / Math.floor(limits.ephemeralPorts * PORT_SHARE)));
  return Array.from({ length: count }, (_, index) => `127.0.0.${index + 1}`);
}
