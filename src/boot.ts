import type { Platform } from './ports/ports';

/** Starts the agent on a platform. Placeholder until the agent lands. */
export function boot(p: Platform): void {
  p.log.info('agent: console-only mode (no configuration yet)');
}
