// Cold module 'help': help() and help('keys').
import { helpCommands } from '../console/cmd-help';
import { run } from '../console/run';

export default run(helpCommands);
