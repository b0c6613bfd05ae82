// A configuration device's document as provision() writes the first one
// (documentOf, src/console/cmd-service.ts): a configuration's saved form
// without wifi, service and remote, then changed by `change`.
import type { AgentConfig } from '../../src/config/types';
import { CODEC } from '../../src/config/codec';
import { documentOf } from '../../src/console/cmd-service';

export function docOf(c: AgentConfig, change: (d: Record<string, unknown>) => void = () => undefined): string {
  const d = JSON.parse(documentOf(CODEC.text(c))) as Record<string, unknown>;
  change(d);
  return JSON.stringify(d, null, 2);
}
