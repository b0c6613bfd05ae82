// The configuration device's cold modules as the loader hands them out on a
// board ('remote' kept while the agent runs, 'remote-apply' for each read,
// 'check' when a document is new), straight from their sources: for
// harnesses that run the runtime without a build.
import { startRemote } from '../../src/agent/remote';
import { pollRemote } from '../../src/agent/remote-apply';
import { CODEC } from '../../src/config/codec';

export const REMOTE_CODE: Record<string, unknown> = { remote: startRemote, 'remote-apply': pollRemote, check: CODEC };
