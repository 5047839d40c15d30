/** `@tollgate/codecs/anthropic-messages`: the Anthropic Messages codec alone (`anthropic_messages`). */
export { anthropicMessagesCodec } from '../anthropic-messages/index.js';
