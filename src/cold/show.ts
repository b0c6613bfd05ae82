// Cold module 'show': config(), the running configuration, secrets masked.
import { showCommands } from '../console/cmd-config';
import { run } from '../console/run';

export default run(showCommands);
