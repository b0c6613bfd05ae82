// Cold module 'check': the schema, the validator and the saved form of a
// configuration. The store asks for it when a saved file has not been
// checked by this build yet, and when a change is saved.
import { CODEC } from '../config/codec';

export default CODEC;
