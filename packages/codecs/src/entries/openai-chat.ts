/** `@tollgate/codecs/openai-chat`: the OpenAI Chat Completions codec alone (`openai_chat`). */
export { openaiChatCodec } from '../openai-chat/index.js';
