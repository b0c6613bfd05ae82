// validateConfig as the config tests use it: the errors it reports for a raw
// config (none if it is accepted), or the config it accepts (throwing with
// its errors if it is not).
import type { AgentConfig } from '../../src/config/types';
import { validateConfig } from '../../src/config/validate';

export const errorsOf = (raw: unknown): string[] => {
  const r = validateConfig(raw);
  return r.ok ? [] : r.errors;
};

export const configOf = (raw: unknown): AgentConfig => {
  const r = validateConfig(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.config;
};
