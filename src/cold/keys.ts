// Cold module 'keys': help('keys'), every setting with its rule and help text.
import { keysCommands } from '../console/cmd-help';
import { run } from '../console/run';

export default run(keysCommands);
