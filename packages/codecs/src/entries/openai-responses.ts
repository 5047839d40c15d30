/** `@tollgate/codecs/openai-responses`: the OpenAI Responses codec alone (`openai_responses`). */
export { openaiResponsesCodec } from '../openai-responses/index.js';
