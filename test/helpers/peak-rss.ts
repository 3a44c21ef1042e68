import { readFileSync, writeSync } from 'node:fs';

/** Peak resident set size in bytes, from the kernel (process.resourceUsage() where /proc is missing). */
export function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

/** A child's answer to the test that ran it: one JSON line on stdout, with the peak RSS so far. */
export function report(result: object): void {
  writeSync(1, JSON.stringify({ ...result, maxRssBytes: peakRss() }) + '\n');
}
