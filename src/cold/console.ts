// Cold module 'console': status(), config(), set(), save() and the rest.
import { configCommands } from '../console/cmd-config';
import { run } from '../console/run';

export default run(configCommands);
