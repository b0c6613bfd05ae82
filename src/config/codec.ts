// The config checker and the saved form, together: what the store asks the
// cold module 'check' for (src/residency.json). The host and the tests use it
// directly.
import type { ConfigCodec } from './store';
import { toSaved } from './saved';
import { validateConfig } from './validate';

export const CODEC: ConfigCodec = {
  check: validateConfig,
  text: (c) => JSON.stringify(toSaved(c), null, 2) + '\n',
};
