// Cold module 'help': help(), the command list. help('keys') is module
// 'keys' (src/console/stubs.ts routes it), which carries the schema.
import { overviewCommands } from '../console/cmd-help';
import { run } from '../console/run';

export default run(overviewCommands);
