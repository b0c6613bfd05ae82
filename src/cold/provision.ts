// Cold module 'provision': provision(), an API key and a device made on the
// service and set in the pending configuration.
import { provisionCommands } from '../console/cmd-service';
import { run } from '../console/run';

export default run(provisionCommands);
