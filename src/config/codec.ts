// The config checker and the saved form: the cold module 'check'.
import type { ConfigCodec } from './store';
import { toSaved } from './saved';
import { validateConfig } from './validate';

export const CODEC: ConfigCodec = {
  check: validateConfig,
  text: (c) => JSON.stringify(toSaved(c), null, 2) + '\n',
};
